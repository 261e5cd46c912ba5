#!/bin/sh
# Set-up command 2: install dependencies, build, and pass every test:
#   1. release build with warnings as errors + all tests (unit, golden,
#      corpus cross-checks, CLI end-to-end, layer edges);
#   2. debug build with AddressSanitizer + UndefinedBehaviorSanitizer + all tests;
#   3. every libFuzzer target for a bounded time (FUZZ_SECONDS, default 30).
# Set TRAINSCOPE_QUICK=1 to run only step 1.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

echo "== release build (warnings are errors) and tests"
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$jobs"
ctest --preset ci -j"$jobs"

if [ "${TRAINSCOPE_QUICK:-0}" = "1" ]; then exit 0; fi

echo "== debug build with ASan+UBSan and tests"
cmake --preset debug >/dev/null
cmake --build --preset debug -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --preset debug -j"$jobs"

echo "== fuzzing (bounded)"
scripts/fuzz.sh "${FUZZ_SECONDS:-30}"

echo "== summary"
ctest --preset ci -j"$jobs" 2>&1 | tail -3
