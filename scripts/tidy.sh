#!/bin/sh
# clang-tidy gate over src/ (the checks and why: .clang-tidy): bug-prone
# patterns, performance traps, cognitive complexity <= 40. Uses the ci
# build's compile_commands.json (configures it when missing); every
# warning is an error. Files: all of src/ by default, or the ones named.
#   scripts/tidy.sh                      # what CI runs
#   scripts/tidy.sh src/analysis/x.cc    # one file
set -eu
cd "$(dirname "$0")/.."
[ -f build/ci/compile_commands.json ] || cmake --preset ci >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
if [ $# -eq 0 ]; then set -- $(git ls-files 'src/*.cc'); fi
log=build/ci/tidy.log
if run-clang-tidy -quiet -p build/ci -j "$jobs" "$@" >"$log" 2>&1; then
  echo "clang-tidy: $# files, no findings"
else
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "(warning|error): " | sort -u
  echo "clang-tidy: findings above (full log: $log)"
  exit 1
fi
