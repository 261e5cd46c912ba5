#!/bin/sh
# Builds every libFuzzer target (clang) and runs each for $1 seconds
# (default 30) on its seed corpus. Crashes fail the script.
set -eu
cd "$(dirname "$0")/.."
seconds="${1:-30}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc 2>/dev/null || echo 2)"
for fuzzer in build/fuzz/fuzz/*_fuzzer; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer" _fuzzer)
  work="build/fuzz/corpus-$name"
  mkdir -p "$work"
  seeds="fuzz/corpus/$name"
  echo "fuzzing $name for ${seconds}s"
  "$fuzzer" -max_total_time="$seconds" -print_final_stats=0 "$work" ${seeds:+$( [ -d "$seeds" ] && echo "$seeds")} \
    >"build/fuzz/$name.log" 2>&1 || { tail -40 "build/fuzz/$name.log"; exit 1; }
  grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "build/fuzz/$name.log" | tail -1 || true
done
