// The readers of the rank database's table groups (internal to ascend_db/),
// one file each; ReadAscendProfilerDb (ascend_db_reader.cc) calls them in
// this order. Each appends its ledgers to the profile; a table the export
// lacks is noted in missing_files or simply absent, as each says.
#pragma once

#include <optional>
#include <vector>

#include "core/row_ledger.h"
#include "core/status.h"
#include "formats/ascend_db/ascend_db_reader.h"
#include "formats/ascend_db/db_tables.h"
#include "model/rank_profile.h"

namespace trainscope::formats::ascend_db {

// db_steps.cc: STEP_TIME, sorted by start with each range's reach (empty,
// and noted, when the table is absent: the capture is one step).
Result<std::vector<StepRange>> ReadStepTime(const SqliteDb& db, model::RankProfile* profile);

// db_communication.cc: COMMUNICATION_OP, one row per collective or
// point-to-point op, its whole span (kernel_details.csv's hcom_* rows).
// The rows go to |ops| (sorted by start, stable) and the ledger to
// |ledger_out|: ReadComputeTasks merges them into the event table in start
// order, so a capture whose TASK rows come in time order needs no sort.
// Each op's message and group go to profile->communication.messages.
Status ReadCommunicationOps(const DbContext& ctx, std::vector<model::DeviceEvent>* ops,
                            std::optional<RowLedger>* ledger_out);

// db_kernels.cc: TASK LEFT JOIN COMPUTE_TASK_INFO, one kernel per compute
// task (PMU ratios from TASK_PMU_INFO), with the communication ops of |ops|
// (sorted by start) merged in before the first task that starts after them.
Status ReadComputeTasks(const DbContext& ctx, const std::vector<model::DeviceEvent>& ops,
                        const DbReadOptions& options);

// db_memory.cc: MEMORY_RECORD, NPU_MEM, OP_MEMORY, NPU_MODULE_MEM (each
// optional) into profile->memory, and the chip's name from NPU_INFO.
Status ReadMemoryTables(const DbContext& ctx);

// db_host_ops.cc: host ops, their call stacks and launch links into
// profile->timeline; steps from the ProfilerStep#N ops. Without
// PYTORCH_API the rank has no timeline (the analyses that need host ops
// say so). Needs the device events sorted by start.
Status ReadHostOps(const DbContext& ctx);

// db_steps.cc: OVERLAP_ANALYSIS into timeline.overlap, and per STEP_TIME
// step its sums as a step_trace row (ReadAnalysisDb prefers analysis.db's
// StepTraceTime and checks it against these rows).
Status ReadOverlapAnalysis(const DbContext& ctx);

}  // namespace trainscope::formats::ascend_db
