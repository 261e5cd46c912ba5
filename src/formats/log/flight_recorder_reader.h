// Reads flight-recorder dumps next to training logs (docs/health.md,
// "Flight recorder").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/flight_recorder.h"

namespace trainscope::formats {

// One JSON dump; the rank is the last number in |name|'s file name.
Result<model::FlightRecorderDump> ParseFlightRecorderJson(std::string_view json,
                                                          const std::string& name);

// One pickled dump (what the watchdog writes to TORCH_NCCL_DEBUG_INFO_TEMP_FILE:
// the same dict, pickled), read by the data-only pickle reader
// (formats/pickle): a dict with "version" and "entries". The rank is the
// last number in |name|'s file name.
Result<model::FlightRecorderDump> ParseFlightRecorderPickle(std::string_view bytes,
                                                            const std::string& name);

struct FlightRecorderScan {
  std::vector<model::FlightRecorderDump> dumps;  // by rank
  std::vector<std::string> pickles;              // the dumps of |dumps| read from a pickle
  std::vector<std::string> errors;               // a file that looked like a dump and was not
};

// The files of |dirs| whose name contains "nccl_trace", "fr_trace" or
// "flight_recorder" (JSON or pickled), and any other file that is a pickled
// dump by its content (nvidia-resiliency-ext names them `_dump_<RANK>`): a
// pickle whose top-level dict has "version" and "entries". Such an unnamed
// file that is not a dump is passed over without an error.
FlightRecorderScan ScanFlightRecorderDumps(const std::vector<std::string>& dirs);

}  // namespace trainscope::formats
