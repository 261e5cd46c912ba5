// Reads what a failed job leaves behind for `trainscope triage`
// (docs/triage.md): NCCL / c10d logs, torchrun error.json files, scheduler
// messages, Ascend CANN plogs and device logs, and flight-recorder dumps,
// laid out in any folders (mind-cluster's worker-N/process_log/... too).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/failure_log.h"

namespace trainscope::formats {

// The failure lines of one text log (any of the kinds above). |path| names
// the file (its worker-N / device-N folders and plog-PID / device-PID name
// are read from it). Lines that say nothing of a failure are counted only.
model::FailureLog ParseFailureLog(std::string_view text, const std::string& path);

// "2025-01-24-11:24:07.908.424" (plog) or "2024-11-08 21:21:27,123" /
// "2024-11-08T21:21:27.123" at the start of |clock|: nanoseconds of that
// wall time counted as UTC; nullopt when it is neither.
std::optional<int64_t> ParseLogClock(std::string_view clock);

// A flight-recorder dump file in either form: JSON, or the pickle
// (first byte 0x80) read by the data-only pickle reader.
struct FlightRecorderFile {
  std::optional<model::FlightRecorderDump> dump;
  std::string error;  // a dump that could not be read
};
FlightRecorderFile ReadFlightRecorderFile(std::string_view bytes, const std::string& path);

// Every file of |paths| (directories walked at any depth, never through a
// directory link), each sniffed and read, or listed with why it was not. A
// text file is read for failure lines and, by `health`'s reader, for
// training lines (how far each rank got); a gzip file for training lines.
model::TriageInputs LoadTriageInputs(const std::vector<std::string>& paths, unsigned threads);

}  // namespace trainscope::formats
