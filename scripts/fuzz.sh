#!/bin/sh
# Builds every libFuzzer target (clang) and runs each for $1 seconds
# (default 30) on its seed corpus (fuzz/corpus/<name>/). A crash, leak or
# failed invariant fails the script and prints the reproducer's log.
set -eu
cd "$(dirname "$0")/.."
seconds="${1:-30}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzzers -j"$(nproc 2>/dev/null || echo 2)"
for fuzzer in build/fuzz/fuzz/*_fuzzer; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer" _fuzzer)
  work="build/fuzz/corpus-$name"
  mkdir -p "$work"
  set -- "$work"
  [ -d "fuzz/corpus/$name" ] && set -- "$work" "fuzz/corpus/$name"
  echo "fuzzing $name for ${seconds}s"
  if ! "$fuzzer" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="build/fuzz/$name-" "$@" \
      >"build/fuzz/$name.log" 2>&1; then
    tail -40 "build/fuzz/$name.log"
    exit 1
  fi
  # One line per fuzzer: executions, executions per second and coverage
  # (libFuzzer's last "cov:" = covered edges, "ft:" = features), for
  # docs/hostile-input.md's soak table.
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/$name.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "build/fuzz/$name.log" | tail -1)
  cov=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "build/fuzz/$name.log" | tail -1)
  echo "fuzz $name: ${seconds}s, ${execs:-?} executions, ${rate:-?}/s, ${cov:-cov: ?}"
done
