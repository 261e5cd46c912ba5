#!/bin/sh
# clang-tidy gate over src/ (the checks and why: .clang-tidy): bug-prone
# patterns, performance traps, cognitive complexity <= 40. Every warning
# is an error.
#   scripts/tidy.sh                      # what CI runs: all of src/
#   scripts/tidy.sh src/analysis/x.cc    # the files named, one by one
# All of src/ is checked in the unity batches of the ci build (build/ci,
# configured here when absent; nothing is built): a batch of eight files
# parses its headers once, 3.7x faster than eight files alone
# (2026-12-03). .clang-tidy's HeaderFilterRegex (src/) reports what is in
# the batched files; the one check a batch trips by construction
# (bugprone-suspicious-include: the batch includes .cc files) is off there.
# What a batch cannot prove, that each file includes what it uses, is
# scripts/check_includes.sh's job. Files named are checked alone, with the
# per-file compile DB of build/ci-files.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [ $# -eq 0 ]; then
  [ -f build/ci/compile_commands.json ] || cmake --preset ci >/dev/null
  db=build/ci
  set -- $(sed -n 's|^ *"file": "\(.*/src/.*/Unity/unity_[0-9]*_cxx\.cxx\)",\{0,1\}$|\1|p' \
    build/ci/compile_commands.json)
  [ $# -gt 0 ] || { echo "tidy: no unity batches in build/ci (the ci preset sets TRAINSCOPE_UNITY)"; exit 1; }
  what="$(git ls-files 'src/*.cc' | wc -l) files in $# batches"
  extra="-checks=-bugprone-suspicious-include"
else
  db=$(scripts/per_file_db.sh)
  what="$# files"
  extra=""
fi
log=$db/tidy.log
if run-clang-tidy -quiet -p "$db" -j "$jobs" $extra "$@" >"$log" 2>&1; then
  echo "clang-tidy: $what, no findings"
else
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "(warning|error): " | sort -u
  echo "clang-tidy: findings above (full log: $log)"
  exit 1
fi
