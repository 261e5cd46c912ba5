#!/bin/sh
# Builds every libFuzzer target (clang) and runs each for $1 seconds
# (default 30) on its seed corpus (fuzz/corpus/<name>/). A crash, leak or
# failed invariant fails the script and prints the reproducer's log.
set -eu
cd "$(dirname "$0")/.."
seconds="${1:-30}"
# Undefined behaviour is a finding like a crash: UBSan otherwise prints its
# report and goes on, and the stage passed over an int64 overflow on a
# hostile timestamp (the log fuzzer, 2026-12-06).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzzers -j"$(nproc 2>/dev/null || echo 2)"
jobs=$(nproc 2>/dev/null || echo 2)

fuzz_one() {  # fuzzer binary: runs it, then prints its one-line summary (or its log's tail)
  name=$(basename "$1" _fuzzer)
  work="build/fuzz/corpus-$name"
  mkdir -p "$work"
  seeds=""
  [ -d "fuzz/corpus/$name" ] && seeds="fuzz/corpus/$name"
  if ! "$1" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="build/fuzz/$name-" \
      "$work" $seeds >"build/fuzz/$name.log" 2>&1; then
    echo "fuzz $name: FAILED (build/fuzz/$name.log)"
    tail -40 "build/fuzz/$name.log"
    return 1
  fi
  # One line per fuzzer: executions, executions per second and coverage
  # (libFuzzer's last "cov:" = covered edges, "ft:" = features), for
  # docs/hostile-input.md's soak table.
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "build/fuzz/$name.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "build/fuzz/$name.log" | tail -1)
  cov=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "build/fuzz/$name.log" | tail -1)
  echo "fuzz $name: ${seconds}s, ${execs:-?} executions, ${rate:-?}/s, ${cov:-cov: ?}"
}

# One fuzzer per core at a time (each is single-threaded and runs for the
# same time): the stage takes seconds x fuzzers / cores instead of
# seconds x fuzzers. Every fuzzer of a batch finishes before the verdict.
failed=0
set --
for fuzzer in build/fuzz/fuzz/*_fuzzer; do
  [ -x "$fuzzer" ] || continue
  set -- "$@" "$fuzzer"
done
echo "fuzzing $# targets for ${seconds}s each, $jobs at a time"
while [ $# -gt 0 ]; do
  pids=""
  batch=0
  while [ $# -gt 0 ] && [ $batch -lt "$jobs" ]; do
    fuzz_one "$1" &
    pids="$pids $!"
    batch=$((batch + 1))
    shift
  done
  for pid in $pids; do
    wait "$pid" || failed=1
  done
done
exit $failed
