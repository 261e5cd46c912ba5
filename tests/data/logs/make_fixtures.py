#!/usr/bin/env python3
"""Writes the training-log fixtures of tests/unit/training_log_test.cc from
the frameworks' own format strings (docs/health.md). Deterministic; rerun
after a change and commit the outputs. Each format gets a clean log and a
planted one: loss spike at step 150, grad-norm explosion at step 250, a
600 s silence after step 310 (where the format prints timestamps), NaN
loss and grad norm at step 380; plus damaged and foreign lines. The counts
each test pins are printed here (lines, records, skipped by reason)."""
import datetime
import gzip
import math

STEPS = list(range(10, 410, 10))  # log interval 10, 40 records
T0 = datetime.datetime(2024, 5, 1, 10, 0, 0)


def series(planted):
    out = []
    t = T0
    for i, step in enumerate(STEPS):
        loss = 2.0 + 6.0 * math.exp(-step / 150.0) + 0.01 * ((i * 7) % 5 - 2)
        grad = 1.0 + 0.1 * math.sin(i)
        ms = 1000.0 + 5.0 * ((i * 3) % 4)
        if i > 0:
            t += datetime.timedelta(seconds=10)
        if planted:
            if step == 150:
                loss *= 1.5
            if step == 250:
                grad = 1.0e6
            if step == 320:
                t += datetime.timedelta(seconds=600)
            if step == 380:
                loss = float("nan")
                grad = float("nan")
        out.append((step, loss, grad, ms, t))
    return out


def megatron(planted):
    lines = ["using world size: 8, data-parallel size: 8", "> building GPT model ..."]
    for step, loss, grad, ms, t in series(planted):
        nan = 1 if math.isnan(loss) else 0
        lines.append(
            f" [{t.strftime('%Y-%m-%d %H:%M:%S')}] iteration {step:8d}/{1000:8d} |"
            f" consumed samples: {step * 256:12d} |"
            f" elapsed time per iteration (ms): {ms:.1f} |"
            f" throughput per GPU (TFLOP/s/GPU): {180.0 + (step % 3):.1f} |"
            f" learning rate: {3.0e-4:.6E} | global batch size: {256:5d} |"
            f" lm loss: {loss:.6E} | loss scale: {1.0:.1f} | grad norm: {grad:.3f} |"
            f" number of skipped iterations: {nan:3d} | number of nan iterations: {nan:3d} |")
        if step == 100:
            lines.append("[Rank 0] (after 100 iterations) memory (MB) | allocated: 1234.5 | max allocated: 2345.6")
            # cut off mid-line by another rank's output
            lines.append(" [2024-05-01 10:01:35] iteration      100/    1000 | consumed samples: 25600 | elapsed time per itera[rank3]: warning")
            lines.append(" [2024-05-01 10:01:35] iteration      100/    1000 | lm loss: 7.1x | grad norm: 1.000 |")
    if planted:
        lines.append("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 3; 60.00 GiB total capacity)")
        lines.append("[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 milliseconds before timing out.")
    return "\n".join(lines) + "\n"


def titan(planted):
    lines = ["[rank0]:[titan] 2024-05-01 09:59:00,000 - root - INFO - Training starts at step 1."]
    for step, loss, grad, ms, t in series(planted):
        stamp = t.strftime('%Y-%m-%d %H:%M:%S') + ",000"
        lines.append(
            f"[rank0]:[titan] {stamp} - root - INFO - \x1b[31mstep: {step:2}  "
            f"\x1b[32mloss: {loss:7.4f}  \x1b[38;2;180;60;0mgrad_norm: {grad:7.4f}  "
            f"\x1b[33mmemory: {30.12:5.2f}GiB({38.05:.2f}%)  \x1b[34mtps: {6123 + step % 7:,}  "
            f"\x1b[36mtflops: {350.12:,.2f}  \x1b[35mmfu: {35.40:.2f}%\x1b[39m")
        if step == 100:
            lines.append("[rank0]:[titan] 2024-05-01 10:01:31,000 - root - WARNING - Dataloader is slow")
            lines.append(f"[rank0]:[titan] {stamp} - root - INFO - step: 101  loss:  2.1000  memory: 30.12GiB(38.05%)  tps: 6,123  tflops: 350.12  mfu: 35")
    return "\r\n".join(lines) + "\r\n"  # a CRLF log


def hf(planted):
    lines = [" 10%|#         | 10/400 [00:10<06:30,  1.00s/it]"]
    for step, loss, grad, ms, t in series(planted):
        lines.append(f"{{'loss': {loss!r}, 'grad_norm': {grad!r}, 'learning_rate': 4.9e-05, 'epoch': {step / 400:.2f}}}")
        if step == 100:
            lines.append("{'eval_loss': 2.5, 'eval_runtime': 3.2, 'epoch': 0.25}")
            lines.append("{'loss': 2.1, 'grad_")
    lines.append("{'train_runtime': 400.0, 'train_samples_per_second': 2.5, 'train_loss': 3.1, 'epoch': 1.0}")
    return "\n".join(lines)  # cut off: no newline at the end


def jsonl(planted):
    lines = []
    for step, loss, grad, ms, t in series(planted):
        lv = "NaN" if math.isnan(loss) else repr(loss)
        gv = "NaN" if math.isnan(grad) else repr(grad)
        lines.append(f'{{"timestamp": "{t.isoformat()}", "step": {step}, "loss": {lv}, "grad_norm": {gv}, "learning_rate": 5e-05}}')
        if step == 100:
            lines.append('{"step": 100, "loss": "abc"}')
            lines.append("plain text from a library")
    return "\n".join(lines) + "\n"


def xtuner(planted):
    """XTuner V1 trainer._log_step's f-string behind its loguru format
    "[XTuner][{time:YYYY-MM-DD HH:mm:ss}][{level}] {message}"."""
    lines = ["[XTuner][2024-05-01 09:59:00][INFO] Using FSDP with 8 ranks"]
    total = 0
    for step, loss, grad, ms, t in series(planted):
        total += 32768 * 10
        losses = f"local_loss: {loss:.8f}, reduced_llm_loss: {loss:.8f}"
        lines.append(
            f"[XTuner][{t.strftime('%Y-%m-%d %H:%M:%S')}][INFO] Epoch 1 Step {step}/{400} "
            f"data_time: {0.0123:.4f} lr: {1e-5:.6e} time: {ms / 1000:.4f} "
            f"text_tokens: {32768} total_consumed_tokens: {total} "
            f"{losses} grad_norm: {grad:.8f} max_memory: {30.12:.2f} GB "
            f"reserved_memory: {35.0:.2f} GB tgs: {32768 / (ms / 1000):.1f} "
            f"e2e_tgs: {30000.0:.1f} eta: 0:{(400 - step) // 60:02d}:{(400 - step) % 60:02d} ")
        if step == 100:
            lines.append("[XTuner][2024-05-01 10:01:35][WARNING] Step 100/400 skipped a checkpoint save")
            lines.append(f"[XTuner][2024-05-01 10:01:35][INFO] Epoch 1 Step 101/400 data_time: 0.0123 lr: 1.000000e-05 time: 1.0000 text_tokens: 32768 total_consumed_tokens: 1 reduced_llm_loss: 2.1")
    return "\n".join(lines) + "\n"


def keyvalue(planted):
    lines = []
    for step, loss, grad, ms, t in series(planted):
        lines.append(f"{t.strftime('%Y-%m-%d %H:%M:%S')} step={step} loss={loss:.5f} grad_norm={grad:.4f} step_time_ms={ms:.1f} tps=5200")
        if step == 100:
            lines.append("2024-05-01 10:01:30 step=101 loss=x grad_norm=1.0")
    return "\n".join(lines) + "\n"


def megatron_steptime(drift, warmup, periodic):
    """Step-time shapes: a slow warm-up (3 records), a 20% linear drift over
    the run, checkpoint-like stalls every 100 steps (20 s over the 10-step
    interval: +2,000 ms per step in that record). 100 records, steps 10-1000."""
    lines = ["using world size: 8, data-parallel size: 8"]
    t = T0
    for i in range(100):
        step = 10 * (i + 1)
        ms = 1000.0 + 4.0 * ((i * 7) % 5 - 2)
        if drift:
            ms *= 1.0 + 0.2 * i / 99
        if warmup and i < 3:
            ms = [3000.0, 2000.0, 1500.0][i]
        if periodic and step % 100 == 0:
            ms += 2000.0
        t += datetime.timedelta(milliseconds=ms * 10)
        loss = 2.0 + 6.0 * math.exp(-step / 300.0)
        lines.append(
            f" [{t.strftime('%Y-%m-%d %H:%M:%S')}] iteration {step:8d}/{1000:8d} |"
            f" consumed samples: {step * 256:12d} |"
            f" elapsed time per iteration (ms): {ms:.1f} |"
            f" learning rate: {3.0e-4:.6E} | global batch size: {256:5d} |"
            f" lm loss: {loss:.6E} | loss scale: {1.0:.1f} | grad norm: {1.0:.3f} |"
            f" number of skipped iterations: {0:3d} | number of nan iterations: {0:3d} |")
    return "\n".join(lines) + "\n"


def theil_sen_drift(ms, steps, skip):
    """The reader's step-time drift, computed here independently: Theil-Sen
    through bucket medians (<= 64 buckets) after |skip| warm-up records."""
    import statistics
    ms, steps = ms[skip:], steps[skip:]
    m = len(ms)
    b = min(64, m)
    xs, ys = [], []
    for k in range(b):
        lo, hi = k * m // b, (k + 1) * m // b
        xs.append(statistics.median(steps[lo:hi]))
        ys.append(statistics.median(ms[lo:hi]))
    slopes = [(ys[j] - ys[i]) / (xs[j] - xs[i]) for i in range(b) for j in range(i + 1, b) if xs[j] > xs[i]]
    slope = statistics.median(slopes)
    return 100 * slope * (steps[-1] - steps[0]) / statistics.median(ms)


for name, drift, warmup, periodic in [("steptime_drift", True, True, False),
                                      ("steptime_periodic", False, False, True)]:
    text = megatron_steptime(drift, warmup, periodic)
    with open(f"megatron_{name}.log", "w") as f:
        f.write(text)
    ms = [float(l.split("elapsed time per iteration (ms): ")[1].split(" ")[0]) for l in text.splitlines()[1:]]
    steps = [10 * (i + 1) for i in range(100)]
    skip = 3 if warmup else 0
    print(f"megatron_{name}.log drift_pct {theil_sen_drift(ms, steps, skip):.4f}",
          "steady", sorted(ms[50:])[24:26])


for name, fn in [("megatron", megatron), ("torchtitan", titan), ("hf_trainer", hf),
                 ("jsonl", jsonl), ("keyvalue", keyvalue), ("xtuner", xtuner)]:
    for planted in (False, True):
        text = fn(planted)
        path = f"{name}_{'planted' if planted else 'clean'}.log"
        with open(path, "w", newline="") as f:
            f.write(text)
        n = text.count("\n") + (0 if text.endswith("\n") else 1)
        print(path, "lines", n)
with open("megatron_planted.log", "rb") as f:
    data = f.read()
with gzip.GzipFile("megatron_planted.log.gz", "wb", mtime=0) as f:
    f.write(data)


# --scaling: TorchTitan logs of two ranks per run; tokens/s per device of
# rank 0 / rank 1: 8 devices 6000 / 6100, 16 devices 5700 / 5800, 64
# devices 4800 / 4900 (a run's value is the median over its logs: the mean
# of the two), so the efficiency vs 8 devices is 5750/6050 = 95.04% and
# 4850/6050 = 80.17%.
import os
for devices, base in ((8, 6000), (16, 5700), (64, 4800)):
    os.makedirs(f"scaling/run{devices}", exist_ok=True)
    for rank in (0, 1):
        lines = []
        t = T0
        for i, step in enumerate(range(10, 130, 10)):
            t += datetime.timedelta(seconds=10)
            tps = base + 100 * rank + (7 * i) % 5 - 2
            lines.append(f"[rank{rank}]:[titan] {t.strftime('%Y-%m-%d %H:%M:%S')},000 - root - INFO - "
                         f"step: {step:2}  loss: {3.0 - i * 0.01:7.4f}  memory: 30.12GiB(38.05%)  "
                         f"tps: {tps:,}  tflops: 300.00  mfu: 30.00%")
        with open(f"scaling/run{devices}/rank{rank}.log", "w") as f:
            f.write("\n".join(lines) + "\n")


# One run's ranks in separate files (rank_files/rank0.log .. rank3.log):
# Megatron lines naming no rank, 12 iterations each; rank 2's steps take
# 1300 ms, the others' 1000-1010 ms: rank 2 is 30% over the median of the
# ranks' medians (a rank-outlier on step time); the losses agree.
os.makedirs("rank_files", exist_ok=True)
for rank in range(4):
    lines = ["using world size: 4, data-parallel size: 4"]
    for i, step in enumerate(range(10, 130, 10)):
        t = T0 + datetime.timedelta(seconds=10 * i)
        ms = (1300.0 if rank == 2 else 1000.0) + 5.0 * ((i + rank) % 3)
        loss = 3.0 - 0.02 * i + 0.001 * rank
        lines.append(
            f" [{t.strftime('%Y-%m-%d %H:%M:%S')}] iteration {step:8d}/{1000:8d} |"
            f" consumed samples: {step * 256:12d} |"
            f" elapsed time per iteration (ms): {ms:.1f} |"
            f" learning rate: {3.0e-4:.6E} | global batch size: {256:5d} |"
            f" lm loss: {loss:.6E} | loss scale: {1.0:.1f} | grad norm: {1.0:.3f} |"
            f" number of skipped iterations: {0:3d} | number of nan iterations: {0:3d} |")
    with open(f"rank_files/rank{rank}.log", "w") as f:
        f.write("\n".join(lines) + "\n")


# A hung job: four ranks' flight-recorder dumps in the JSON form of
# FlightRecorder::dump_json (torch._C._distributed_c10d._dump_nccl_trace_json)
# beside a log. Ranks 0-2 reached collective #42 (nccl:all_reduce, started);
# rank 3 stopped after #41 (completed). flight_pickle/ holds ranks 0 and 3
# pickled (protocol 2, as the watchdog writes them): one named like a dump,
# one named as nvidia-resiliency-ext does (`_dump_3`, found by its content).
import json
import pickle
fr_dumps = {}
os.makedirs("flight", exist_ok=True)
with open("flight/rank0.log", "w") as f:
    f.write(keyvalue(False))
for rank in range(4):
    last = 41 if rank == 3 else 42
    entries = []
    for seq in range(39, last + 1):
        state = "completed" if seq < 42 else "started"
        entries.append({
            "record_id": seq - 1, "pg_id": 0, "process_group": ["0", "default_pg"],
            "thread_name": "pt_main_thread", "thread_id": "140000",
            "collective_seq_id": seq, "p2p_seq_id": 0, "op_id": seq,
            "profiling_name": "nccl:all_reduce", "time_created_ns": 1714557600000000000 + seq,
            "input_sizes": [[1024]], "input_dtypes": ["Float"], "output_sizes": [[1024]],
            "output_dtypes": ["Float"], "state": state,
            "time_discovered_started_ns": 1714557600000000100 + seq,
            "time_discovered_completed_ns": 1714557600000000200 + seq if state == "completed" else 0,
            "retired": state == "completed", "timeout_ms": 600000, "is_p2p": False})
    entries.append({"record_id": 99, "pg_id": 0, "process_group": ["0", "default_pg"],
                    "collective_seq_id": 0, "p2p_seq_id": 7, "op_id": 99,
                    "profiling_name": "nccl:send 0->1", "state": "completed", "is_p2p": True})
    dump = {"version": "2.4", "comm_lib_version": "2.21.5",
            "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}},
            "pg_status": {"0": {"last_enqueued_collective": str(last),
                                "last_started_collective": str(last),
                                "last_completed_collective": str(41)}},
            "entries": entries}
    with open(f"flight/nccl_trace_rank_{rank}.json", "w") as f:
        json.dump(dump, f)
    fr_dumps[rank] = dump
os.makedirs("flight_pickle", exist_ok=True)
with open("flight_pickle/rank0.log", "w") as f:
    f.write(keyvalue(False))
with open("flight_pickle/nccl_trace_rank_0", "wb") as f:
    pickle.dump(fr_dumps[0], f, protocol=2)
with open("flight_pickle/_dump_3", "wb") as f:
    pickle.dump(fr_dumps[3], f, protocol=2)


# A job that stopped unevenly (triage_steps/): four ranks' Megatron logs,
# one file per rank, naming no rank in their lines; ranks 0, 2 and 3 reach
# iteration 120, rank 1 logs iteration 80 last (at 10:01:10) and nothing
# after. No dump and no error line: the training logs alone tell the rank.
os.makedirs("triage_steps", exist_ok=True)
for rank in range(4):
    last = 80 if rank == 1 else 120
    lines = ["using world size: 4, data-parallel size: 4"]
    for i, step in enumerate(range(10, last + 1, 10)):
        t = T0 + datetime.timedelta(seconds=10 * i)
        lines.append(
            f" [{t.strftime('%Y-%m-%d %H:%M:%S')}] iteration {step:8d}/{1000:8d} |"
            f" consumed samples: {step * 256:12d} |"
            f" elapsed time per iteration (ms): {1000.0:.1f} |"
            f" learning rate: {3.0e-4:.6E} | global batch size: {256:5d} |"
            f" lm loss: {3.0 - 0.02 * i:.6E} | loss scale: {1.0:.1f} | grad norm: {1.0:.3f} |"
            f" number of skipped iterations: {0:3d} | number of nan iterations: {0:3d} |")
    with open(f"triage_steps/rank{rank}.log", "w") as f:
        f.write("\n".join(lines) + "\n")
