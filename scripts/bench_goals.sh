#!/usr/bin/env bash
# Issue 53's single-file goals measured in one sitting (docs/benchmarks.md,
# "Goals and where each stands"): each input timed with
# scripts/bench_builds.sh (interleaved series beside `cat` of the same files),
# and `compare` of two 1 GB runs beside their two analyses; prints the goals
# table, with each "met" computed from the medians and peaks measured.
#
#   scripts/bench_goals.sh BINARY [PREVIOUS]
#   e.g. scripts/bench_goals.sh build/ci/src/cli/trainscope /tmp/ts-before
#
# PREVIOUS (a build before a change) runs in the same series: its medians are
# shown beside, and a JSON that differs from BINARY's fails the script.
#
# The inputs are written once into BENCH_DIR (default /tmp/trainscope_bench,
# ~5.6 GB) and reused; a path set in the environment is used instead:
#   TRACE    the 1.53 GB Kineto trace (bench_trace.sh's x28 copy)
#   CSV_JOB  a 1 GB kernel_details.csv job (synth --scale 500)
#   SLOW_JOB the same job with --slowdown 1.1 (compare's second run)
#   DB_JOB   a 1 GB .db export (gen_profiler_db.py, 9.7 M kernels)
#   LOG      a 1 GB Megatron-LM log (gen_training_log.py)
# Knobs: GOALS (default "trace csv db log compare"), SERIES (5), PAUSE (4 s
# before every timed run), QUICK=1 (small inputs in BENCH_DIR/quick, one
# series, no pause: the script runs; its "met" column says n/a).
# Nothing is removed but folders synth wrote (bench_common.sh). Exits 1 when
# a run failed or the builds' JSON differ, 77 when an input could not be
# written (the trace without ../shared/corpus), else 0.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: scripts/bench_goals.sh BINARY [PREVIOUS]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "$1")
previous=
if [ $# -ge 2 ]; then previous=$(realpath "$2"); fi
goals="${GOALS:-trace csv db log compare}"
quick="${QUICK:-0}"
bench_dir="${BENCH_DIR:-/tmp/trainscope_bench}"
if [ "$quick" = 1 ]; then
  bench_dir="$bench_dir/quick"
  export SERIES=1 PAUSE=0
  copies=1 scale=1 db_rows=20000 log_bytes=1000000
else
  export SERIES="${SERIES:-5}" PAUSE="${PAUSE:-4}"
  copies=28 scale=500 db_rows=9700000 log_bytes=1073741824
fi
mkdir -p "$bench_dir"
bench_dir=$(realpath "$bench_dir")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The goals: seconds and peak RSS over the input's bytes (issue 53).
declare -A target_s=([trace]=0.75 [csv]=0.75 [db]=2 [log]=1)
declare -A target_peak=([trace]=0.25 [csv]=0.35 [db]=0.5 [log]=0.1)
declare -A label=([trace]="Kineto trace (\`bench_trace.sh\`, x$copies)"
  [csv]="kernel_details.csv (\`synth --scale $scale\`)"
  [db]="\`.db\` export (\`gen_profiler_db.py\`, $db_rows kernels)"
  [log]="Megatron-LM training log (\`gen_training_log.py\`)")

# The inputs, written where absent.
# shellcheck source=scripts/bench_common.sh disable=SC2154 # bench_job sets $job
. "$root/scripts/bench_common.sh"
# from_env_or_made GIVEN PATH COMMAND...: GIVEN when set, else PATH, which
# COMMAND writes where it is absent.
from_env_or_made() {
  if [ -n "$1" ]; then
    echo "$1"
    return
  fi
  local path="$2"
  shift 2
  [ -e "$path" ] || "$@" >&2 || return
  echo "$path"
}

input_of() {
  case "$1" in
    trace)
      if [ -z "${TRACE:-}" ]; then
        OUT="$bench_dir" COPIES="$copies" WRITE_ONLY=1 "$root/scripts/bench_trace.sh" >&2 || return
        TRACE="$bench_dir/hta216k_x$copies.json"
      fi
      echo "$TRACE" ;;
    csv)
      if [ -z "${CSV_JOB:-}" ]; then
        BENCH_DIR="$bench_dir" bench_job "$scale" 1 >&2 || return
        CSV_JOB="$job"
      fi
      echo "$CSV_JOB" ;;
    slow)
      local slow="$bench_dir/bench-job-$scale-1-slowdown"
      from_env_or_made "${SLOW_JOB:-}" "$slow" \
        "$bin" synth --out "$slow" --ranks 1 --scale "$scale" --slowdown 1.1 ;;
    db)
      from_env_or_made "${DB_JOB:-}" "$bench_dir/db-$db_rows" \
        python3 "$root/scripts/gen_profiler_db.py" "$bench_dir/db-$db_rows" "$db_rows" ;;
    log)
      from_env_or_made "${LOG:-}" "$bench_dir/megatron-$log_bytes.log" \
        python3 "$root/scripts/gen_training_log.py" "$bench_dir/megatron-$log_bytes.log" "$log_bytes" ;;
  esac
}

# field GOAL NAME COLUMN: a number of bench_builds.sh's TSV row NAME (build-1:
# BINARY, build-2: PREVIOUS, cat) for GOAL; columns as bench_builds.sh says.
field() { awk -F '\t' -v n="$2" -v c="$3" '$1 == n { print $c }' "$work/$1.tsv"; }

# at_most A B: "yes" when A <= B.
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b ? "yes" : "no") }'; }

# goal_cells GOAL [SIZE]: the row's goal (with the input's size) and target
# cells.
goal_cells() {
  echo "| ${label[$1]}${2:+, $2} | <= ${target_s[$1]} s, <= ${target_peak[$1]}x |"
}

rows=()
status=0
for goal in $goals; do
  [ "$goal" = compare ] && continue
  if ! input=$(input_of "$goal"); then  # e.g. bench_trace.sh without the corpus
    rows+=("$(goal_cells "$goal") not measured: the input could not be written (stderr) | | n/a |")
    [ "$status" = 0 ] && status=77  # ctest's "skipped": not every goal measured
    continue
  fi
  sync  # a freshly written input on disk before it is timed (bench_scale.sh)
  command=analyze
  [ "$goal" = log ] && command=health
  echo "timing $goal: $input" >&2
  binaries=("$bin")
  [ -n "$previous" ] && binaries+=("$previous")
  COMMAND="$command" TSV="$work/$goal.tsv" "$root/scripts/bench_builds.sh" "$input" \
    "${binaries[@]}" >"$work/$goal.md" || {
    cat "$work/$goal.md" >&2
    echo "$goal: bench_builds.sh failed (a run failed, or the builds wrote different JSON)" >&2
    status=1
    [ -s "$work/$goal.tsv" ] || {
      rows+=("$(goal_cells "$goal") not measured: a run failed (stderr) | | n/a |")
      continue
    }
  }
  bytes=$(sed -n 's/^input: .*, \([0-9]*\) bytes;.*/\1/p' "$work/$goal.md")
  median=$(field "$goal" build-1 3)
  now="$(field "$goal" build-1 2)-$(field "$goal" build-1 4) s (median $median s)"
  now+=", $(field "$goal" build-1 7)-$(field "$goal" build-1 8) MiB"
  now+=" ($(field "$goal" build-1 9)-$(field "$goal" build-1 10)x)"
  if [ -n "$previous" ]; then
    now+="; previous build: median $(field "$goal" build-2 3) s"
    now+=", $(field "$goal" build-2 7)-$(field "$goal" build-2 8) MiB"
  fi
  cat_s="$(field "$goal" cat 2)-$(field "$goal" cat 4) s (median $(field "$goal" cat 3) s)"
  if [ "$quick" = 1 ]; then
    met="n/a (QUICK)"
  else
    met="time: $(at_most "$median" "${target_s[$goal]}"); peak: $(at_most \
      "$(field "$goal" build-1 10)" "${target_peak[$goal]}")"
  fi
  rows+=("$(goal_cells "$goal" "$(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b / 1e9 }')") $now | $cat_s | $met |")
done

if [[ " $goals " == *" compare "* ]]; then
  base=$(input_of csv)
  new=$(input_of slow)
  sync
  echo "timing compare: $base $new" >&2
  # One series: analyze BASE, analyze NEW, compare BASE NEW, each after
  # PAUSE; "wall user sys peak_kb" appended to $work/NAME.
  for _ in $(seq "$SERIES"); do
    for run in base new both; do
      sleep "$PAUSE"
      case $run in
        base) args=(analyze "$base") ;;
        new) args=(analyze "$new") ;;
        both) args=(compare "$base" "$new") ;;
      esac
      /usr/bin/time -f "%e %U %S %M" -a -o "$work/compare-$run" "$bin" "${args[@]}" \
        --json /dev/null >/dev/null 2>&1
    done
  done
  # shellcheck disable=SC2016 # awk's $1
  median_of() {
    sort -n -k1,1 "$work/compare-$1" | awk '{ v[NR] = $1 }
      END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
  }
  b=$(median_of base) n=$(median_of new) c=$(median_of both)
  sum=$(awk -v a="$b" -v b="$n" 'BEGIN { printf "%.2f", a + b }')
  met="n/a (QUICK)"
  if [ "$quick" != 1 ]; then met=$(at_most "$c" "$sum"); fi
  rows+=("| \`compare\` of two runs (\`synth --scale $scale\`, and \`--slowdown 1.1\`) | <= the two analyses | median $c s against $b + $n = $sum s | | $met |")
fi

echo "$SERIES series, $PAUSE s apart; $(date -u +%Y-%m-%d), $(nproc) cores; binary: $bin"
echo
echo "| goal | target | current | \`cat\` | met |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit "$status"
