# Sourced by the benchmark scripts (bench_e2e.sh, bench_python.sh): the
# binary under test and the synth job they share.
#
# bench_binary TARGET...: bin=$TRAINSCOPE_BIN, else the release preset's
#   trainscope, building TARGET... first.
# bench_job SCALE RANKS: job=$BENCH_DIR/bench-job-SCALE-RANKS (BENCH_DIR
#   default build), written by `synth --scale SCALE --ranks RANKS` when it
#   holds no ground_truth.json yet. Only a folder synth wrote (it leaves its
#   manifest) is ever removed; any other stops the script.

bench_binary() {
  bin="${TRAINSCOPE_BIN:-}"
  if [ -z "$bin" ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release --target "$@" >/dev/null
    bin=build/release/src/cli/trainscope
  fi
}

bench_job() {
  bench_dir="${BENCH_DIR:-build}"
  job="$bench_dir/bench-job-$1-$2"
  [ -f "$job/ground_truth.json" ] && return 0
  if [ -e "$job" ] && [ ! -f "$job/trainscope-manifest.txt" ]; then
    echo "$job exists and was not written by trainscope synth: remove it yourself or set BENCH_DIR" >&2
    exit 2
  fi
  rm -rf "$job"
  synth_start=$(date +%s.%N)
  "$bin" synth --out "$job" --ranks "$2" --scale "$1" >/dev/null
  synth_end=$(date +%s.%N)
  sync  # on disk before it is timed: writeback beside a timed run slows it
  echo "synth: wrote $(( $(du -sb "$job" | cut -f1) / 1000000 )) MB in $(echo "$synth_end - $synth_start" | bc) s"
}
