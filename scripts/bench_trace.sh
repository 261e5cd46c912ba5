#!/usr/bin/env bash
# Speed and memory of the Chrome-trace reader, end to end (`trainscope analyze`).
#
# Builds a large trace from the 216k-event corpus file: COPIES (28) copies of
# its events, copy k with ts shifted by k * (trace span + 1 s) and External id /
# correlation / flow ids shifted by k * 10^8 (so launches still link within a
# copy only), plus a gzip variant; then times analyze on the original, the
# replicated plain file with 1 and 2 threads, and the gzip file.
#
#   scripts/bench_trace.sh               # uses build/json/src/cli/trainscope
#   BUILD=build/rel OUT=/data/bench COPIES=4 scripts/bench_trace.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build/json}
OUT=${OUT:-/tmp/trainscope_bench}
COPIES=${COPIES:-28}
CORPUS=${CORPUS:-$ROOT/../shared/corpus/kineto/hta_v100_2rank_job_rank1_memory/df_index_resolver.json.gz}
BIN=$BUILD/src/cli/trainscope
mkdir -p "$OUT"
ORIG=$OUT/hta216k.json
BIG=$OUT/hta216k_x$COPIES.json

[[ -x $BIN ]] || { echo "build trainscope first ($BIN)"; exit 1; }
[[ -s $ORIG ]] || zcat "$CORPUS" > "$ORIG"

if [[ ! -s $BIG || $BIG -ot $ORIG ]]; then
  echo "writing $BIG ($COPIES copies)..."
  python3 - "$ORIG" "$BIG" "$COPIES" <<'PY'
import json, sys
src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = json.load(open(src))
events = doc.pop("traceEvents")
ends = [e["ts"] + e.get("dur", 0) for e in events if isinstance(e.get("ts"), (int, float))]
starts = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
shift_us = int(max(ends) - min(starts)) + 1_000_000  # span + 1 s
ID_SHIFT = 10**8

# One %-template per event: ts and ids become %(ts)s / %(idN)s slots, so a
# copy is one string format per event.
templates = []
for e in events:
    values = {}
    e = json.loads(json.dumps(e))
    ts = e.get("ts")
    if isinstance(ts, (int, float)):
        values["ts"] = ts
        e["ts"] = "\x01ts\x01"
    args = e.get("args") or {}
    for key, slot in (("External id", "ext"), ("correlation", "corr")):
        if isinstance(args.get(key), int):
            values[slot] = args[key]
            args[key] = "\x01" + slot + "\x01"
    if e.get("ph") in ("s", "f", "t") and isinstance(e.get("id"), int):
        values["id"] = e["id"]
        e["id"] = "\x01id\x01"
    text = json.dumps(e, separators=(",", ":")).replace("%", "%%")
    for slot in values:
        text = text.replace('"\\u0001%s\\u0001"' % slot, "%%(%s)s" % slot)
    templates.append((text, values))

with open(dst, "w") as out:
    head = json.dumps(doc)[:-1]
    out.write(head + (", " if doc else "") + '"traceEvents": [\n')
    first = True
    count = 0
    for k in range(copies):
        lines = []
        for text, values in templates:
            v = {}
            for slot, x in values.items():
                if slot == "ts":
                    v[slot] = x + k * shift_us if isinstance(x, int) else "%.3f" % (x + k * shift_us)
                else:
                    v[slot] = x + k * ID_SHIFT
            lines.append(text % v if values else text.replace("%%", "%"))
        out.write(("" if first else ",\n") + ",\n".join(lines))
        first = False
        count += len(lines)
    out.write("\n]}\n")
print(count)
PY
fi
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
  env "${env[@]}" /usr/bin/time -o "$OUT/time.txt" -f "%e %M %U %S" "$BIN" "${args[@]}" >/dev/null 2>&1
  t=$(tail -1 "$OUT/time.txt")
  read -r secs rss user sys <<<"$t"
  # CPU seconds are printed too: on a shared machine wall time includes waiting.
  awk -v l="$label" -v s="$secs" -v r="$rss" -v b="$bytes" -v e="$events" -v u="$user" -v y="$sys" 'BEGIN {
    printf "%-34s %6.2f s (cpu %5.2f s)  %7.0f MB/s  %5.2f M events/s  peak RSS %5.0f MB (file %5.0f MB)\n",
      l, s, u + y, b / 1e6 / s, e / 1e6 / s, r / 1024, b / 1e6 }'
}

ORIG_BYTES=$(stat -c %s "$ORIG")
BIG_BYTES=$(stat -c %s "$BIG")
echo "original: $ORIG_EVENTS events, $ORIG_BYTES bytes; x$COPIES: $BIG_EVENTS events, $BIG_BYTES bytes"
run "216k original (default threads)" 0 "$ORIG" "$ORIG_BYTES" "$ORIG_EVENTS"
run "216k original, 1 thread" 1 "$ORIG" "$ORIG_BYTES" "$ORIG_EVENTS"
run "x$COPIES plain, 1 thread" 1 "$BIG" "$BIG_BYTES" "$BIG_EVENTS"
run "x$COPIES plain, 2 threads" 2 "$BIG" "$BIG_BYTES" "$BIG_EVENTS"
run "x$COPIES gzip, 2 threads (MB inflated)" 2 "$BIG.gz" "$BIG_BYTES" "$BIG_EVENTS"
