"""Job: one analysed run, its JSON document and its tables."""

import json

from . import _native
from .commands import Error, run

try:  # pandas and numpy are optional: without them tables are lists of dicts
    import pandas as _pd
except ImportError:  # pragma: no cover - exercised where pandas is absent
    _pd = None
try:
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None


def _table(rows):
    """A DataFrame of ``rows`` (dicts) when pandas is installed, else the list itself."""
    return _pd.DataFrame(rows) if _pd is not None else rows


class Job:
    """One analysed run: the ``trainscope.analysis`` JSON document and tables over it.

    ``document`` is the parsed JSON, exactly what ``trainscope analyze --json``
    writes for the same inputs (``to_json()`` returns its bytes as text).
    The properties below are views of it; ``kernels()`` reads the profiles
    again for every device task (the analysis itself keeps summaries only).
    """

    def __init__(self, json_bytes, paths, options, threads=None, families=None,
                 activity_rules=None):
        self._json = json_bytes.decode("utf-8")
        self.document = json.loads(self._json)
        self.paths = list(paths)
        self._options = list(options)
        self._threads = threads
        self._families = families
        self._activity_rules = activity_rules

    def __repr__(self):
        ranks = self.document.get("cluster", {}).get("ranks")
        return f"<trainscope.Job {self.paths!r}: {ranks} rank(s), {len(self.findings)} finding(s)>"

    # The document's sections, as in docs/json-schema.md.
    @property
    def findings(self):
        """Findings ranked by estimated gain: a list of dicts as in the JSON's ``findings``."""
        return self.document.get("findings", [])

    @property
    def projection(self):
        """The "all findings applied" projection (``projection`` in the JSON), or None."""
        return self.document.get("projection")

    @property
    def ranks(self):
        """Every rank's section of the JSON (list of dicts: rank, source, steps, ...)."""
        return self.document.get("ranks", [])

    @property
    def cluster(self):
        """The cross-rank section (``cluster``): step time, stragglers, collectives, links."""
        return self.document.get("cluster", {})

    @property
    def steps(self):
        """The steps table: one row per captured step over all ranks (``steps_table.rows``)."""
        return _table(self.document.get("steps_table", {}).get("rows", []))

    def selected_step(self, rank=None):
        """The step trainscope analysed on ``rank`` (the first rank when None), or None."""
        for entry in self.ranks:
            if rank is None or entry.get("rank") == rank:
                return entry.get("selected_step")
        return None

    def _per_step(self, key, flatten):
        rows = []
        for entry in self.ranks:
            for step in entry.get("steps", []):
                value = step.get(key)
                if value is None:
                    continue
                for row in flatten(value):
                    rows.append({"rank": entry.get("rank"), "step": step.get("step"), **row})
        return _table(rows)

    @property
    def families(self):
        """Kernel families per rank and analysed step: count, time and shares."""
        return self._per_step("families", lambda families: families)

    @property
    def motifs(self):
        """Periodic kernel chains per rank and step, with their fingerprint match."""
        return self._per_step("motifs", lambda motifs: motifs)

    @property
    def memory(self):
        """Device memory per rank and step (the scalar fields of each ``memory`` section)."""
        return self._per_step(
            "memory",
            lambda memory: [{k: v for k, v in memory.items() if not isinstance(v, (list, dict))}])

    @property
    def collectives(self):
        """Collectives across ranks (``cluster.collectives``)."""
        return _table(self.cluster.get("collectives", []))

    def to_json(self):
        """The JSON document as text, byte for byte what ``trainscope analyze --json`` writes."""
        return self._json

    def html(self, path):
        """Writes the self-contained HTML report to ``path`` (the inputs are analysed again)."""
        run(["analyze", *self.paths, *self._options, "--html", str(path)])
        return path

    def kernels(self, rank=None, step=None):
        """Every device task of this job's inputs: :func:`trainscope.kernels` with its options."""
        return kernels(self.paths, rank=rank, step=step, threads=self._threads,
                       families=self._families, activity_rules=self._activity_rules)


def kernels(paths, rank=None, step=None, threads=None, families=None, activity_rules=None):
    """Every device task (kernels, collectives, memcpy, memset) under ``paths`` as a table.

    ``rank``: one rank (None: every rank); ``step``: one step (None: every
    step; tasks outside any step have step -1). Columns: rank, step, name,
    family, kind, op_type, accelerator, input_shapes (categoricals),
    start_ns, duration_ns, wait_ns (int64 ns), stream, device, block_dim,
    op_type_derived. With pandas: a DataFrame whose numeric columns share
    the library's memory; without pandas: a dict of numpy arrays (or
    memoryviews and lists without numpy). ``families`` and
    ``activity_rules`` are rule files as for the CLI.
    """
    from .commands import _paths

    try:
        ranks, failed = _native.kernels(
            _paths(paths), rank, threads or 0, str(families) if families else "",
            str(activity_rules) if activity_rules else "")
    except _native.Error as error:
        message, _, hint = str(error).partition("\nhint: ")
        raise Error(message, hint) from None
    if rank is not None and not ranks:
        reasons = "; ".join(f"{path}: {reason}" for path, reason in failed)
        raise Error(f"rank {rank} is not among the loaded ranks" +
                    (f" (not loaded: {reasons})" if reasons else ""),
                    "job.cluster['present'] lists the ranks that were read")
    tables = [_rank_table(entry) for entry in ranks]
    return _select_step(_concat(tables), step)


def _column(values):
    """A native column as numpy (sharing memory), else a memoryview."""
    return _np.asarray(values) if _np is not None else memoryview(values)


def _strings(coded):
    codes, categories = coded["codes"], coded["categories"]
    if _pd is not None:
        return _pd.Categorical.from_codes(_np.asarray(codes), categories=categories)
    return [categories[c] for c in memoryview(codes)]


def _rank_table(entry):
    columns = {}
    numeric = entry["columns"]
    strings = entry["strings"]
    size = len(numeric["start_ns"])
    columns["rank"] = _np.full(size, entry["rank"], dtype="int32") if _np is not None else [entry["rank"]] * size
    columns["step"] = _column(numeric["step"])
    for name in ("name", "family", "kind", "op_type", "accelerator", "input_shapes"):
        columns[name] = _strings(strings[name])
    for name in ("start_ns", "duration_ns", "wait_ns", "stream", "device", "block_dim",
                 "op_type_derived"):
        columns[name] = _column(numeric[name])
    if _pd is not None:
        return _pd.DataFrame(columns, copy=False)
    return columns


def _concat(tables):
    if _pd is not None:
        if not tables:
            return _pd.DataFrame()
        if len(tables) == 1:
            return tables[0]
        return _pd.concat(tables, ignore_index=True)
    merged = {}
    for table in tables:
        for name, values in table.items():
            merged.setdefault(name, []).extend(list(values))
    return merged


def _select_step(table, step):
    if step is None:
        return table
    if _pd is not None:
        if table.empty:
            return table
        return table[table["step"] == step].reset_index(drop=True)
    keep = [i for i, s in enumerate(table.get("step", [])) if s == step]
    return {name: [values[i] for i in keep] for name, values in table.items()}
