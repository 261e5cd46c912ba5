#!/usr/bin/env python3
"""Writes a Megatron-LM training log of about N bytes for the `trainscope
health` benchmark (docs/benchmarks.md): training_log's fields, 330 B per
line, one foreign line (the memory report) after every ninth iteration,
timestamps one second apart. Usage: gen_training_log.py OUT BYTES"""
import sys
target = int(sys.argv[2])
out = open(sys.argv[1], "w")
n = 0; step = 0; sec = 0
buf = []
size = 0
while size < target:
    step += 1; sec += 1
    h, m, s = (sec // 3600) % 24, (sec // 60) % 60, sec % 60
    day = 1 + sec // 86400
    line = (f" [2024-05-{day:02d} {h:02d}:{m:02d}:{s:02d}] iteration {step:8d}/{10000000:8d} |"
            f" consumed samples: {step * 256:12d} | elapsed time per iteration (ms): {1000.0 + (step * 7) % 13:.1f} |"
            f" throughput per GPU (TFLOP/s/GPU): {180.0 + step % 3:.1f} | learning rate: {3.0e-4:.6E} |"
            f" global batch size: {256:5d} | lm loss: {2.0 + 6.0 / (1 + step / 1000):.6E} | loss scale: 1.0 |"
            f" grad norm: {1.0 + (step % 10) / 100:.3f} | number of skipped iterations:   0 | number of nan iterations:   0 |\n")
    buf.append(line); size += len(line)
    if step % 9 == 0:
        l2 = f"[Rank 0] (after {step} iterations) memory (MB) | allocated: 1234.5 | max allocated: 2345.6\n"
        buf.append(l2); size += len(l2)
    if len(buf) > 10000:
        out.write("".join(buf)); buf = []
out.write("".join(buf))
