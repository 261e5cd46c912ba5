// kernel_details.csv -> model::DeviceEvents.
//
// One row per device task (compute kernel or whole HCCL op). Columns are
// looked up by name with aliases, so every header generation from 2023 to
// CANN 8.3 / Block Num (2026) parses; see docs/ascend-formats.md 2.2.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Parses a whole kernel_details.csv held in memory and appends its rows to
// profile->device_events (then sorts them by start), plus one RowLedger labelled
// |file_label| to profile->ledgers. Fails with InvalidInput only when the
// header lacks Name, Start Time or Duration; bad rows are skipped and
// counted in the ledger. Usable without files (tests, fuzzer, benchmark).
Status ParseKernelDetails(std::string_view data, const std::string& file_label,
                          model::RankProfile* profile);

// Maps |path| and calls ParseKernelDetails with the path as label.
Status ReadKernelDetailsFile(const std::string& path, model::RankProfile* profile);

// The op type of a Level0 row, whose Type column is N/A, from its name:
// "aclnnAdd_AddAiCore_Add" -> "Add", "trans_TransData_0" -> "TransData",
// "Conv2D1" -> "Conv2D", "hcom_allReduce__586_0_1" -> "hcom_allReduce_".
// Returns a view into |name|.
std::string_view DeriveOpTypeFromName(std::string_view name);

// The "OP State" cell (CANN >= 8.0): "dynamic" / "static" in any case;
// "N/A", empty or anything else is unknown.
model::OpState ParseOpState(std::string_view cell);

}  // namespace trainscope::formats
