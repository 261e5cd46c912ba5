// A PyTorch NCCL flight-recorder dump, one per rank (docs/health.md): the
// JSON form torch._C._distributed_c10d._dump_nccl_trace_json() returns
// (FlightRecorder::dump_json: "version", "pg_config", "pg_status",
// "entries"). The pickled form TORCH_NCCL_DEBUG_INFO_TEMP_FILE writes is
// not read (it needs Python's unpickler); it is only recognised.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trainscope::model {

struct FlightRecorderEntry {
  std::string pg_name;                       // process_group[0]
  std::string pg_desc;                       // process_group[1]
  std::optional<int64_t> collective_seq_id;  // absent or not a number: unknown
  std::optional<int64_t> record_id;
  std::string profiling_name;  // "nccl:all_reduce"
  std::string state;           // scheduled | started | completed
  bool is_p2p = false;
  std::optional<int64_t> pg_id;                                 // "pg_id"
  std::optional<int64_t> p2p_seq_id;                            // "p2p_seq_id"
  std::vector<std::vector<int64_t>> input_sizes, output_sizes;  // "input_sizes", "output_sizes"
  std::vector<std::string> input_dtypes, output_dtypes;         // "input_dtypes", "output_dtypes"
  std::optional<int64_t> time_created_ns;                       // "time_created_ns"
  std::optional<int64_t> timeout_ms;                            // "timeout_ms"
  std::optional<double> duration_ms;  // "duration_ms": only when timing was enabled
};

// pg_status[pg]: the last collective sequence ids the process group enqueued, started, completed.
struct FlightRecorderPgStatus {
  std::optional<int64_t> last_enqueued, last_started, last_completed;
};

struct FlightRecorderDump {
  std::string path;
  int64_t rank = -1;  // from the file name's last number (the dump does not name it)
  std::map<std::string, std::vector<int64_t>> pg_ranks;  // pg_config: name -> global ranks
  std::vector<FlightRecorderEntry> entries;
  std::string version;                                      // "version"
  std::map<std::string, std::string> pg_descs;              // pg_config: name -> "desc"
  std::map<std::string, FlightRecorderPgStatus> pg_status;  // "pg_status": pg name/id -> last ids
  bool from_pickle = false;                                 // read from the pickled form
};

}  // namespace trainscope::model
