#!/bin/sh
# Set-up command 2: install dependencies, build, and pass every test:
#   1. release build (warnings are errors) + all tests: unit, golden, corpus
#      cross-checks, CLI end-to-end, layer edges, the headless-browser test;
#   2. debug build with AddressSanitizer + UndefinedBehaviorSanitizer + all
#      tests except the browser one;
#   3. ThreadSanitizer build + all tests except the browser one (the chunked
#      trace scan and the per-rank/per-step analyses run on several threads);
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
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_ctest debug build/debug-ctest.log -LE "browser|mpi"
  set -- $(count build/debug-ctest.log)
  passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))

  stage "3/5 ThreadSanitizer build and tests"
  cmake --preset tsan >/dev/null
  cmake --build --preset tsan -j"$jobs"
  TSAN_OPTIONS=halt_on_error=1 run_ctest tsan build/tsan-ctest.log -LE "browser|mpi"
  set -- $(count build/tsan-ctest.log)
  passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))

  stage "4/5 clang-tidy"
  scripts/tidy.sh

  stage "5/5 fuzzing (bounded)"
  scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
fi

stage "done in $(( ($(date +%s) - started) / 60 )) min"
echo "tests: $passed passed, $failed failed, $skipped skipped"
