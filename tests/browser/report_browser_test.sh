#!/bin/sh
# Browser test of the HTML report: Debian's chromium, headless, opens
# reports, checks that the expected sections and SVG pictures are present,
# that the page's script ran (no script error before it) and that strings
# from profiles cannot inject markup; at 1000 and 1400 px wide, that the page
# never scrolls sideways and that the per-rank bars and the first findings
# are on the first screen (900 px). Keeps screenshots as test artifacts
# (NAME.png: the whole report at 1280 px; NAME-1000.png, NAME-1400.png: the
# first screen).
#
#   report_browser_test.sh TRAINSCOPE_BINARY SOURCE_DIR ARTIFACT_DIR [CORPUS_DIR]
#
# Exit 77 (ctest: skipped) when chromium is not installed.
set -u
bin="$1"; src="$2"; artifacts="$3"; corpus="${4:-}"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIPPED: chromium not installed (scripts/install-deps.sh installs it)"
  exit 77
fi
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

chrome() {  # url, extra args...
  url="$1"; shift
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --enable-logging=stderr --v=0 "$@" "$url"
}

check_report() {  # name, html file, size limit in bytes (default 5 MB)
  name="$1"; html="$2"; limit="${3:-5000000}"
  [ -s "$html" ] || { fail "$name: no report written"; return; }
  size=$(wc -c < "$html")
  chrome "file://$html" --dump-dom > "$work/$name.dom" 2> "$work/$name.log"
  grep -q 'data-trainscope-ready="1"' "$work/$name.dom" || fail "$name: page script did not run"
  if grep -E "Uncaught|SyntaxError|ReferenceError|TypeError" "$work/$name.log" >/dev/null; then
    fail "$name: script error in the console:"; grep -E "Uncaught|Error" "$work/$name.log" | head -5
  fi
  for section in summary distribution interactive timeline ranks details; do
    grep -q "<section id=\"$section\"" "$work/$name.dom" || fail "$name: section '$section' missing"
  done
  svgs=$(grep -o "<svg" "$work/$name.dom" | wc -l)
  [ "$svgs" -ge 3 ] || fail "$name: expected at least 3 SVG pictures, found $svgs"
  grep -q "<polyline" "$work/$name.dom" || fail "$name: density curve (polyline) missing"
  grep -q "Compute</text>" "$work/$name.dom" || fail "$name: Gantt lanes missing"
  # The page's own scripts: the tables' at the end, and the timeline's right
  # after its section when the page has a timeline; any other is injected.
  scripts=$(grep -o "<script" "$work/$name.dom" | wc -l)
  expected_scripts=1
  grep -q 'id="ts-tl"' "$work/$name.dom" && expected_scripts=2
  [ "$scripts" -eq "$expected_scripts" ] ||
    fail "$name: expected $expected_scripts <script> elements, found $scripts (injection?)"
  [ "$size" -lt "$limit" ] || fail "$name: report is $size bytes (limit $limit)"
  chrome "file://$html" --hide-scrollbars --window-size=1280,2400 --screenshot="$artifacts/$name.png" \
    >/dev/null 2>&1 || fail "$name: screenshot failed"
  echo "ok: $name ($size bytes, $svgs svg)"
}

# The first screen (docs/report.md): a copy of the report that loads
# layout_probe.js first, at 1000 and 1400 px wide, 900 high. The probe
# writes data-layout (see layout_probe.js); nothing may scroll sideways, the
# per-rank bars and the first findings end within 900 px, and no script or
# console error happens.
check_layout() {  # name, html file
  name="$1"; html="$2"
  cp "$src/tests/browser/layout_probe.js" "$work/layout_probe.js"
  sed 's|<head>|<head><script src="layout_probe.js"></script>|' "$html" > "$work/$name.probe.html"
  for width in 1000 1400; do
    chrome "file://$work/$name.probe.html" --window-size=$width,900 --virtual-time-budget=3000 \
      --dump-dom > "$work/$name.$width.dom" 2> "$work/$name.$width.log"
    layout=$(grep -o 'data-layout="[^"]*"' "$work/$name.$width.dom" | sed 's/data-layout=//; s/"//g')
    if [ -z "$layout" ]; then fail "$name at $width px: the layout probe wrote nothing"; continue; fi
    value() { echo "$layout" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
    sw=$(value sw); iw=$(value iw); cw=$(value cw); bars=$(value bars); findings=$(value findings)
    [ "$sw" -le "$iw" ] && [ "$sw" -le "$cw" ] ||
      fail "$name at $width px: the page scrolls sideways (scrollWidth $sw, innerWidth $iw, clientWidth $cw)"
    { [ "$bars" -ge 0 ] && [ "$bars" -le 900 ]; } ||
      fail "$name at $width px: the per-rank bars end at $bars px, not within the first 900"
    if [ "$findings" -lt 0 ]; then
      grep -q "no finding is above the thresholds" "$work/$name.$width.dom" ||
        fail "$name at $width px: no findings list and no word of none"
    elif [ "$findings" -gt 900 ]; then
      fail "$name at $width px: the first findings end at $findings px, not within the first 900"
    fi
    [ "$(value errors)" = "0" ] || fail "$name at $width px: script or console errors:" \
      "$(grep -o 'data-layout-errors="[^"]*"' "$work/$name.$width.dom")"
    if grep -E "Uncaught|SyntaxError|ReferenceError|TypeError" "$work/$name.$width.log" >/dev/null; then
      fail "$name at $width px: error in the console:"; grep -E "Uncaught|Error" "$work/$name.$width.log" | head -5
    fi
    [ "$(value sort)" != "bad" ] || fail "$name at $width px: the ranks table did not sort by span"
    chrome "file://$html" --hide-scrollbars --window-size=$width,900 \
      --screenshot="$artifacts/$name-$width.png" >/dev/null 2>&1 || fail "$name: screenshot at $width px failed"
    echo "ok: $name first screen at $width px ($layout)"
  done
}

# The interactive timeline (src/report/timeline.js): with the URL
# fragment #selftest the page zooms to one kernel, clicks its middle and
# writes the outcome to data-timeline-selftest ("ok [launch=ok] zoom=A..B->C..D
# drawn=N->M selected=NAME"); data-timeline-first-paint-ms is
# performance.now() at the end of the first draw.
check_timeline() {  # name, html file, expected kernel count ("" = any), "path" (a critical path drawn)
  name="$1"; html="$2"; kernels="$3"; want_path="${4:-}"
  chrome "file://$html#selftest" --dump-dom > "$work/$name.tl.dom" 2> "$work/$name.tl.log"
  if grep -E "Uncaught|SyntaxError|ReferenceError|TypeError" "$work/$name.tl.log" >/dev/null; then
    fail "$name: script error in the timeline self-test:"; grep -E "Uncaught|Error" "$work/$name.tl.log" | head -5
  fi
  result=$(grep -o 'data-timeline-selftest="[^"]*"' "$work/$name.tl.dom" | sed 's/&gt;/>/g')
  paint=$(grep -o 'data-timeline-first-paint-ms="[0-9.]*"' "$work/$name.tl.dom" | grep -o '[0-9.]*')
  drawn=$(grep -o 'data-timeline-kernels="[0-9]*"' "$work/$name.tl.dom" | grep -o '[0-9]*')
  echo "$result" | grep -q '"ok ' || fail "$name: timeline self-test did not pass: '$result'"
  # Zooming changed the range and what was drawn; the click selected a kernel.
  echo "$result" | grep -Eq 'zoom=0\.\.[0-9]+->[0-9]+\.\.[0-9]+ ' || fail "$name: no zoom range in '$result'"
  echo "$result" | grep -q 'selected=none' && fail "$name: the click selected nothing"
  [ -n "$kernels" ] && [ "$drawn" != "$kernels" ] && fail "$name: the timeline holds $drawn kernels, expected $kernels"
  [ -n "$paint" ] || fail "$name: no first-paint time"
  # The cross-rank critical path over the rows (docs/clusters.md §3c), on multi-rank jobs.
  segments=$(grep -o 'data-timeline-path-segments="[0-9]*"' "$work/$name.tl.dom" | grep -o '[0-9]*')
  if [ "$want_path" = path ]; then
    [ "${segments:-0}" -gt 0 ] || fail "$name: no critical path segment drawn on the timeline"
  fi
  # Generous: the target is < 1 s (docs/benchmarks.md); CI machines are shared.
  awk -v p="${paint:-99999}" 'BEGIN { exit !(p < 5000) }' || fail "$name: first paint took $paint ms"
  echo "ok: $name timeline ($drawn kernels, ${segments:-0} critical-path segments, first paint $paint ms, $result)"
}

# 1. The demo job (the README's main command writes the same report).
"$bin" demo --out "$work/demo" --ranks 4 >/dev/null || fail "demo failed"
check_report demo "$work/demo/report.html"
check_layout demo "$work/demo/report.html"
# The demo plants a step-start barrier and hairline compute: the report must say so.
grep -q "Step start:" "$work/demo.dom" || fail "demo: step-start idle not reported"
# The demo's step 6 has 2,511 kernels on each of its 4 ranks (the summary's
# "kernels in the step" x 4 ranks, all in the page).
check_timeline demo "$work/demo/report.html" 10044 path
# The demo's trace_view.json links kernels to their host launches: the
# self-test also hovered the host-launch lane.
grep -q 'launch=ok' "$work/demo.tl.dom" || fail "demo: the host-launch lane was not checked"
# The demo's host trace has nn.Module frames: the module tree is a <details> tree.
grep -q '<section id="modules"' "$work/demo.dom" || fail "demo: module tree missing"
grep -Eq '<details open[^>]*><summary><code>Qwen3NextForCausalLM_0</code>' "$work/demo.dom" || fail "demo: module tree root missing"

# 1b. A 64-rank synthetic job: every rank's step on one canvas, < 10 MB.
"$bin" synth --out "$work/synth64" --ranks 64 >/dev/null || fail "synth --ranks 64 failed"
"$bin" analyze "$work/synth64" --html "$work/synth64.html" >/dev/null || fail "synth64: analyze failed"
check_report synth64 "$work/synth64.html" 10000000
check_layout synth64 "$work/synth64.html"
check_timeline synth64 "$work/synth64.html" "" path

# 2. Untrusted strings: markup in kernel names must be shown as text.
"$bin" analyze "$src/tests/data/ascend_evil" --html "$work/evil.html" >/dev/null || fail "evil: analyze failed"
check_report evil "$work/evil.html"
check_layout evil "$work/evil.html"
grep -q "<script>alert" "$work/evil.dom" && fail "evil: <script> from a kernel name injected"
grep -q "&lt;script&gt;alert(" "$work/evil.dom" || fail "evil: the kernel name with markup is not shown as text"
grep -q "<img" "$work/evil.dom" && fail "evil: <img> injected"
grep -q "<b>bold</b>" "$work/evil.dom" && fail "evil: <b> injected"
grep -q "归一化_RmsNorm_中文" "$work/evil.dom" || fail "evil: non-ASCII name lost"
check_timeline evil "$work/evil.html" ""

# 3. Real profiles from the shared corpus, when present.
if [ -n "$corpus" ] && [ -d "$corpus" ]; then
  i=0
  for input in \
      "ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1" \
      "ascend/msinsight-pytorch-2rank-text-level1" \
      "kineto/dlrm_ddp_8rank_v100_param" \
      "kineto/tracelens_qwen1.5_0.5b_h100_vs_mi300x/h100" \
      "kineto/hta_ddp_2rank_a100_rank0_nccl_metadata"; do
    i=$((i + 1))
    if [ ! -e "$corpus/$input" ]; then echo "SKIPPED: $corpus/$input absent"; continue; fi
    name="corpus$i"
    "$bin" analyze "$corpus/$input" --html "$work/$name.html" >/dev/null || fail "$input: analyze failed"
    check_report "$name" "$work/$name.html"
    check_layout "$name" "$work/$name.html"
    check_timeline "$name" "$work/$name.html" ""
  done
else
  echo "SKIPPED: corpus reports, the Ascend job's and the Kineto traces' first screens (no corpus at '${corpus}')"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "browser test passed; screenshots in $artifacts"
