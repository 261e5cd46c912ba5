#!/bin/sh
# The MPI mode of analyze equals the single-process run: a 256-rank synth job, plus one rank whose kernel_details.csv
# is damaged (listed in the input health, the rest analysed), analysed with
# threads and under mpirun at P = 1, 2, 4 (oversubscribed: CI has 2 cores;
# --allow-run-as-root: CI runs as root). The JSON documents must be equal
# byte for byte.
# Usage: mpi_equivalence_test.sh TRAINSCOPE MPIEXEC
set -eu
bin="$1"; mpiexec="$2"
work=$(mktemp -d "${TMPDIR:-/tmp}/trainscope-mpi.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$bin" synth --out "$work/job" --ranks 256 --layers 1 --steps 2 --micro-batches 1 >/dev/null
# Damage one rank in the middle of the job (it falls in a middle shard).
damaged=$(ls -d "$work"/job/*_rank130_* | head -1)
printf 'not,a,kernel,details,header\n' > "$damaged/ASCEND_PROFILER_OUTPUT/kernel_details.csv"
rm -f "$damaged/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"
"$bin" analyze "$work/job" --threads 2 --json "$work/serial.json" >/dev/null 2>"$work/serial.err"
status=0
for p in 1 2 4; do
  if ! timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe -n "$p" \
      "$bin" analyze "$work/job" --threads 2 --json "$work/mpi$p.json" >"$work/mpi$p.out" 2>&1; then
    echo "FAIL: mpirun -n $p exited non-zero:"; tail -20 "$work/mpi$p.out"; status=1; continue
  fi
  if cmp -s "$work/serial.json" "$work/mpi$p.json"; then
    echo "ok: P=$p equals the single-process JSON ($(wc -c < "$work/serial.json") bytes)"
  else
    echo "FAIL: P=$p differs from the single-process JSON:"
    diff "$work/serial.json" "$work/mpi$p.json" | head -20
    status=1
  fi
done
grep -q '_rank130_' "$work/serial.json" || { echo "FAIL: the damaged rank is not in the input health"; status=1; }
# The host's share of the critical path travels in the rank summaries too:
# 8 ranks with their host traced, one late in its data loader, at P = 2.
"$bin" synth --out "$work/host" --ranks 8 --layers 1 --steps 2 --trace-view --late-rank 3 --late-ms 20 >/dev/null
"$bin" analyze "$work/host" --threads 2 --json "$work/host-serial.json" >/dev/null 2>&1
if timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe -n 2 \
    "$bin" analyze "$work/host" --threads 2 --json "$work/host-mpi.json" >"$work/host-mpi.out" 2>&1 &&
    cmp -s "$work/host-serial.json" "$work/host-mpi.json"; then
  echo "ok: the host-traced job at P=2 equals the single-process JSON"
else
  echo "FAIL: the host-traced job at P=2 differs or failed:"; tail -5 "$work/host-mpi.out"; status=1
fi
grep -q '"host_known": true' "$work/host-serial.json" || { echo "FAIL: no host side on the path"; status=1; }
exit $status
