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

struct FlightRecorderScan {
  std::vector<model::FlightRecorderDump> dumps;  // by rank
  std::vector<std::string> pickles;              // dumps in the pickled form: named, not read
  std::vector<std::string> errors;               // a file that looked like a dump and was not
};

// The files of |dirs| whose name contains "nccl_trace", "fr_trace" or
// "flight_recorder".
FlightRecorderScan ScanFlightRecorderDumps(const std::vector<std::string>& dirs);

}  // namespace trainscope::formats
