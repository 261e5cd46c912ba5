#!/usr/bin/env python3
"""Writes a one-rank torch_npu .db export (export_type=db) of ROWS compute kernels.

Usage: scripts/gen_profiler_db.py OUT_DIR [ROWS]

OUT_DIR/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db gets
the tables and indexes torch_npu writes (docs/ingest.md "The .db export"): per
kernel one TASK row and one COMPUTE_TASK_INFO row, every 97th row a
COMMUNICATION_OP with two HCCL plane tasks in TASK, a few hundred names in
STRING_IDS and 10 STEP_TIME ranges. 13 M rows make about 1 GB. The same shape
as bench/db_bench.cc's database, for timing `trainscope analyze` end to end
(docs/benchmarks.md).
"""
import os
import sqlite3
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 13_000_000
    folder = os.path.join(out, "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "ascend_pytorch_profiler_0.db")
    if os.path.exists(path):
        sys.exit(f"{path} exists; pass an empty OUT_DIR")
    db = sqlite3.connect(path)
    db.executescript("""
PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,
  globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,
  taskId INTEGER,modelId INTEGER, depth integer);
CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim INTEGER,
  mixBlockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,inputDataTypes INTEGER,
  inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,outputShapes INTEGER,
  attrInfo INTEGER, waitNs INTEGER);
CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,taskType INTEGER,
  planeId INTEGER,groupName INTEGER,notifyId INTEGER,rdmaType INTEGER,srcRank INTEGER,
  dstRank INTEGER,transportType INTEGER,size INTEGER,dataType INTEGER,linkType INTEGER,
  opId INTEGER);
CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId INTEGER,
  groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType INTEGER,
  algType INTEGER,count NUMERIC,opType INTEGER, waitNs INTEGER);
CREATE TABLE STEP_TIME (id INTEGER,startNs INTEGER,endNs INTEGER);
CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER,deviceId INTEGER);
INSERT INTO RANK_DEVICE_MAP VALUES (0, 0);
""")
    ops = ["MatMulV3", "Add", "Mul", "Cast", "RmsNorm", "FlashAttentionScore", "Transpose",
           "GatherV2"]
    cores = ["AI_CORE", "AI_VECTOR_CORE", "AI_VECTOR_CORE", "AI_VECTOR_CORE", "AI_VECTOR_CORE",
             "MIX_AIC", "AI_VECTOR_CORE", "AI_VECTOR_CORE"]
    strings = []
    for op, name in enumerate(ops):
        strings.append((1 + op, name))
        strings.append((11 + op, cores[op]))
        strings += [(100 + op * 40 + k, f"aclnn{name}_{name}AiCore_{name}{k}") for k in range(40)]
    strings += [(20, '"1,4096,1024;1024"'), (21, "DT_BF16;DT_BF16"), (22, "KERNEL_AICORE"),
                (23, "hcom_allReduce_"), (24, "Notify Wait")]
    strings += [(1000 + k, f"hcom_allReduce__{k}_0_1") for k in range(300)]
    db.executemany("INSERT INTO STRING_IDS VALUES (?, ?)", strings)

    first_ns = 1764246877073569640
    state = {"start": first_ns, "task": 0}

    def generate():
        tasks, infos, comms, planes = [], [], [], []
        for i in range(rows):
            op = i % 8
            dur = 1000 + (i * 7919) % 400000
            start = state["start"]
            if i % 97 == 0:
                comms.append((1000 + i % 300, start, start + dur, i))
                for k in range(2):
                    g = state["task"]
                    tasks.append((start + k, start + k + 10, i, g, 24, g))
                    planes.append((1000 + i % 300, g, i))
                    state["task"] += 1
            else:
                g = state["task"]
                tasks.append((start, start + dur, i, g, 22, g))
                infos.append((100 + op * 40 + i % 40, g, 11 + op, 1 + op))
                state["task"] += 1
            state["start"] = start + dur + 1500
            if len(tasks) >= 200_000:
                yield tasks, infos, comms, planes
                tasks, infos, comms, planes = [], [], [], []
        yield tasks, infos, comms, planes

    for tasks, infos, comms, planes in generate():
        db.executemany("INSERT INTO TASK VALUES (?,?,0,?,?,1,?,0,2,?,0,0)", tasks)
        db.executemany(
            "INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,40,0,?,?,0,21,20,0,21,20,0,0)", infos)
        db.executemany("INSERT INTO COMMUNICATION_OP VALUES (?,?,?,0,0,?,0,0,0,0,4096,23,0)",
                       comms)
        db.executemany(
            "INSERT INTO COMMUNICATION_TASK_INFO VALUES (?,?,24,0,0,0,0,0,0,0,0,0,0,?)", planes)
    span = state["start"] - first_ns
    db.executemany("INSERT INTO STEP_TIME VALUES (?, ?, ?)",
                   [(s, first_ns + span * s // 10, first_ns + span * (s + 1) // 10)
                    for s in range(10)])
    db.executescript("""
CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);
CREATE INDEX CommunicationTaskIndex ON COMMUNICATION_TASK_INFO (globalTaskId);
""")
    db.commit()
    db.close()
    print(f"{path}: {rows} rows, {os.path.getsize(path) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
