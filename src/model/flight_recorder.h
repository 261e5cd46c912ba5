// A PyTorch NCCL flight-recorder dump, one per rank (docs/health.md): the
// JSON form torch._C._distributed_c10d._dump_nccl_trace_json() returns
// (FlightRecorder::dump_json: "version", "pg_config", "pg_status",
// "entries"), or the pickled form of the same dict that the watchdog writes
// (TORCH_NCCL_DEBUG_INFO_TEMP_FILE), read by a data-only pickle reader.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trainscope::model {

// A value many entries of a dump share, kept once and pointed to (empty
// when none was given). A dump's 2,000 entries name a few process groups,
// collectives, states, shapes and dtype lists: held by value, each entry's
// texts and lists took ~400 bytes, and 1,024 ranks' dumps 1.3 GB in triage
// (docs/benchmarks.md, "Flight-recorder entries share their values").
template <typename T>
class SharedValue {
 public:
  SharedValue() = default;
  explicit SharedValue(std::shared_ptr<const T> value) : value_(std::move(value)) {}
  // A value of its own, shared with no other entry (tests build entries so).
  static SharedValue Own(T value) {
    return SharedValue(std::make_shared<const T>(std::move(value)));
  }

  const T& operator*() const { return value_ ? *value_ : Empty(); }
  const T* operator->() const { return &**this; }

  friend bool operator==(const SharedValue& a, const SharedValue& b) { return *a == *b; }
  friend bool operator==(const SharedValue& a, const T& b) { return *a == b; }

 private:
  static const T& Empty() {
    static const T empty;
    return empty;
  }
  std::shared_ptr<const T> value_;
};

using TensorShapes = std::vector<std::vector<int64_t>>;  // one shape per tensor
using TensorDtypes = std::vector<std::string>;           // one dtype per tensor

struct FlightRecorderEntry {
  SharedValue<std::string> pg_name;          // process_group[0]
  SharedValue<std::string> pg_desc;          // process_group[1]
  std::optional<int64_t> collective_seq_id;  // absent or not a number: unknown
  std::optional<int64_t> record_id;
  SharedValue<std::string> profiling_name;  // "nccl:all_reduce"
  SharedValue<std::string> state;           // scheduled | started | completed
  bool is_p2p = false;
  std::optional<int64_t> pg_id;                           // "pg_id"
  std::optional<int64_t> p2p_seq_id;                      // "p2p_seq_id"
  SharedValue<TensorShapes> input_sizes, output_sizes;    // "input_sizes", "output_sizes"
  SharedValue<TensorDtypes> input_dtypes, output_dtypes;  // "input_dtypes", "output_dtypes"
  std::optional<int64_t> time_created_ns;                 // "time_created_ns"
  std::optional<int64_t> timeout_ms;                      // "timeout_ms"
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
