#!/bin/sh
# Browser test of the interactive timeline's controls (src/report/timeline.js):
# on the demo job, the page's #selftest also searches a kernel name (it must
# match on a rank, a name no kernel has must match nothing), presses the
# zoom, pan and reset keys, and shows every other step of the selector. The
# demo keeps the kernels of steps 6 and 7 (step 5, its first, is a warm-up):
# the page carries both, 2,511 kernels a rank on 4 ranks each.
#
#   timeline_controls_test.sh TRAINSCOPE_BINARY
#
# Exit 77 (ctest: skipped) when chromium is not installed.
set -u
bin="$1"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIPPED: chromium not installed (scripts/install-deps.sh installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$bin" demo --out "$work/demo" --ranks 4 >/dev/null || { echo "FAIL: demo failed"; exit 1; }
html="$work/demo/report.html"
grep -q 'id="tl-step"' "$html" || fail "no step selector"
grep -q 'id="tl-search"' "$html" || fail "no search box"
grep -q 'Steps in the selector: 6, 7; without kept kernels: step 5' "$html" ||
  fail "the section does not name the steps carried and the warm-up left out"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
  --dump-dom "file://$html#selftest" > "$work/dom" 2> "$work/log"
if grep -E "Uncaught|SyntaxError|ReferenceError|TypeError" "$work/log" >/dev/null; then
  fail "script error:"; grep -E "Uncaught|Error" "$work/log" | head -5
fi
result=$(grep -o 'data-timeline-selftest="[^"]*"' "$work/dom" | sed 's/&gt;/>/g')
steps=$(grep -o 'data-timeline-steps="[0-9]*"' "$work/dom" | grep -o '[0-9]*')
echo "$result" | grep -q '"ok ' || fail "self-test did not pass: '$result'"
# The search found the clicked kernel's name on at least one rank.
echo "$result" | grep -Eq ' search=[1-9][0-9]*/[1-9][0-9]* ' || fail "search found nothing: '$result'"
echo "$result" | grep -q ' keys=ok ' || fail "keys: '$result'"
[ "$steps" = "2" ] || fail "the page carries $steps steps, expected 2 (6 and 7)"
# The other step (7) decoded with all its kernels: 4 ranks x 2,511.
echo "$result" | grep -q 'steps=2(7:10044)' || fail "step 7 not shown whole: '$result'"
[ "$failures" -eq 0 ] || exit 1
echo "ok: timeline controls ($result)"
