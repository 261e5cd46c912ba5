#!/bin/sh
# Set-up command 1: install dependencies, build (release), and run the main
# job on the built-in demo profile.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target trainscope
# The Python module (docs/python.md), where pybind11 was found: built and
# installed into the site-packages of the python3 on PATH, so that
# `python3 -c "import trainscope"` works.
if grep -q '^TRAINSCOPE_PYTHON_MODULE:INTERNAL=ON' build/release/CMakeCache.txt; then
  cmake --build --preset release --target trainscope_python
  if ! cmake --install build/release --component python >/dev/null 2>&1; then
    echo "note: the Python module is built in build/release/python but could not be installed" \
      "(site-packages not writable?): use PYTHONPATH=build/release/python, or see docs/python.md" >&2
  fi
fi
exec build/release/src/cli/trainscope demo --out build/demo-job "$@"
