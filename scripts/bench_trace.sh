#!/usr/bin/env bash
# Speed and memory of the Chrome-trace reader, end to end (`trainscope analyze`).
#
# Builds a large trace from the 216k-event corpus file: COPIES (28) copies of
# its events, copy k keeping the original's text layout, with ts shifted by k * (trace span + 1 s) and External id /
# correlation / flow ids shifted by k * 10^8 (so launches still link within a
# copy only), plus a gzip variant; then times analyze on the original, the
# replicated plain file with 1 and 2 threads, and the gzip file.
#
#   scripts/bench_trace.sh               # uses build/release/src/cli/trainscope
#   BUILD=build/rel OUT=/data/bench COPIES=4 scripts/bench_trace.sh
#   PAUSE=5 scripts/bench_trace.sh       # 5 s before each timed run
#   OUT=DIR WRITE_ONLY=1 scripts/bench_trace.sh   # only the x$COPIES trace
#                                        # (scripts/bench_goals.sh)
#
# PAUSE (default 0): runs a few seconds apart are what a user sees; on a VM
# that gives freed memory back to its host (this project's machines),
# back-to-back runs reuse the previous run's pages and look faster.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build/release}
OUT=${OUT:-/tmp/trainscope_bench}
COPIES=${COPIES:-28}
PAUSE=${PAUSE:-0}
CORPUS=${CORPUS:-$ROOT/../shared/corpus/kineto/hta_v100_2rank_job_rank1_memory/df_index_resolver.json.gz}
BIN=$BUILD/src/cli/trainscope
mkdir -p "$OUT"
ORIG=$OUT/hta216k.json
BIG=$OUT/hta216k_x$COPIES.json

WRITE_ONLY=${WRITE_ONLY:-0}
[[ $WRITE_ONLY == 1 || -x $BIN ]] || { echo "build trainscope first ($BIN)"; exit 1; }
# 77: ctest's "skipped" (bench_trace_functional) when the corpus is absent.
[[ -f $CORPUS ]] || { echo "corpus file absent ($CORPUS): skipped"; exit 77; }
[[ -s $ORIG ]] || zcat "$CORPUS" > "$ORIG"

if [[ ! -s $BIG || $BIG -ot $ORIG ]]; then
  echo "writing $BIG ($COPIES copies)..."
  python3 - "$ORIG" "$BIG" "$COPIES" <<'PY'
# Text-level copy: the events keep Kineto's own layout (indentation, ", "
# separators), so the copy has the original's bytes per event (1.5 GB at 28).
import re, sys
src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(src).read()
open_at = text.index('"traceEvents": [') + len('"traceEvents": [')
close_at = text.rindex(']')
head, body, tail = text[:open_at], text[open_at:close_at].rstrip(), text[close_at:]
body = body.lstrip('\n')
# parts = [text, key, number, text, key, number, ..., text]
parts = re.split(r'("(?:ts|External id|correlation|id)": |ProfilerStep#)(\d+)', body)
ts = [int(parts[i + 1]) for i in range(1, len(parts), 3) if parts[i] == '"ts": ']
max_dur = max(int(d) for d in re.findall(r'"dur": (\d+)', body))
shift_us = max(ts) - min(ts) + max_dur + 1_000_000  # no event of copy k reaches copy k+1
ID_SHIFT = 10**8
steps = [int(parts[i + 1]) for i in range(1, len(parts), 3) if parts[i] == 'ProfilerStep#']
STEP_SHIFT = max(steps, default=0) + 1  # copy k's steps follow copy k-1's
with open(dst, "w") as out:
    out.write(head + "\n")
    for k in range(copies):
        shift = {'"ts": ': k * shift_us, 'ProfilerStep#': k * STEP_SHIFT}
        piece = parts[:]
        for i in range(1, len(piece), 3):
            piece[i + 1] = str(int(piece[i + 1]) + shift.get(piece[i], k * ID_SHIFT))
        out.write((",\n" if k else "") + "".join(piece))
    out.write("\n  " + tail)
print(len(ts) * copies, "timestamps")
PY
fi
[[ $WRITE_ONLY == 1 ]] && exit 0
[[ -s $BIG.gz && ! $BIG.gz -ot $BIG ]] || { echo "writing $BIG.gz..."; gzip -1 -c "$BIG" > "$BIG.gz"; }

events_of() { grep -c '"ph"' "$1"; }
ORIG_EVENTS=$(events_of "$ORIG")
BIG_EVENTS=$(( ORIG_EVENTS * COPIES ))

run() {  # label threads file plain_bytes events
  local label=$1 threads=$2 file=$3 bytes=$4 events=$5 t
  local args=(analyze "$file" --json /dev/null)
  [[ $threads != 0 ]] && args+=(--threads "$threads")
  local env=()
  [[ $threads != 0 ]] && env=(TRAINSCOPE_THREADS="$threads")
  sleep "$PAUSE"
  env "${env[@]}" /usr/bin/time -o "$OUT/time.txt" -f "%e %M %U %S" "$BIN" "${args[@]}" >/dev/null 2>&1
  t=$(tail -1 "$OUT/time.txt")
  read -r secs rss user sys <<<"$t"
  # CPU seconds are printed too: on a shared machine wall time includes waiting.
  awk -v l="$label" -v s="$secs" -v r="$rss" -v b="$bytes" -v e="$events" -v u="$user" -v y="$sys" 'BEGIN {
    if (s <= 0) s = 0.01
    printf "%-34s %6.2f s (cpu %5.2f s)  %7.0f MB/s  %5.2f M events/s  peak RSS %5.0f MB (%.2fx the file)\n",
      l, s, u + y, b / 1e6 / s, e / 1e6 / s, r / 1024, r * 1024 / b }'
}

ORIG_BYTES=$(stat -c %s "$ORIG")
BIG_BYTES=$(stat -c %s "$BIG")
echo "original: $ORIG_EVENTS events, $ORIG_BYTES bytes; x$COPIES: $BIG_EVENTS events, $BIG_BYTES bytes"
# The yardstick, in the same minute: cat of the same bytes (page cache warm).
for f in "$ORIG" "$BIG"; do
  /usr/bin/time -o "$OUT/time.txt" -f "%e %U %S" sh -c "cat \"$f\" | wc -c >/dev/null"
  read -r secs user sys <<<"$(tail -1 "$OUT/time.txt")"
  awk -v f="$(basename "$f")" -v s="$secs" -v c="$(echo "$user + $sys" | bc)" -v b="$(stat -c %s "$f")" \
    'BEGIN { printf "%-34s %6.2f s (cpu %5.2f s)  %7.0f MB/s\n", "cat " f " (reference)", s, c, b / 1e6 / (s > 0 ? s : 0.01) }'
done
run "216k original (default threads)" 0 "$ORIG" "$ORIG_BYTES" "$ORIG_EVENTS"
run "216k original, 1 thread" 1 "$ORIG" "$ORIG_BYTES" "$ORIG_EVENTS"
run "x$COPIES plain, 1 thread" 1 "$BIG" "$BIG_BYTES" "$BIG_EVENTS"
run "x$COPIES plain, 2 threads" 2 "$BIG" "$BIG_BYTES" "$BIG_EVENTS"
run "x$COPIES gzip, 2 threads (MB inflated)" 2 "$BIG.gz" "$BIG_BYTES" "$BIG_EVENTS"
