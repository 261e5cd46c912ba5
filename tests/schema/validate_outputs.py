#!/usr/bin/env python3
"""Validates trainscope's JSON outputs against docs/schema/*.schema.json.

    validate_outputs.py TRAINSCOPE_BINARY SOURCE_DIR

Writes a synth job and synth tensor dumps into a temporary directory and
validates, each against its schema (JSON Schema draft 2020-12):
`analyze --json` (trainscope.analysis), `compare --json` of two synth jobs
(trainscope.compare), `health --json` of the training logs in tests/data/logs
(trainscope.health), `accuracy --json` of synth dumps and `accuracy --loss
--json` (trainscope.accuracy), `triage --json` of the flight-recorder dumps
(JSON and pickled) and training logs in tests/data/logs (trainscope.triage).
Needs no corpus. Then checks that a schema
catches a renamed and a missing field.

Exit 77 (ctest: skipped) when Python's jsonschema module is missing
(Debian: python3-jsonschema, installed by scripts/install-deps.sh).
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("SKIPPED: python3-jsonschema is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)

failures = []


def fail(message):
    print("FAIL: " + message)
    failures.append(message)


def run(binary, *args):
    result = subprocess.run([binary, *args], capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        fail("trainscope %s: exit %d\n%s" % (" ".join(args), result.returncode, result.stderr))
    return result


def load_schema(source, name):
    path = os.path.join(source, "docs", "schema", "trainscope.%s.schema.json" % name)
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def errors_of(schema, document):
    validator = jsonschema.Draft202012Validator(schema)
    return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))


def validate(schema, path, what):
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    errors = errors_of(schema, document)
    for error in errors[:10]:
        fail("%s: %s at /%s" % (what, error.message[:300],
                                "/".join(str(p) for p in error.absolute_path)))
    if not errors:
        print("ok: %s" % what)
    return document


def main():
    binary, source = sys.argv[1], sys.argv[2]
    schemas = {name: load_schema(source, name)
               for name in ("analysis", "compare", "health", "accuracy", "triage")}
    logs = os.path.join(source, "tests", "data", "logs")
    with tempfile.TemporaryDirectory(prefix="trainscope-schema-") as work:
        base = os.path.join(work, "base")
        new = os.path.join(work, "new")
        run(binary, "synth", "--out", base, "--ranks", "2", "--memory", "--trace-view")
        run(binary, "synth", "--out", new, "--ranks", "2", "--fused", "all")
        out = lambda name: os.path.join(work, name)

        run(binary, "analyze", base, "--json", out("analysis.json"), "--threads", "2")
        analysis = validate(schemas["analysis"], out("analysis.json"), "analyze --json (synth)")
        run(binary, "analyze", os.path.join(source, "tests", "data", "ascend_tiny"), "--json",
            out("tiny.json"), "--threads", "2")
        validate(schemas["analysis"], out("tiny.json"), "analyze --json (tests/data/ascend_tiny)")

        run(binary, "compare", base, new, "--json", out("compare.json"))
        validate(schemas["compare"], out("compare.json"), "compare --json (synth)")

        for log in ("megatron_planted.log", "hf_trainer_planted.log", "jsonl_planted.log",
                    "torchtitan_planted.log", "xtuner_planted.log", "keyvalue_clean.log"):
            run(binary, "health", os.path.join(logs, log), "--json", out("health.json"))
            validate(schemas["health"], out("health.json"), "health --json (%s)" % log)
        run(binary, "health", os.path.join(logs, "flight"), "--json", out("flight.json"))
        validate(schemas["health"], out("flight.json"), "health --json (flight recorder)")

        for inputs in ("flight", "flight_pickle", "megatron_planted.log", "triage_steps"):
            run(binary, "triage", os.path.join(logs, inputs), "--json", out("triage.json"))
            validate(schemas["triage"], out("triage.json"), "triage --json (%s)" % inputs)

        for plant in ("bf16", "nan"):
            dumps = os.path.join(work, "dumps_" + plant)
            run(binary, "synth", "--out", dumps, "--accuracy", plant)
            run(binary, "accuracy", os.path.join(dumps, "base"), os.path.join(dumps, "new"),
                "--json", out("accuracy.json"))
            validate(schemas["accuracy"], out("accuracy.json"), "accuracy --json (%s)" % plant)
        run(binary, "accuracy", "--loss", os.path.join(logs, "megatron_clean.log"),
            os.path.join(logs, "megatron_planted.log"), "--json", out("loss.json"))
        validate(schemas["accuracy"], out("loss.json"), "accuracy --loss --json")

    # The schemas are strict: a renamed or a missing field is an error.
    renamed = copy.deepcopy(analysis)
    renamed["findings_renamed"] = renamed.pop("findings")
    if not errors_of(schemas["analysis"], renamed):
        fail("the analysis schema accepts a renamed top-level field")
    if analysis.get("ranks"):
        missing = copy.deepcopy(analysis)
        del missing["ranks"][0]["steps"][0]["kernels"]["count"]
        if not errors_of(schemas["analysis"], missing):
            fail("the analysis schema accepts a step without kernels.count")
    else:
        fail("the synth analysis has no ranks")

    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("every output matches its schema")
    return 0


if __name__ == "__main__":
    sys.exit(main())
