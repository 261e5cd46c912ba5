#!/bin/sh
# clang-tidy gate over src/ (the checks and why: .clang-tidy): bug-prone
# patterns, performance traps, cognitive complexity <= 40. Every warning
# is an error. Files: all of src/ by default, or the ones named. Reads a
# compile_commands.json with one entry per src/ file and the ci preset's
# flags, build/ci-files, configured here (seconds, nothing is built): the
# ci build itself compiles src/ in unity batches. Parsing every file on
# its own is also what proves each includes what it uses.
#   scripts/tidy.sh                      # what CI runs
#   scripts/tidy.sh src/analysis/x.cc    # one file
set -eu
cd "$(dirname "$0")/.."
cmake --preset ci -B build/ci-files -DTRAINSCOPE_UNITY=OFF -DTRAINSCOPE_UNITY_TESTS=OFF \
  -DBUILD_TESTING=OFF -DTRAINSCOPE_BENCH=OFF >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
if [ $# -eq 0 ]; then set -- $(git ls-files 'src/*.cc'); fi
log=build/ci-files/tidy.log
if run-clang-tidy -quiet -p build/ci-files -j "$jobs" "$@" >"$log" 2>&1; then
  echo "clang-tidy: $# files, no findings"
else
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "(warning|error): " | sort -u
  echo "clang-tidy: findings above (full log: $log)"
  exit 1
fi
