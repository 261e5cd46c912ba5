#!/usr/bin/env python3
"""Writes a hung job for timing `trainscope triage` (docs/benchmarks.md):
per rank a flight-recorder dump in its JSON form (a default group and a
tensor-parallel group of 8, ENTRIES entries), a c10d log (NCCL start-up
lines, then the watchdog timeout) and a Megatron-LM training log (STEPS
iterations). Rank RANKS/2+3 never enqueued the last all-reduce and its
training log stops one iteration early: triage must name it.

usage: gen_triage_job.py OUT [RANKS=1024] [ENTRIES=2000] [STEPS=500]"""
import os
import sys


def dump(rank, ranks, entries, missing):
    tp0 = rank - rank % 8
    tp = ", ".join(str(r) for r in range(tp0, tp0 + 8))
    world = ", ".join(str(r) for r in range(ranks))
    head = ('{"version": "2.9", "pg_config": {"0": {"name": "0", "desc": "default_pg", '
            f'"ranks": "[{world}]"}}, "tp{tp0}": {{"name": "tp{tp0}", '
            f'"desc": "TENSOR_MODEL_PARALLEL_GROUP", "ranks": "[{tp}]"}}}}, '
            '"pg_status": {}, "entries": [')
    parts = []
    last = entries - 1 if rank == missing else entries
    for s in range(1, last + 1):
        w = s % 4 == 0
        parts.append(
            f'{{"record_id": {s}, "pg_id": {0 if w else 1}, "process_group": '
            f'["{"0" if w else f"tp{tp0}"}", '
            f'"{"default_pg" if w else "TENSOR_MODEL_PARALLEL_GROUP"}"], '
            f'"collective_seq_id": {s // 4 if w else s - s // 4}, "p2p_seq_id": 0, '
            f'"profiling_name": "nccl:{"all_reduce" if w else "_all_gather_base"}", '
            f'"time_created_ns": {1700000000000000000 + s * 1000000}, '
            '"input_sizes": [[4096, 5120]], "input_dtypes": ["BFloat16"], '
            '"output_sizes": [[4096, 5120]], "output_dtypes": ["BFloat16"], '
            f'"state": "{"completed" if s < entries else "scheduled"}", '
            '"timeout_ms": 600000, "is_p2p": false}')
    return head + ", ".join(parts) + "]}"


def c10d_log(rank, ranks):
    lines = [f"node{rank // 8}:{1000 + rank}:{2000 + rank} [{rank % 8}] NCCL INFO Channel "
             f"{i % 32:02d}/0 : {rank}[{rank % 8}] -> {(rank + 1) % ranks}[{(rank + 1) % 8}] "
             "via P2P/IPC" for i in range(200)]
    lines.append(f"node{rank // 8}:{1000 + rank}:{2000 + rank} [{rank % 8}] NCCL INFO comm 0x55 "
                 f"rank {rank} nRanks {ranks} nNodes {ranks // 8} localRanks 8")
    lines.append(f"[rank{rank}]:[E ProcessGroupNCCL.cpp:563] [Rank {rank}] Watchdog caught "
                 "collective operation timeout: WorkNCCL(SeqNum=500, OpType=ALLREDUCE, "
                 "NumelIn=20971520, NumelOut=20971520, Timeout(ms)=600000) ran for "
                 f"600{rank % 1000:03d} milliseconds before timing out.")
    return "\n".join(lines) + "\n"


def training_log(rank, steps, missing):
    last = steps - 1 if rank == missing else steps
    lines = [f"using world size: {rank}, data-parallel size: 8"]
    for it in range(1, last + 1):
        sec = 1000 + it
        lines.append(
            f" [2024-05-01 {10 + sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}] iteration "
            f"{it:8d}/{100000:8d} | consumed samples: {it * 256:12d} | elapsed time per iteration "
            f"(ms): {1000.0 + (it * 7 + rank) % 13:.1f} | learning rate: 3.000000E-04 | global batch "
            f"size:   256 | lm loss: {3.0 - it * 1e-4:.6E} | loss scale: 1.0 | grad norm: 1.000 | "
            "number of skipped iterations:   0 | number of nan iterations:   0 |")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1]
    ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    entries = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 500
    missing = ranks // 2 + 3
    for sub in ("dumps", "logs", "train"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    total = 0
    for r in range(ranks):
        for sub, name, text in (("dumps", f"nccl_trace_rank_{r}.json",
                                 dump(r, ranks, entries, missing)),
                                ("logs", f"rank{r}.log", c10d_log(r, ranks)),
                                ("train", f"rank{r}.log", training_log(r, steps, missing))):
            with open(os.path.join(out, sub, name), "w") as f:
                f.write(text)
            total += len(text)
    print(f"{out}: {ranks} ranks, {total / 1e6:.0f} MB; rank {missing} is the one behind")


if __name__ == "__main__":
    main()
