#!/bin/sh
# From a file to a pandas DataFrame of every kernel: trainscope's Python
# module against pandas.read_csv of the same kernel_details.csv, beside cat.
#
#   scripts/bench_python.sh [SCALE]
#
# Writes a one-rank `synth --scale SCALE` job (default 400: a ~1 GB
# kernel_details.csv; kept in build/bench-job-SCALE-1 for reruns, shared with
# bench_e2e.sh), then times, each in a fresh python3 with /usr/bin/time:
# `cat`; trainscope.analyze(job) + job.kernels(); job.kernels() alone;
# pandas.read_csv. Prints wall and CPU seconds, peak RSS and rows.
# TRAINSCOPE_PYTHONPATH: the built package (default build/release/python);
# PYTHON: the interpreter (default python3); PAUSE: seconds before each run.
set -eu
cd "$(dirname "$0")/.."
scale="${1:-400}"
pause="${PAUSE:-0}"
python="${PYTHON:-python3}"
package="${TRAINSCOPE_PYTHONPATH:-build/release/python}"
. scripts/bench_common.sh
bench_binary trainscope trainscope_python
bench_job "$scale" 1
csv=$(find "$job" -name kernel_details.csv | head -n 1)
echo "input: $csv, $(( $(wc -c <"$csv") / 1000000 )) MB"

timed() {  # label, command...
  label="$1"; shift
  sleep "$pause"
  /usr/bin/time -f "%e %U %S %M" -o "$bench_dir/bench-python.time" "$@" >"$bench_dir/bench-python.out"
  read -r wall user sys rss <"$bench_dir/bench-python.time"
  printf '%-34s %6.2f s wall, %6.2f s CPU, peak %5d MiB  %s\n' "$label" "$wall" \
    "$(echo "$user + $sys" | bc)" "$((rss / 1024))" "$(cat "$bench_dir/bench-python.out")"
}

timed "cat" sh -c "cat '$csv' | wc -c"
timed "trainscope analyze + kernels()" env PYTHONPATH="$package" "$python" -c "
import sys, trainscope
job = trainscope.analyze(sys.argv[1])
df = job.kernels()
print(len(df), 'rows')" "$job"
timed "trainscope.kernels()" env PYTHONPATH="$package" "$python" -c "
import sys, trainscope
print(len(trainscope.kernels(sys.argv[1])), 'rows')" "$job"
timed "pandas.read_csv" "$python" -c "
import sys, pandas
print(len(pandas.read_csv(sys.argv[1])), 'rows')" "$csv"
