"""The trainscope commands as Python functions (each one runs the CLI's own code in-process)."""

import json
import os
import warnings

from . import _native

# Exit codes (docs/json-schema.md, "Exit codes"): 0 success; 2 unusable input
# or usage; 1 an internal error; compare --gate: 3 a regression.
_EXIT_SUCCESS = 0


class Error(Exception):
    """A command failed: the CLI's message and hint, and its exit code.

    ``message`` is the first part of the CLI's error, ``hint`` what to do
    (``""`` when the CLI gave none), ``exit_code`` the code the CLI would exit
    with (2: the input or the options are unusable; 1: an internal error).
    """

    def __init__(self, message, hint="", exit_code=2, stderr=""):
        super().__init__(message + (f"\nhint: {hint}" if hint else ""))
        self.message = message
        self.hint = hint
        self.exit_code = exit_code
        self.stderr = stderr


def _paths(paths):
    """One path or several, as the strings the CLI takes."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = [os.fsdecode(p) for p in paths]
    if not out:
        raise Error("no input paths given", "pass a job directory, rank directories or trace files")
    return out


def _path(path):
    """One path, as the string the CLI takes."""
    return os.fsdecode(path)


def _error_from(stderr, exit_code):
    """The Error a failed run's stderr describes ("trainscope: error: ...\\nhint: ...")."""
    text = stderr.strip()
    marker = "trainscope: error: "
    start = text.rfind(marker)
    body = text[start + len(marker):] if start >= 0 else (text or f"trainscope exited with {exit_code}")
    message, hint = body, ""
    hint_at = body.find("\nhint: ")
    if hint_at >= 0:
        message, hint = body[:hint_at], body[hint_at + len("\nhint: "):]
    return Error(message, hint, exit_code, stderr)


def _warn(stderr):
    """Warnings the CLI printed on a successful run, as Python warnings (one per
    "trainscope: warning:" line with the lines that continue it)."""
    marker = "trainscope: warning: "
    current = None
    for line in stderr.splitlines() + [marker]:
        if line.startswith(marker) or line.startswith("trainscope: "):
            if current:
                warnings.warn("\n".join(current), RuntimeWarning, stacklevel=3)
            current = [line[len(marker):]] if line.startswith(marker) and line != marker else None
        elif current is not None:
            current.append(line)


def run(args, ok_codes=(_EXIT_SUCCESS,)):
    """Runs any trainscope command (``args`` without the program name) in-process.

    Returns ``(exit_code, stdout bytes, stderr text)``; raises :class:`Error`
    when the exit code is not in ``ok_codes``.
    """
    exit_code, out, err = _native.run([os.fsdecode(a) for a in args])
    if exit_code not in ok_codes:
        raise _error_from(err, exit_code)
    _warn(err)
    return exit_code, out, err


def _options(**given):
    """CLI options from keyword arguments: None is left out, True is a flag."""
    args = []
    for name, value in given.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        else:
            args += [flag, os.fsdecode(value) if isinstance(value, os.PathLike) else str(value)]
    return args


def _document(args, ok_codes=(_EXIT_SUCCESS,)):
    exit_code, out, _ = run(args + ["--json", "-"], ok_codes)
    return exit_code, out


def analyze(paths, threads=None, step=None, rank=None, thresholds=None, families=None,
            fingerprints=None, activity_rules=None, run=None):
    """Analyses profiles (job dirs, ``*_ascend_pt`` rank dirs, Kineto traces) into a :class:`Job`.

    ``threads``: cores to use (default all); ``step``: the step to analyse
    (default: the steady step trainscope picks); ``rank``: the rank the text
    report focuses on; ``thresholds``, ``families``, ``fingerprints``,
    ``activity_rules``: rule files as for the CLI; ``run``: the run to
    analyse when the inputs hold several (1-based).
    """
    from .job import Job

    paths = _paths(paths)
    options = _options(threads=threads, step=step, rank=rank, thresholds=thresholds,
                       families=families, fingerprints=fingerprints,
                       activity_rules=activity_rules, run=run)
    _, out = _document(["analyze", *paths] + options)
    return Job(out, paths, options, threads=threads, families=families,
               activity_rules=activity_rules)


def compare(base, new, threads=None, step=None, base_step=None, new_step=None, rank=None,
            thresholds=None, families=None, fingerprints=None, activity_rules=None, gate=None):
    """Compares two runs with the same yardstick; returns the ``trainscope.compare`` document.

    ``gate``: the regression gate's rules (``True`` for the default rules, or
    a string such as ``"step_time:+3%,op:MatMulV3:+10%"``; docs/compare.md).
    A gate's verdict is in the document's ``gate``; a regression (the CLI's
    exit 3) or a rule that cannot conclude (exit 4) does not raise.
    """
    options = _options(threads=threads, step=step, base_step=base_step, new_step=new_step,
                       rank=rank, thresholds=thresholds, families=families,
                       fingerprints=fingerprints, activity_rules=activity_rules)
    ok_codes = (_EXIT_SUCCESS,)
    if gate is not None and gate is not False:
        options.append("--gate" if gate is True else f"--gate={gate}")
        ok_codes = (_EXIT_SUCCESS, 3, 4)
    _, out = _document(["compare", _path(base), _path(new)] + options, ok_codes)
    return json.loads(out)


def health(paths, threads=None, thresholds=None, model=None, device=None, peak_tflops=None):
    """Training health from training logs; returns the ``trainscope.health`` document."""
    options = _options(threads=threads, thresholds=thresholds, model=model, device=device,
                       peak_tflops=peak_tflops)
    _, out = _document(["health", *_paths(paths)] + options)
    return json.loads(out)


def accuracy(base, new, threads=None, thresholds=None, min_cosine=None, max_abs=None,
             mapping=None, bf16=False, step=None, rank=None, loss=False):
    """Accuracy alignment of two tensor dumps (or loss curves with ``loss=True``);
    returns the ``trainscope.accuracy`` document."""
    options = _options(threads=threads, thresholds=thresholds, min_cosine=min_cosine,
                       max_abs=max_abs, mapping=mapping, bf16=bf16, step=step, rank=rank,
                       loss=loss)
    _, out = _document(["accuracy", _path(base), _path(new)] + options)
    return json.loads(out)


def triage(paths, threads=None):
    """What a hung or dead job left behind; returns the ``trainscope.triage`` document."""
    _, out = _document(["triage", *_paths(paths)] + _options(threads=threads))
    return json.loads(out)
