// Timeline: host ops, flows, steps and trace metadata of one rank, from
// Chrome-trace JSON (Kineto traces, Ascend trace_view.json).
//
// One model for GPU and NPU. The trace's device activities are not here:
// they are rows of the rank's one DeviceEvents table (device_events.h), and
// flows and launch links point into it. Host ops are stored as columns (a
// rank has 10^5-10^6 events; analyses scan one or two columns), declared once
// as a column list (columnar.h generates the row struct, Reserve, Append, Row
// and Permute).
// All strings are StringIds into the owning RankProfile's StringPool; all
// times are int64 ns (never through double: epoch-µs timestamps do not fit).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/string_pool.h"
#include "model/activity_kind.h"
#include "model/columnar.h"
#include "model/device_events.h"

namespace trainscope::model {

// Metadata Kineto copies from record_param_comms onto a collective kernel.
struct CollectiveArgs {
  StringId name = StringPool::kEmpty;  // "Collective name": allreduce, _allgather_base, ...
  StringId dtype = StringPool::kEmpty;
  int64_t in_nelems = -1;
  int64_t out_nelems = -1;
  int32_t group_size = -1;
  StringId pg_name = StringPool::kEmpty;
  StringId pg_desc = StringPool::kEmpty;
  StringId pg_ranks = StringPool::kEmpty;  // verbatim, e.g. "[0, 1]"
};

// A host op's source (HostOp::source) is the user frames of its call stack,
// innermost first, one per line ("model/qwen3_5.py(29): rms_norm\n
// train.py(80): step"): the innermost names the line, the others let ops
// called from different lines find the frame they share.
inline std::string_view InnermostUserFrame(std::string_view frames) {
  return frames.substr(0, frames.find('\n'));
}

// pid/tid are int64 (HostOps keeps them once per thread). Non-numeric pids/tids ("Spans", "GPU 0
// Counters") get a synthetic id SyntheticThreadId(StringId) so that they never collide with OS ids.
inline int64_t SyntheticThreadId(StringId id) { return -(int64_t{1} << 40) - int64_t{id}; }
inline bool IsSyntheticThreadId(int64_t value) {
  return value <= -(int64_t{1} << 40) && value > -(int64_t{1} << 40) - (int64_t{1} << 32);
}
inline StringId SyntheticThreadName(int64_t value) {
  return static_cast<StringId>(-(int64_t{1} << 40) - value);
}

// clang-format off
#define TS_HOST_OP_COLUMNS(X)                                                                     \
  X(int32_t, thread, 0)        /* index into HostOps::threads: the op's (pid, tid) */             \
  X(int64_t, start_ns, 0)                                                                         \
  X(int64_t, duration_ns, 0)                                                                      \
  X(StringId, name, StringPool::kEmpty)                                                           \
  X(StringId, category, StringPool::kEmpty)                                                       \
  X(int32_t, depth, 0)         /* strict time nesting on (pid, tid); 0 = top level */             \
  X(int32_t, parent, kNoIndex) /* enclosing op on the same thread */                              \
  X(int64_t, external_id, kNoId)                                                                  \
  X(int64_t, correlation, kNoId) /* runtime calls (cudaLaunchKernel, hipLaunchKernel, ...) */     \
  /* Sparse: stored only once some op has one (with_stack, record_shapes) */                      \
  X(columnar::Sparse<StringId>, source, StringPool::kEmpty) /* user frames of "Call stack" (UserFrames) */ \
  X(columnar::Sparse<StringId>, input_dims, StringPool::kEmpty) /* "Input Dims", raw JSON array */ \
  X(columnar::Sparse<StringId>, input_types, StringPool::kEmpty) /* "Input type", raw JSON array */
// clang-format on

TS_COLUMNAR_TABLE(HostOp, HostOpColumns, TS_HOST_OP_COLUMNS, start_ns)

// A host thread: the (pid, tid) its ops were recorded on.
struct HostThread {
  int64_t pid = 0;
  int64_t tid = 0;
};

// Threads numbered by first appearance: a trace has tens of threads and
// millions of events, so an event names its thread by a 4-byte index into
// |threads| instead of two int64s. Index 0 is (0, 0), the thread of an event
// whose thread is never set.
class ThreadTable {
 public:
  // The index of (pid, tid) in |threads|, added when new.
  int32_t ThreadOf(int64_t pid, int64_t tid);

  std::vector<HostThread> threads{HostThread{}};

 private:
  std::map<std::pair<int64_t, int64_t>, int32_t> thread_index_{{{0, 0}, 0}};
  int32_t last_thread_ = 0;  // events come in runs on one thread
};

// Host ops name their thread by an index into |threads|.
class HostOps : public HostOpColumns, public ThreadTable {
 public:
  int64_t end_ns(size_t i) const { return start_ns[i] + duration_ns[i]; }
  int64_t pid(size_t i) const { return threads[static_cast<size_t>(thread[i])].pid; }
  int64_t tid(size_t i) const { return threads[static_cast<size_t>(thread[i])].tid; }
};

// A resolved flow arrow host op -> device activity (ac2g, async,
// async_cpu_to_gpu, async_npu/torch_to_npu, HostToDevice).
struct Flow {
  int64_t id = 0;  // flow ids can exceed 2^53 (Ascend): kept as int64 bits
  StringId category = StringPool::kEmpty;
  int32_t host_op = kNoIndex;
  int32_t activity = kNoIndex;  // row of RankProfile::device_events
};

// A Kineto `fwdbwd` flow: the forward op (with its Python stack) whose
// gradient the backward op computes (autograd thread, no Python frames).
struct FwdBwdLink {
  int32_t forward_op = kNoIndex;   // index into Timeline::host_ops
  int32_t backward_op = kNoIndex;  // index into Timeline::host_ops
};

struct Step {
  int32_t number = -1;
  int64_t start_ns = 0;  // host window of ProfilerStep#N
  int64_t end_ns = 0;
  int32_t host_op = kNoIndex;
};

enum class StepSource : uint8_t {
  kNone = 0,          // no step boundaries: analyses use the whole trace
  kProfilerStep = 1,  // host ProfilerStep#N annotations
  // No ProfilerStep#N: the top-level host annotation that repeats and covers
  // the most time (e.g. record_function("train_step") each iteration);
  // steps are numbered 0, 1, ... in time order. Timeline::step_annotation
  // names it.
  kRepeatedAnnotation = 2,
};

// A `[memory]` instant event (allocator activity).
struct MemoryEvent {
  int64_t ts_ns = 0;
  int32_t device_type = -1;
  int32_t device_id = -1;
  int64_t bytes = 0;  // negative = free
  int64_t total_allocated = 0;
  int64_t total_reserved = 0;
};

// Ascend trace_view.json "Overlap Analysis" segments, kept for cross-checks.
enum class OverlapKind : uint8_t {
  kComputing = 0,
  kCommunication = 1,
  kCommunicationNotOverlapped = 2,
  kFree = 3,
};

struct OverlapSegment {
  OverlapKind kind = OverlapKind::kComputing;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
};

struct ProcessGroupConfig {
  std::string name;
  std::string desc;
  std::string backend_config;
  int32_t size = -1;
  std::vector<int32_t> ranks;
};

struct DistributedInfo {
  std::optional<int32_t> rank;
  std::optional<int32_t> world_size;
  std::string backend;
  std::string nccl_version;
  std::vector<ProcessGroupConfig> process_groups;
};

struct DeviceProperties {
  int32_t id = -1;
  std::string name;
  int64_t total_global_mem = 0;
  int32_t num_sms = 0;
  int32_t compute_major = 0;
  int32_t compute_minor = 0;
};

struct Timeline {
  bool present = false;
  std::string format;        // "kineto" or "trace_view"
  std::string source;        // the file read
  int64_t base_time_ns = 0;  // Kineto baseTimeNanoseconds (0 when absent)

  HostOps host_ops;  // sorted by (pid, tid, start, longer first)
  std::vector<Flow> flows;
  std::vector<FwdBwdLink> fwdbwd;  // resolved fwdbwd flows
  std::vector<CollectiveArgs> collectives;
  std::vector<Step> steps;  // sorted by start
  StepSource step_source = StepSource::kNone;
  std::string step_annotation;  // kRepeatedAnnotation: the annotation's name
  std::map<int64_t, StringId> process_names;
  std::map<std::pair<int64_t, int64_t>, StringId> thread_names;
  DistributedInfo distributed;
  std::vector<DeviceProperties> devices;
  // The GPU runtime the trace's top-level keys name: "ROCm" (roctracer_version,
  // hip_runtime_version, hip_driver_version), "CUDA" (cupti_version,
  // cuda_runtime_version, cuda_driver_version); "" when none.
  std::string gpu_runtime;
  std::vector<MemoryEvent> memory;
  std::vector<OverlapSegment> overlap;  // Ascend only
};

}  // namespace trainscope::model
