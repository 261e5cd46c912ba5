// The memory files of ASCEND_PROFILER_OUTPUT -> RankProfile::memory:
// memory_record.csv (allocator totals over time), operator_memory.csv (one
// row per tensor allocation), npu_module_mem.csv (driver components). Both
// header generations of each (docs/ingest.md); MB/KB -> bytes exactly.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// Each appends its rows to profile->memory and one ledger to
// profile->ledgers; InvalidInput when a required column is missing.
Status ParseMemoryRecord(std::string_view data, const std::string& file_label,
                         model::RankProfile* profile);
Status ReadMemoryRecordFile(const std::string& path, model::RankProfile* profile);

Status ParseOperatorMemory(std::string_view data, const std::string& file_label,
                           model::RankProfile* profile);
Status ReadOperatorMemoryFile(const std::string& path, model::RankProfile* profile);

Status ParseNpuModuleMem(std::string_view data, const std::string& file_label,
                         model::RankProfile* profile);
Status ReadNpuModuleMemFile(const std::string& path, model::RankProfile* profile);

}  // namespace trainscope::formats
