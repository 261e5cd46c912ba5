// Which collective a hung job waits in, from flight-recorder dumps of its
// ranks (docs/health.md, "Flight recorder"): per process group the highest
// collective sequence id any rank recorded, the ranks that recorded it
// (arrived) and the members that did not (their last id is lower, or they
// left no dump), as torch's flight-recorder analyzer (fr_trace) matches
// collectives by process group and collective_seq_id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/flight_recorder.h"

namespace trainscope::analysis {

struct MissingRank {
  int64_t rank = 0;
  std::optional<int64_t> last_seq;  // its last collective in the group (none recorded: nullopt)
  std::string last_op;              // that collective's profiling name
  std::string last_state;
};

struct CollectiveHang {
  std::string pg_name, pg_desc;
  int64_t seq = 0;                          // collective_seq_id
  std::string op;                           // profiling_name, e.g. nccl:all_reduce
  std::vector<int64_t> arrived;             // ranks with the collective recorded
  std::vector<std::string> arrived_states;  // their state (scheduled / started / completed)
  std::vector<MissingRank> missing;         // members behind it
  std::vector<int64_t> no_dump;             // members without a dump
};

struct FlightRecorderReport {
  int64_t dumps = 0;
  std::vector<int64_t> ranks;  // the dumps' ranks
  std::vector<CollectiveHang> hangs;
};

FlightRecorderReport AnalyzeFlightRecorder(const std::vector<model::FlightRecorderDump>& dumps);

}  // namespace trainscope::analysis
