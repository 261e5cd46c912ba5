#!/bin/sh
# Set-up command 2: install dependencies, build, and pass every test:
#   1. release build (warnings are errors) + all tests: unit, golden, corpus
#      cross-checks, CLI end-to-end, layer edges, the headless-browser test;
#   2. debug build with AddressSanitizer + UndefinedBehaviorSanitizer + all
#      tests except the browser and MPI ones;
#   3. ThreadSanitizer build + the same tests (the chunked trace scan and the
#      per-rank/per-step analyses run on several threads);
#   The sanitizer stages run the gtest binary as one process per core
#   (gtest's sharding) instead of one process per test: a sanitized process
#   costs ~0.4 s to start, ~700 times (HACKING.md, "How CI spends its time").
#   4. clang-tidy over src/ (.clang-tidy: bugprone-*, performance-*,
#      cognitive complexity <= 40; scripts/tidy.sh);
#   5. every libFuzzer target for a bounded time (FUZZ_SECONDS, default 30).
# TRAINSCOPE_QUICK=1 runs only step 1. Ends with one summary line.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# ccache (when installed) shares objects between checkouts in any folder:
# paths are hashed relative to the checkout's parent, not absolute.
CCACHE_BASEDIR="$(cd .. && pwd)"; CCACHE_NOHASHDIR=true
export CCACHE_BASEDIR CCACHE_NOHASHDIR
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build
started=$(date +%s)
stage_started=""

stage() {  # title: closes the previous stage with its minutes, opens the next
  now=$(date +%s)
  if [ -n "$stage_started" ]; then
    echo "   ($(( (now - stage_started) / 60 )) min $(( (now - stage_started) % 60 )) s)"
  fi
  stage_started=$now
  echo "== $1"
}

run_ctest() {  # preset, log, extra args...
  preset="$1"; log="$2"; shift 2
  if ctest --preset "$preset" -j"$jobs" "$@" >"$log" 2>&1; then status=0; else status=$?; fi
  grep -vE "^ +Start |Test +#[0-9]+: .* Passed" "$log" | tail -40
  return $status
}

count() {  # log -> "passed failed skipped"
  total=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\1 \2/p' "$1" | tail -1)
  failed=${total% *}; all=${total#* }
  skipped=$(grep -c "(Skipped)" "$1" || true)
  echo "$((all - failed - skipped)) $failed $skipped"
}

gtest_count() {  # log of a gtest run -> "passed failed skipped" (a run cut short: 1 failed)
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\.$/\1/p' "$1" | tail -1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below:$/\1/p' "$1" | tail -1)
  k=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}, listed below:$/\1/p' "$1" | tail -1)
  if ! grep -q "^\[==========\] .* ran\." "$1"; then f=$(( ${f:-0} + 1 )); fi
  echo "${p:-0} ${f:-0} ${k:-0}"
}

# A sanitizer stage's tests: the gtest binary split over the cores, each
# shard one process (gtest's GTEST_TOTAL_SHARDS), then ctest for the tests
# that are not in it (the allocation binary; the checks of the sources ran
# in stage 1). Adds to the totals.
run_sanitized() {  # preset, the sanitizer's environment (NAME=value ...)
  preset="$1"; shift
  sanitizer_env="$*"
  dir="build/$preset"
  pids=""; shard=0
  while [ "$shard" -lt "$jobs" ]; do
    (cd "$dir/tests" && env $sanitizer_env TRAINSCOPE_THREADS=2 GTEST_TOTAL_SHARDS="$jobs" \
       GTEST_SHARD_INDEX="$shard" timeout 2400 ./trainscope_tests) >"$dir/shard-$shard.log" 2>&1 &
    pids="$pids $!"; shard=$((shard + 1))
  done
  shard=0; status=0
  for pid in $pids; do
    log="$dir/shard-$shard.log"
    if ! wait "$pid"; then
      status=1
      echo "shard $shard of $jobs failed ($log):"
      if grep -q "^\[  FAILED  \]" "$log"; then grep "^\[  FAILED  \]" "$log" | sort -u; else tail -40 "$log"; fi
    fi
    set -- $(gtest_count "$log")
    passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
    shard=$((shard + 1))
  done
  echo "$preset: trainscope_tests in $jobs shards: $(cat "$dir"/shard-*.log | grep -c '^\[       OK \]') passed"
  if ! env $sanitizer_env ctest --preset "$preset" -j"$jobs" -LE "browser|mpi|trainscope_tests|source_check" \
      >"$dir/ctest.log" 2>&1; then
    status=1
  fi
  grep -vE "^ +Start |Test +#[0-9]+: .* Passed" "$dir/ctest.log" | tail -20
  set -- $(count "$dir/ctest.log")
  passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
  return $status
}

stage "1/5 release build (warnings are errors) and tests"
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$jobs"
run_ctest ci build/ci-ctest.log
set -- $(count build/ci-ctest.log)
passed=$1 failed=$2 skipped=$3

if [ "${TRAINSCOPE_QUICK:-0}" != "1" ]; then
  stage "2/5 debug build with ASan+UBSan and tests"
  cmake --preset debug >/dev/null
  cmake --build --preset debug -j"$jobs"
  run_sanitized debug ASAN_OPTIONS=detect_leaks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

  stage "3/5 ThreadSanitizer build and tests"
  cmake --preset tsan >/dev/null
  cmake --build --preset tsan -j"$jobs"
  run_sanitized tsan TSAN_OPTIONS=halt_on_error=1

  stage "4/5 clang-tidy"
  scripts/tidy.sh

  stage "5/5 fuzzing (bounded)"
  scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
fi

stage "done in $(( ($(date +%s) - started) / 60 )) min"
echo "tests: $passed passed, $failed failed, $skipped skipped"
