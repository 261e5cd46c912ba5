#!/usr/bin/env bash
# How the cost of `trainscope analyze` grows (issue 53, item 3): wall time,
# CPU time (user + sys) and peak RSS of `analyze JOB --json /dev/null` on
# synth jobs along three axes, each point beside `cat` of the same job's
# files in the same minute (page cache warm: the reading floor).
#
#   scripts/bench_scale.sh > scale.md
#
#   ranks  1, 4, 16, 64, 256, 1024 ranks of `synth --layers 2 --steps 3`
#          (~0.7 MB of kernel_details.csv a rank; 1024 ranks ~0.75 GB)
#   steps  1, 10, 50, 200 steps a rank: `synth --ranks 2 --layers 2 --steps N`
#          (~0.24 MB a step a rank)
#   bytes  1, 10, 100, 1000 MB of kernel_details.csv on one rank: `synth
#          --scale S`, S from the target (synth writes ~1.02 MB a micro-batch
#          and --scale multiplies the 2 micro-batches, rounded, at least 1:
#          ~1 GB is --scale 487.5); the column shows the size measured
#
# Prints Markdown on stdout (synth's progress goes to stderr): per axis a
# table of x, the job's size (every file, what `cat` reads; MB = 10^6 bytes),
# wall and CPU seconds, peak RSS, peak / input, `cat` seconds and, for
# ranks, what each rank adds to the peak ((peak - peak at 1 rank) / ranks,
# KB), then the growth exponent between the last two points,
# log(t2 / t1) / log(x2 / x1): 1 is linear, 2 quadratic; <= 1.1 reads as
# "linear or better". CPU time is the steady one on a shared machine; wall
# time includes waiting for the cores. Times under 0.1 s are too short to
# judge (clamped to 0.01 s). Peak RSS includes the process's fixed ~13 MB,
# so its exponent understates the growth until the inputs are large.
#
# Knobs (environment):
#   AXES       which axes, in order (default "ranks steps bytes")
#   MAX_RANKS  largest rank count, an integer (default 1024)
#   MAX_MB     largest kernel_details.csv target, whole MB (default 1000)
#   QUICK=1    tiny points (ranks 1 2 4; steps 1 2 4; bytes 1 2 MB): a smoke
#              test in seconds
#   THREADS    analyze --threads (default: all cores)
#   PAUSE      seconds to wait before each timed run (default 0; use 4 on
#              this project's VMs, docs/benchmarks.md)
#   TRAINSCOPE_BIN  a built binary (else the release preset is built)
#   BENCH_DIR  where the jobs go (default build), as bench-scale-NAME, kept
#              and reused by the next run (the full set is ~2 GB). Paths are
#              relative to the repository root.
# Only folders that synth wrote (they hold its manifest) are ever removed.
set -euo pipefail
cd "$(dirname "$0")/.."
axes="${AXES:-ranks steps bytes}"
max_ranks="${MAX_RANKS:-1024}"
max_mb="${MAX_MB:-1000}"
quick="${QUICK:-0}"
pause="${PAUSE:-0}"
threads="${THREADS:-$(nproc)}"
# shellcheck source=scripts/bench_common.sh
. scripts/bench_common.sh
bench_binary trainscope
bench_dir="${BENCH_DIR:-build}"
mkdir -p "$bench_dir"
time_file="$bench_dir/bench-scale-time.txt"

if [ "$quick" = 1 ]; then
  rank_points="1 2 4"; step_points="1 2 4"; mb_points="1 2"
else
  rank_points="1 4 16 64 256 1024"; step_points="1 10 50 200"; mb_points="1 10 100 1000"
fi

# calc EXPRESSION [NAME=VALUE...]: awk arithmetic, printed with %.2f.
calc() {
  local expr="$1"; shift
  local assign=()
  local a
  for a in "$@"; do assign+=(-v "$a"); done
  awk "${assign[@]}" "BEGIN { printf \"%.2f\", $expr }"
}

# scale_job NAME SYNTH-OPTION...: job=$bench_dir/bench-scale-NAME
# (bench_common.sh's synth_job).
scale_job() {
  local name="$1"
  shift
  synth_job "$bench_dir/bench-scale-$name" "$@"
}

# measure X: one table row for $job. Sets wall, cpu, peak_kb for growth().
measure() {
  local x="$1" bytes cat_s user sys extra=""
  bytes=$(find "$job" -type f -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
  sleep "$pause"
  /usr/bin/time -f "%e" -o "$time_file" find "$job" -type f -exec cat {} + >/dev/null
  read -r cat_s <"$time_file"
  sleep "$pause"
  /usr/bin/time -f "%e %U %S %M" -o "$time_file" \
    "$bin" analyze "$job" --threads "$threads" --json /dev/null >/dev/null
  read -r wall user sys peak_kb <"$time_file"
  cpu=$(calc "u + s" "u=$user" "s=$sys")
  if [ "$axis" = ranks ]; then
    if [ "$x" = 1 ]; then
      peak_kb_1=$peak_kb; extra=" - |"
    elif [ -n "${peak_kb_1:-}" ]; then
      extra=" $(calc "(p - p1) * 1.024 / r" "p=$peak_kb" "p1=$peak_kb_1" "r=$x") |"
    else
      extra=" ? |"
    fi
  fi
  echo "| $x | $(calc "b / 1e6" "b=$bytes") | $wall | $cpu | $(calc "k * 1024 / 1e6" "k=$peak_kb")" \
       "| $(calc "k * 1024 / b" "k=$peak_kb" "b=$bytes") | $cat_s |$extra"
}

# growth X1 X2 WALL1 WALL2 CPU1 CPU2 PEAK1 PEAK2 UNIT: the exponent line.
growth() {
  awk -v x1="$1" -v x2="$2" -v w1="$3" -v w2="$4" -v c1="$5" -v c2="$6" \
      -v p1="$7" -v p2="$8" -v unit="$9" '
    function clamp(t) { return t < 0.01 ? 0.01 : t }
    function ex(a, b) { return log(b / a) / log(x2 / x1) }
    function verdict(e) { return e <= 1.1 ? "linear or better" : "super-linear" }
    BEGIN {
      c = ex(clamp(c1), clamp(c2)); w = ex(clamp(w1), clamp(w2)); p = ex(p1, p2)
      printf "Growth from %s to %s %s: CPU time exponent %.2f (%s), wall %.2f (%s), peak RSS %.2f (%s).",
        x1, x2, unit, c, verdict(c), w, verdict(w), p, verdict(p)
      if (c1 < 0.1 || c2 < 0.1 || w1 < 0.1 || w2 < 0.1) printf " Times under 0.1 s: too short to judge."
      printf "\n"
    }'
}

# run_axis AXIS TITLE X-HEADER UNIT POINT...: the table; job_for makes $job
# for a point and sets x (the value shown and used for the exponent).
run_axis() {
  axis="$1"; local title="$2" header="$3" unit="$4"; shift 4
  local point prev_x="" prev_wall="" prev_cpu="" prev_peak="" last_x=""
  local extra_head="" extra_rule=""
  if [ "$axis" = ranks ]; then extra_head=" per-rank peak KB |"; extra_rule="---|"; fi
  echo
  echo "### $title"
  echo
  echo "| $header | input MB | wall s | CPU s | peak MB | peak/input | cat s |$extra_head"
  echo "|---|---|---|---|---|---|---|$extra_rule"
  for point in "$@"; do
    job_for "$point"
    prev_x=$last_x; prev_wall=${wall:-}; prev_cpu=${cpu:-}; prev_peak=${peak_kb:-}
    measure "$x"
    last_x=$x
  done
  echo
  if [ -z "$last_x" ]; then
    echo "No points under the limits."
  elif [ -n "$prev_x" ]; then
    growth "$prev_x" "$last_x" "$prev_wall" "$wall" "$prev_cpu" "$cpu" "$prev_peak" "$peak_kb" "$unit"
  else
    echo "One point only: no growth exponent."
  fi
}

for axis_name in $axes; do
  case "$axis_name" in
    ranks | steps | bytes) ;;
    *) echo "AXES: unknown axis '$axis_name' (ranks, steps, bytes)" >&2; exit 2 ;;
  esac
done

echo "## trainscope analyze: how cost grows"
echo
echo "\`$bin analyze JOB --threads $threads --json /dev/null\`, $(nproc) cores," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, PAUSE=$pause, $(date -u '+%Y-%m-%d %H:%M UTC')."

for axis_name in $axes; do
  wall=""; cpu=""; peak_kb=""; peak_kb_1=""
  case "$axis_name" in
    ranks)
      points=()
      for p in $rank_points; do if [ "$p" -le "$max_ranks" ]; then points+=("$p"); fi; done
      job_for() { x="$1"; scale_job "ranks$1-layers2-steps3" --ranks "$1" --layers 2 --steps 3; }
      run_axis ranks "Ranks (synth --ranks N --layers 2 --steps 3)" ranks ranks "${points[@]}"
      ;;
    steps)
      read -r -a points <<<"$step_points"
      job_for() { x="$1"; scale_job "ranks2-layers2-steps$1" --ranks 2 --layers 2 --steps "$1"; }
      run_axis steps "Steps per rank (synth --ranks 2 --layers 2 --steps N)" "steps per rank" steps "${points[@]}"
      ;;
    bytes)
      points=()
      for p in $mb_points; do if [ "$p" -le "$max_mb" ]; then points+=("$p"); fi; done
      job_for() {
        # Micro-batches for the target: (MB - 0.43) / 1.02, at least 1.
        local scale
        scale=$(awk -v t="$1" 'BEGIN { m = int((t - 0.43) / 1.02 + 0.5); if (m < 1) m = 1; print m / 2 }')
        scale_job "ranks1-scale$scale" --ranks 1 --scale "$scale"
        x=$(calc "b / 1e6" "b=$(find "$job" -name kernel_details.csv -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')")
      }
      run_axis bytes "Bytes per rank (synth --ranks 1 --scale S; x: kernel_details.csv MB)" \
        "kernel_details.csv MB" MB "${points[@]}"
      ;;
    *)
      echo "AXES: unknown axis '$axis_name' (ranks, steps, bytes)" >&2
      exit 2
      ;;
  esac
done
echo
echo "Load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
