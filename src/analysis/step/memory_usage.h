// Device memory in one step: the allocator's peaks, the
// reserved-minus-allocated gap (memory the caching allocator holds but no
// tensor uses: fragmentation, per-stream pools), the split by Stream Ptr,
// the operators holding the memory at the allocated peak and the driver's
// components. From memory_record.csv / operator_memory.csv /
// npu_module_mem.csv; unknown values are nullopt, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

// One Stream Ptr of the PyTorch allocator in the step.
struct StreamMemory {
  std::string stream;              // Stream Ptr as written
  int64_t samples = 0;             // PTA samples of memory_record.csv on it
  int64_t allocations = 0;         // operator_memory.csv allocations in the window
  int64_t live_at_peak_bytes = 0;  // its allocations live at the allocated peak
};

// Allocations of one operator name live at the allocated peak.
struct MemoryHolder {
  std::string name;
  int64_t bytes = 0;
  int64_t allocations = 0;
};

// A driver component of npu_module_mem.csv: its largest sample in the window
// (else the last one before the window's end).
struct ModuleMemory {
  std::string component;
  int64_t reserved_bytes = 0;
};

// One point of the allocator curve the report draws: the sample of its
// time bucket with the largest Total Allocated (MemoryUsage::curve).
struct MemoryCurvePoint {
  int64_t ts_ns = 0;
  int64_t allocated_bytes = 0;
  std::optional<int64_t> reserved_bytes;
};

struct MemoryUsage {
  // The window the samples were taken from, and where it comes from:
  // "host step" (ProfilerStep#N), "device steps" (from the step's first
  // device event to the next step's), "capture" (every sample).
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  std::string window_from;
  // "memory_record.csv", or "kineto [memory]" (a Kineto trace's allocator
  // events of device memory, when the rank has no memory files).
  std::string samples_from;
  int64_t samples = 0;  // PTA samples in the window
  // PTA (the PyTorch caching allocator): largest Total Allocated / Reserved
  // over the window's samples; the peak's time is its first sample.
  std::optional<int64_t> peak_allocated_bytes;
  std::optional<int64_t> peak_allocated_ns;
  std::optional<int64_t> peak_reserved_bytes;
  // Reserved minus allocated: at the allocated peak's sample, its minimum,
  // maximum and time-weighted mean over the window (each sample holds until
  // the next; the last until the window's end).
  std::optional<int64_t> gap_at_peak_bytes;
  std::optional<int64_t> gap_min_bytes;
  std::optional<int64_t> gap_max_bytes;
  std::optional<int64_t> gap_mean_bytes;
  // The other components' peaks: GE (graph engine), APP (the process, as
  // the driver sees it).
  std::optional<int64_t> ge_peak_allocated_bytes;
  std::optional<int64_t> ge_peak_reserved_bytes;
  std::optional<int64_t> app_peak_reserved_bytes;
  std::vector<StreamMemory> streams;  // by Stream Ptr, ascending text
  // operator_memory.csv allocations (PTA: not cann::) live at the peak
  // (allocated at or before it, released after it or never), by name, the
  // largest first (at most 10); nullopt without operator_memory.csv.
  std::optional<int64_t> live_at_peak_bytes;
  std::vector<MemoryHolder> top_holders;
  std::vector<ModuleMemory> modules;  // npu_module_mem.csv, the largest first

  // Activation memory (docs/json-schema.md, ranks[].memory): Total
  // Allocated at the forward->backward boundary minus at the window's first
  // sample. The boundary is the start of the step's first backward host op
  // (a Kineto fwdbwd flow's end, else the first
  // "autograd::engine::evaluate_function" op); without host ops the phases
  // are unknown and so is the activation memory (nullopt), as it is when
  // the difference is negative (memory of the previous step freed during
  // the forward pass: the difference is not the activations).
  std::optional<int64_t> start_allocated_bytes;  // the window's first PTA sample
  std::optional<int64_t> backward_start_ns;
  std::optional<int64_t> backward_allocated_bytes;  // the last sample at or before it
  std::optional<int64_t> activation_bytes;
  // Live at the peak and allocated by element-wise / norm / cast operators
  // (aten::mul, aten::add, aten::pow, _npu_dtype_cast, ...): intermediates
  // an unfused chain keeps for its backward, which a fused kernel would not
  // materialise. nullopt without operator_memory.csv.
  std::optional<int64_t> elementwise_live_at_peak_bytes;
  // The device's memory, when known: Kineto deviceProperties totalGlobalMem
  // ("deviceProperties"), else the device table by the device's name
  // ("device table: <product>", analysis/common/device_memory.h); nullopt
  // and "" when unknown. headroom = capacity - peak reserved.
  std::optional<int64_t> capacity_bytes;
  std::string capacity_from;
  std::optional<int64_t> headroom_bytes;
  // Allocated and reserved over the window, at most kMemoryCurvePoints
  // points (each the largest-allocated sample of its time bucket: the peak
  // is always one of them).
  std::vector<MemoryCurvePoint> curve;
};

inline constexpr size_t kMemoryCurvePoints = 240;

// A quantity a trace's allocator sample always has, read as a memory_record
// row's optional one is.
struct PresentBytes {
  int64_t bytes = 0;
  explicit operator bool() const { return true; }
  int64_t operator*() const { return bytes; }
  operator std::optional<int64_t>() const { return bytes; }  // NOLINT(google-explicit-constructor)
};

// A Kineto [memory] event of device memory as the steps read it: a PTA row
// with both totals and no Stream Ptr, in 24 bytes where a memory_record row
// takes 72 (an optional per quantity). A trace has ~10^5-10^6 of them, kept
// while its rank is analysed (56 MB as rows for the x28 benchmark trace, at
// its peak).
struct TraceMemorySample {
  static constexpr model::MemoryComponent component = model::MemoryComponent::kPta;
  static constexpr StringId stream = StringPool::kEmpty;
  int64_t ts_ns = 0;
  PresentBytes allocated_bytes;
  PresentBytes reserved_bytes;
};

// A rank's allocator samples in time order, made once per rank: the
// memory_record.csv rows (by reference), or a Kineto trace's [memory]
// events of device memory (TraceMemorySample). Each step's memory then
// reads only its window's samples, so a rank's steps cost its samples once,
// not samples x steps.
class MemorySamples {
 public:
  explicit MemorySamples(const model::RankProfile& profile);
  MemorySamples(const MemorySamples&) = delete;
  MemorySamples& operator=(const MemorySamples&) = delete;

  // Calls fn(rows) with the samples: a std::vector of memory_record rows or
  // of TraceMemorySample, in time order.
  template <typename Fn>
  void Visit(Fn&& fn) const {
    if (none_) return;
    if (!trace_.empty()) {
      fn(trace_);
    } else {
      fn(own_ ? owned_ : *borrowed_);
    }
  }
  // The profile's MemoryData::records_from, or "kineto [memory]".
  const std::string& from() const { return from_; }
  // No memory data at all: no memory files and no device [memory] events.
  bool none() const { return none_; }
  // Where backward passes start, ascending: the host ops that fwdbwd flows
  // end at, and (the fallback) autograd::engine::evaluate_function ops.
  const std::vector<int64_t>& backward_flow_starts() const { return backward_flow_starts_; }
  const std::vector<int64_t>& autograd_starts() const { return autograd_starts_; }

 private:
  std::vector<int64_t> backward_flow_starts_;
  std::vector<int64_t> autograd_starts_;
  const std::vector<model::MemoryRecordRow>* borrowed_ = nullptr;
  std::vector<model::MemoryRecordRow> owned_;
  std::vector<TraceMemorySample> trace_;
  bool own_ = false;
  bool none_ = false;
  std::string from_;
};

// nullopt when the profile has no memory data (no memory files, no Kineto
// [memory] events of device memory). |step| == kNoStep: every
// sample of the capture.
std::optional<MemoryUsage> ComputeMemoryUsage(const model::RankProfile& profile,
                                              const MemorySamples& samples, int32_t step);
// The same with the samples made for this call (one step, tests).
std::optional<MemoryUsage> ComputeMemoryUsage(const model::RankProfile& profile, int32_t step);

}  // namespace trainscope::analysis
