#!/bin/sh
# End-to-end benchmark of `trainscope analyze` on a generated job.
#
#   scripts/bench_e2e.sh [SCALE] [RANKS]
#
# Builds the release binary, writes a `synth --scale SCALE` job of RANKS
# ranks (default: 400 and 1, i.e. one ~1 GB kernel_details.csv), then times
# the full analysis on 1 thread and on all cores and prints MB/s, kernel
# rows/s and peak RSS. The job is kept in build/bench-job-SCALE-RANKS for reruns.
set -eu
cd "$(dirname "$0")/.."
scale="${1:-400}"
ranks="${2:-1}"
# TRAINSCOPE_BIN: a built binary to use instead of building the release
# preset; BENCH_DIR: where the job goes (ctest runs this script in
# functional mode, small, with both set). PAUSE: seconds to wait before each
# timed run (default 0). Runs a few seconds apart are what a user sees; on a
# VM that gives freed memory back to its host (this project's machines),
# back-to-back runs reuse the previous run's pages and look faster.
pause="${PAUSE:-0}"
. scripts/bench_common.sh
bench_binary trainscope
bench_job "$scale" "$ranks"
files=$(find "$job" -name kernel_details.csv)
bytes=$(cat $files | wc -c)
rows=$(( $(cat $files | wc -l) - ranks ))
echo "input: $ranks rank(s), kernel_details.csv $(echo "$bytes / 1000000" | bc) MB, $rows kernel rows"
# The yardstick, in the same minute: reading the same bytes with cat (page
# cache warm). On a shared machine wall time includes waiting: CPU is printed.
/usr/bin/time -f "%e %U %S" -o "$bench_dir/bench-time.txt" cat $files >/dev/null
read -r seconds user sys < "$bench_dir/bench-time.txt"
echo "cat (reference): ${seconds} s, cpu $(echo "$user + $sys" | bc) s"
for threads in 1 $(nproc); do
  sleep "$pause"
  /usr/bin/time -f "%e %M %U %S" -o "$bench_dir/bench-time.txt" "$bin" analyze "$job" --threads "$threads" \
    --json /dev/null >/dev/null
  read -r seconds rss_kb user sys < "$bench_dir/bench-time.txt"
  # 0.00 s on tiny inputs (functional mode): report rates against 10 ms.
  rate_s=$(echo "if ($seconds < 0.01) 0.01 else $seconds" | bc)
  echo "analyze --threads $threads: ${seconds} s (cpu $(echo "$user + $sys" | bc) s)," \
       "$(echo "scale=0; $bytes / $rate_s / 1000000" | bc) MB/s," \
       "$(echo "scale=0; $rows / $rate_s" | bc) kernels/s, peak RSS $(( rss_kb / 1024 )) MiB" \
       "($(echo "scale=2; $rss_kb * 1024 / $bytes" | bc)x the input)"
done
