#!/bin/sh
# Builds of trainscope compared on one input, interleaved, beside `cat`.
#
#   scripts/bench_builds.sh INPUT BINARY...
#   e.g. cp build/ci/src/cli/trainscope /tmp/ts-before   # before a change
#        scripts/bench_builds.sh /tmp/dbj1g /tmp/ts-before build/ci/src/cli/trainscope
#
# Runs SERIES series (default 5); each series runs every BINARY once
# (`COMMAND INPUT --json`, COMMAND `analyze` unless set: `health` for a
# training log) and then `cat` of the input's files into
# `wc -c`, PAUSE seconds apart (default 4). The machine's speed drifts over
# minutes, so only runs of the same minutes compare, and a run with no
# pause before it reuses the pages the run before freed (docs/benchmarks.md,
# "How to measure"). Prints a Markdown table: each command's wall time
# (range and median), user and system time (medians) and peak RSS (range,
# and its ratio to the input's bytes); then whether every binary wrote the
# same JSON (the first series' outputs, compared byte for byte), and exits 1
# when they differ. TSV=FILE also appends each row to FILE, tab-separated
# (scripts/bench_goals.sh reads it): the command's name (build-1... in the
# order given, then cat), wall min, median and max, user and system medians
# (s), peak min and max (MiB) and the peaks' ratios to the input's bytes.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: scripts/bench_builds.sh INPUT BINARY..." >&2
  exit 2
fi
input="$1"
shift
series="${SERIES:-5}"
pause="${PAUSE:-4}"
command="${COMMAND:-analyze}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The input's files, one a line: what `cat` reads and the peak's ratio is of.
find "$input" -type f | sort >"$work/files"
bytes=$(xargs -d '\n' cat <"$work/files" | wc -c)

# timed NAME COMMAND...: one run, its "wall user sys peak_kb" appended to
# $work/NAME.
timed() {
  name="$1"
  shift
  sleep "$pause"
  /usr/bin/time -f "%e %U %S %M" -o "$work/last" "$@" >/dev/null 2>&1 || {
    echo "failed: $*" >&2
    exit 1
  }
  cat "$work/last" >>"$work/$name"
}

s=1
while [ "$s" -le "$series" ]; do
  k=1
  for binary in "$@"; do
    out=/dev/null
    [ "$s" -eq 1 ] && out="$work/out-$k.json"
    timed "build-$k" "$binary" "$command" "$input" --json "$out"
    k=$((k + 1))
  done
  # shellcheck disable=SC2016 # $1 is the inner shell's
  timed cat sh -c 'xargs -d "\n" cat <"$1" | wc -c' sh "$work/files"
  s=$((s + 1))
done

# row LABEL NAME: the table's row of the runs in $work/NAME (lines of
# "wall user sys peak_kb"): the range and median of each field; with TSV
# set, the same numbers appended there.
row() {
  awk -v label="$1" -v name="$2" -v bytes="$bytes" -v tsv="${TSV:-}" '
    function median(v, n) { return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    { for (f = 1; f <= 4; ++f) {  # each field kept in order as it comes (insertion sort)
        for (i = NR; i > 1 && v[f, i - 1] > $f; --i) v[f, i] = v[f, i - 1]
        v[f, i] = $f
      } }
    END {
      for (f = 1; f <= 4; ++f) { for (i = 1; i <= NR; ++i) w[i] = v[f, i]; med[f] = median(w, NR) }
      printf "| %s | %.2f-%.2f s (median %.2f s) | %.2f s | %.2f s | %.1f-%.1f MiB (%.3f-%.3fx) |\n",
        label, v[1, 1], v[1, NR], med[1], med[2], med[3], v[4, 1] / 1024, v[4, NR] / 1024,
        v[4, 1] * 1024 / bytes, v[4, NR] * 1024 / bytes
      if (tsv != "")
        printf "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f\t%.3f\t%.3f\n", name, v[1, 1], med[1],
          v[1, NR], med[2], med[3], v[4, 1] / 1024, v[4, NR] / 1024, v[4, 1] * 1024 / bytes,
          v[4, NR] * 1024 / bytes >>tsv
    }' "$work/$2"
}

echo "input: $input, $bytes bytes; $series series, ${pause} s apart"
echo
echo "| command | wall | user (median) | system (median) | peak RSS |"
echo "|---|---|---|---|---|"
k=1
for binary in "$@"; do
  row "$binary" "build-$k"
  k=$((k + 1))
done
row "cat of the input, into wc -c" cat
echo
same=yes
[ $# -eq 1 ] && same="n/a (one binary)"
k=2
while [ "$k" -le $# ]; do
  cmp -s "$work/out-1.json" "$work/out-$k.json" || same=no
  k=$((k + 1))
done
echo "same JSON: $same"
[ "$same" != no ]
