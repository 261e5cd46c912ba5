# Sourced by the benchmark scripts (bench_e2e.sh, bench_python.sh,
# bench_scale.sh, bench_goals.sh): the binary under test and the synth jobs
# they share.
#
# bench_binary TARGET...: bin=$TRAINSCOPE_BIN, else the release preset's
#   trainscope, building TARGET... first.
# bench_job SCALE RANKS: job=$bench_dir/bench-job-SCALE-RANKS (bench_dir:
#   BENCH_DIR, default build), written by `synth --scale SCALE --ranks RANKS` when it
#   holds no ground_truth.json yet (synth_job). Only a folder synth wrote (it
#   leaves its manifest) is ever removed; any other stops the script.

bench_binary() {
  bin="${TRAINSCOPE_BIN:-}"
  if [ -z "$bin" ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release --target "$@" >/dev/null
    bin=build/release/src/cli/trainscope
  fi
}

# synth_job JOB SYNTH-OPTION...: job=JOB, written by `synth --out JOB
# SYNTH-OPTION...` unless it holds ground_truth.json (a complete job); what
# was written is said on stderr. Flushed to disk before anything times it:
# the 1,024-rank job's 0.8 GB of dirty pages, written back while it was
# analysed, made that run 1.5x slower.
synth_job() {
  job="$1"
  shift
  [ -f "$job/ground_truth.json" ] && return 0
  if [ -e "$job" ] && [ ! -f "$job/trainscope-manifest.txt" ]; then
    echo "$job exists and was not written by trainscope synth: remove it yourself or set BENCH_DIR" >&2
    exit 2
  fi
  rm -rf "$job"
  synth_start=$(date +%s.%N)
  "$bin" synth --out "$job" "$@" >/dev/null
  synth_end=$(date +%s.%N)
  sync
  awk -v b="$(du -sb "$job" | cut -f1)" -v s="$synth_start" -v e="$synth_end" -v what="$*" \
    'BEGIN { printf "synth %s: %.2f MB in %.2f s\n", what, b / 1e6, e - s }' >&2
}

bench_job() {
  bench_dir="${BENCH_DIR:-build}"
  synth_job "$bench_dir/bench-job-$1-$2" --ranks "$2" --scale "$1"
}
