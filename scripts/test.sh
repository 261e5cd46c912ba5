#!/bin/sh
# Set-up command 2: install dependencies, build, and pass every test:
#   1. release build (warnings are errors) + all tests: unit, golden, corpus
#      cross-checks, CLI end-to-end, layer edges, the headless-browser test;
#   2. debug build with AddressSanitizer + UndefinedBehaviorSanitizer + all
#      tests except the browser and MPI ones;
#   3. ThreadSanitizer build + the same tests (the chunked trace scan and the
#      per-rank/per-step analyses run on several threads);
#   The sanitizer presets give ctest the gtest binary as eight shard tests a
#   core (gtest's sharding) instead of one test per case: a sanitized process
#   costs ~0.4 s to start, ~740 times (HACKING.md, "How CI spends its time").
#   4. clang-tidy over src/ (.clang-tidy: bugprone-*, performance-*,
#      cognitive complexity <= 40; scripts/tidy.sh), and every src/ file
#      compiling on its own (scripts/check_includes.sh);
#   5. every libFuzzer target for a bounded time (FUZZ_SECONDS, default 20).
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

# The gtest cases the shard tests of a sanitizer preset ran, summed over
# the shards (ctest's LastTest.log holds each test's output).
shard_cases() {  # LastTest.log -> "passed failed skipped"
  awk '/^\[  PASSED  \] [0-9]+ tests?\.$/ { p += $4 }
       /^\[  FAILED  \] [0-9]+ tests?, listed below:$/ { f += $4 }
       /^\[  SKIPPED \] [0-9]+ tests?, listed below:$/ { k += $4 }
       END { print p + 0, f + 0, k + 0 }' "$1"
}

# A sanitizer stage's tests: ctest with the preset's shard tests (the gtest
# binary as shards, eight a core: CMakeLists.txt) and the tests that
# are not in it (the allocation binary); the checks of the sources ran in
# stage 1. Adds to the totals, counting the shards' gtest cases.
run_sanitized() {  # preset, the sanitizer's environment (NAME=value ...)
  preset="$1"; shift
  dir="build/$preset"
  if env "$@" ctest --preset "$preset" -j"$jobs" -LE "browser|mpi|source_check" \
      >"$dir/ctest.log" 2>&1; then status=0; else status=$?; fi
  grep -vE "^ +Start |Test +#[0-9]+: .* Passed" "$dir/ctest.log" | tail -20
  grep -h "^\[  FAILED  \] [A-Za-z_]" "$dir/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u || true
  shard_results=$(grep -E "Test +#[0-9]+: trainscope_tests_shard_[0-9]+ " "$dir/ctest.log" || true)
  shards=$(printf '%s\n' "$shard_results" | grep -c "shard" || true)
  shards_failed=$(printf '%s\n' "$shard_results" | grep "shard" | grep -vc " Passed" || true)
  set -- $(count "$dir/ctest.log") $(shard_cases "$dir/Testing/Temporary/LastTest.log")
  crashed=0  # a shard that failed without a failed case: a crash or a timeout
  if [ "$shards_failed" -gt 0 ] && [ "$5" -eq 0 ]; then crashed=1; fi
  echo "$preset: the $shards gtest shards ran $4 cases passed, $5 failed, $6 skipped"
  passed=$((passed + $1 - (shards - shards_failed) + $4))
  failed=$((failed + $2 - shards_failed + $5 + crashed))
  skipped=$((skipped + $3 + $6))
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

  stage "4/5 clang-tidy and includes"
  scripts/tidy.sh
  scripts/check_includes.sh

  stage "5/5 fuzzing (bounded)"
  scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
fi

stage "done in $(( ($(date +%s) - started) / 60 )) min"
echo "tests: $passed passed, $failed failed, $skipped skipped"
