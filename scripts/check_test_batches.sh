#!/bin/sh
# Every source file of the test binary as one translation unit, syntax only.
# Unity builds (HACKING.md, "Sanitizer and fuzz builds") put eight test
# files in one translation unit, in file order, so two files that define a
# helper with the same name and parameters compile alone and clash once a
# new file moves them into one batch. Compiling all of them together
# catches every such clash whatever the batches are. Reads the build's
# compile_commands.json (the ci build's by default); ~20 s.
#   scripts/check_test_batches.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."
build="${1:-build/ci}"
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: configure first"; exit 2; }
python3 - "$build" <<'PY'
import json, os, re, shlex, subprocess, sys, tempfile

build = sys.argv[1]
entries = [e for e in json.load(open(os.path.join(build, "compile_commands.json")))
           if "trainscope_tests.dir" in e["command"] and not e["file"].endswith(".hxx.cxx")]
sources = []
for entry in entries:
    if "/Unity/" in entry["file"]:  # a batch: the files it includes
        sources += re.findall(r'^#include "(.*)"$', open(entry["file"]).read(), re.M)
    else:
        sources.append(entry["file"])
if not entries or not sources:
    sys.exit("no sources of trainscope_tests in " + build)
# test_paths.cc's flags: every test file's, and the checkout's paths that
# only it is given (tests/CMakeLists.txt).
base = next((e for e in entries if e["file"].endswith("/test_paths.cc")), entries[0])
args = shlex.split(base["command"])
kept, skip = [], False
for i, arg in enumerate(args):
    if skip:
        skip = False
    elif arg in ("-o", "-c", "-include"):
        skip = True  # the object, the source, the precompiled header
    elif arg != base["file"] and arg != "-Winvalid-pch":
        kept.append(arg)
with tempfile.NamedTemporaryFile("w", suffix=".cc", delete=False) as out:
    out.write("".join(f'#include "{s}"\n' for s in sorted(set(sources))))
try:
    result = subprocess.run(kept + ["-fsyntax-only", out.name], cwd=base["directory"])
finally:
    os.unlink(out.name)
print(f"{len(set(sources))} test sources as one translation unit: "
      + ("no clash" if result.returncode == 0 else "clashes above"))
sys.exit(result.returncode)
PY
