// kernel_details.csv -> model::DeviceEvents.
//
// One row per device task (compute kernel or whole HCCL op). Columns are
// looked up by name with aliases, so every header generation from 2023 to
// CANN 8.3 / Block Num (2026) parses; see docs/ascend-formats.md 2.2.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

struct KernelDetailsOptions {
  // Threads reading chunks of the file at once (formats/csv/csv_chunks.h).
  unsigned threads = 1;
  // About this many bytes per chunk. Small enough that both cores get work
  // and the pages of the chunks being read (two at a time on two cores, at
  // the read's memory peak beside the table) are a sliver of the whole;
  // big enough that the per-chunk strings, interned again when the chunks
  // join, cost little (4 MiB made a one-thread read 13 % slower than 8 or
  // 16: docs/benchmarks.md). Tests use tiny chunks to exercise splitting.
  size_t chunk_bytes = size_t{8} << 20;
  // Called with each byte range [begin, end) the reader is done with (a
  // mapped file drops those pages: MappedFile::Release): each chunk once
  // after it is read, so the file is never resident whole. Bytes released
  // may be read again (a mapped file's pages come back from the page cache).
  std::function<void(size_t begin, size_t end)> release;
};

// Parses a whole kernel_details.csv held in memory and appends its rows to
// profile->device_events (then sorts them by start), plus one RowLedger labelled
// |file_label| to profile->ledgers. Fails with InvalidInput only when the
// header lacks Name, Start Time or Duration; bad rows are skipped and
// counted in the ledger. Usable without files (tests, fuzzer, benchmark).
// Whatever the threads and chunk size, the result is what one reader
// reading the file front to back makes of it (rows, their order, strings,
// the ledger and its samples' lines).
Status ParseKernelDetails(std::string_view data, const std::string& file_label,
                          model::RankProfile* profile, const KernelDetailsOptions& options = {});

// Maps |path| and calls ParseKernelDetails with the path as label, on
// |threads| threads, releasing the file's pages behind the reader.
Status ReadKernelDetailsFile(const std::string& path, model::RankProfile* profile,
                             unsigned threads = 1);

// The op type of a Level0 row, whose Type column is N/A, from its name:
// "aclnnAdd_AddAiCore_Add" -> "Add", "trans_TransData_0" -> "TransData",
// "Conv2D1" -> "Conv2D", "hcom_allReduce__586_0_1" -> "hcom_allReduce_".
// Returns a view into |name|.
std::string_view DeriveOpTypeFromName(std::string_view name);

// The "OP State" cell (CANN >= 8.0): "dynamic" / "static" in any case;
// "N/A", empty or anything else is unknown.
model::OpState ParseOpState(std::string_view cell);

}  // namespace trainscope::formats
