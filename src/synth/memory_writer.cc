#include "synth/memory_writer.h"

#include <algorithm>
#include <vector>

namespace trainscope::synth {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
// The generator's model of one rank (not a detector's number): tokens per
// micro-batch, the FSDP-sharded weights + gradients + AdamW state per
// parameter, the unshard stream's pool, the allocator's segment size.
constexpr int64_t kTokens = 8192;
constexpr int64_t kStateBytesPerParam = 16;
constexpr int64_t kUnshardPoolBytes = 5 * kGiB / 2;
constexpr int64_t kSegmentBytes = 20 * kMiB;
constexpr const char* kComputeStream = "187651240402944";
constexpr const char* kUnshardStream = "187651240976384";

struct Alloc {
  const char* name;
  int64_t bytes;
  int64_t alloc_ns;
  int64_t release_ns;
  const char* stream;
};

struct Event {
  int64_t ts_ns;
  int64_t delta;
  const char* stream;
};

void AppendMb(fmt::memory_buffer& b, int64_t bytes) {
  fmt::format_to(std::back_inserter(b), "{}", static_cast<double>(bytes) / kMiB);
}

// One operator_memory.csv row: |at_alloc| / |at_release| are the
// allocator's totals right after the allocation and the release.
void AppendOperatorRow(const Alloc& a, int64_t at_alloc, int64_t at_release, int64_t reserved,
                       bool legacy, int device_id, fmt::memory_buffer& b) {
  fmt::format_to(std::back_inserter(b), "{},{},", a.name, static_cast<double>(a.bytes) / 1024);
  AppendUs(b, a.alloc_ns, 3);
  AppendStr(b, "\t,");
  AppendUs(b, a.release_ns, 3);
  AppendStr(b, "\t,");
  if (!legacy) {
    AppendUs(b, a.release_ns, 3);
    AppendStr(b, "\t,");
  }
  AppendUs(b, a.release_ns - a.alloc_ns, 3);
  AppendStr(b, "\t,");
  if (!legacy) {
    AppendUs(b, a.release_ns - a.alloc_ns, 3);
    AppendStr(b, "\t,");
  }
  for (const int64_t total : {at_alloc, at_release}) {
    AppendMb(b, total);
    AppendStr(b, ",");
    AppendMb(b, reserved);
    AppendStr(b, ",");
    if (!legacy) {
      AppendMb(b, total);
      AppendStr(b, ",");
    }
  }
  if (!legacy) {
    AppendStr(b, a.stream);
    AppendStr(b, ",");
  }
  fmt::format_to(std::back_inserter(b), "NPU:{}\n", device_id);
}

// Layer activations kept for the backward pass, per micro-batch.
void LayerTensors(const SynthOptions& o, std::vector<std::pair<const char*, int64_t>>* out) {
  const int64_t act = kTokens * o.hidden * 2;  // [T, h] bf16
  for (int i = 0; i < 6; ++i) out->emplace_back("aten::matmul", act);
  out->emplace_back("npu::npu_fusion_attention", act);
  for (int norm = 0; norm < 2; ++norm) {
    if (o.fused_rmsnorm) {
      out->emplace_back("npu::npu_rms_norm", act);
    } else {  // the eager chain's fp32 intermediates
      out->emplace_back("aten::pow", act * 2);
      out->emplace_back("aten::mul", act * 2);
      out->emplace_back("npu::_npu_dtype_cast", act);
      out->emplace_back("aten::mul", act);
    }
  }
}

}  // namespace

MemoryWriter::MemoryWriter(const SynthOptions& options, int micro_batches, int device_id)
    : options_(options),
      micro_batches_(micro_batches),
      device_id_(device_id),
      legacy_(options.header == HeaderVariant::kLegacy2023) {}

Status MemoryWriter::Open(const std::string& profiler_dir) {
  profiler_dir_ = profiler_dir;
  TS_RETURN_IF_ERROR(record_.Open(profiler_dir + "/memory_record.csv"));
  TS_RETURN_IF_ERROR(operators_.Open(profiler_dir + "/operator_memory.csv"));
  AppendStr(record_.buffer(),
            legacy_ ? "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\n"
                    : "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total "
                      "Active(MB),Stream Ptr,Device Type\n");
  AppendStr(operators_.buffer(),
            legacy_ ? "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Allocation "
                      "Total Allocated(MB),Allocation Total Reserved(MB),Release Total "
                      "Allocated(MB),Release Total Reserved(MB),Device Type\n"
                    : "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release "
                      "Time(us),Duration(us),Active Duration(us),Allocation Total "
                      "Allocated(MB),Allocation Total Reserved(MB),Allocation Total "
                      "Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),Release "
                      "Total Active(MB),Stream Ptr,Device Type\n");
  return Status::Ok();
}

Status MemoryWriter::WriteStep(int64_t start_ns, int64_t end_ns) {
  const SynthOptions& o = options_;
  const int64_t params = int64_t{12} * o.hidden * o.hidden * o.layers + int64_t{o.vocab} * o.hidden;
  const int64_t base = params * kStateBytesPerParam / std::max(1, o.ranks);
  const bool pools = !o.unshard_on_compute_stream;
  const int64_t span = std::max<int64_t>(end_ns - start_ns, 1000);
  const int64_t per_mb = span / micro_batches_;

  std::vector<Alloc> allocs;
  if (pools) {  // the unshard's all-gather buffers, on their own stream, early in the step
    allocs.push_back({"aten::empty", kUnshardPoolBytes, start_ns + span / 100,
                      start_ns + span * 3 / 100, kUnshardStream});
  }
  std::vector<std::pair<const char*, int64_t>> layer;
  LayerTensors(o, &layer);
  for (int mb = 0; mb < micro_batches_; ++mb) {
    const int64_t t0 = start_ns + per_mb * mb + per_mb / 20;
    const int64_t fwd = per_mb * 2 / 5;  // forward: 40% of the micro-batch
    const int64_t bwd_start = t0 + fwd + per_mb / 20;
    const int64_t bwd = per_mb / 2;
    const int64_t n = static_cast<int64_t>(layer.size()) * o.layers;
    int64_t k = 0;
    for (int l = 0; l < o.layers; ++l) {
      for (const auto& [name, bytes] : layer) {
        const int64_t alloc = t0 + fwd * k / n;
        const int64_t release = bwd_start + bwd * (n - 1 - k) / n + 1;
        allocs.push_back({name, bytes, alloc, release, kComputeStream});
        ++k;
      }
    }
    if (!o.fused_cross_entropy) {  // the planted peak holder
      allocs.push_back({"aten::_log_softmax", kTokens * o.vocab * 4, t0 + fwd,
                        bwd_start + per_mb / 100, kComputeStream});
    }
  }
  std::vector<Event> events;
  for (const Alloc& a : allocs) {
    events.push_back({a.alloc_ns, a.bytes, a.stream});
    events.push_back({a.release_ns, -a.bytes, a.stream});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.ts_ns < b.ts_ns; });
  // Steady state after warm-up: the compute pool holds its peak (rounded to
  // segments), the unshard stream its own pool that compute cannot reuse.
  int64_t allocated = base;
  int64_t compute_peak = base;
  int64_t holder_at_peak = 0;
  for (const Event& e : events) {
    allocated += e.delta;
    if (e.stream == kComputeStream && allocated > compute_peak) compute_peak = allocated;
  }
  const int64_t reserved = (compute_peak + kSegmentBytes - 1) / kSegmentBytes * kSegmentBytes +
                           (pools ? kUnshardPoolBytes : 0);
  allocated = base;
  std::vector<int64_t> totals;  // after each event
  fmt::memory_buffer& r = record_.buffer();
  for (const Event& e : events) {
    allocated += e.delta;
    totals.push_back(allocated);
    AppendStr(r, "PTA,");
    AppendUs(r, e.ts_ns, 3);
    AppendStr(r, "\t,");
    AppendMb(r, allocated);
    AppendStr(r, ",");
    AppendMb(r, reserved);
    if (!legacy_) {
      AppendStr(r, ",");
      AppendMb(r, allocated);
      AppendStr(r, ",");
      AppendStr(r, e.stream);
    }
    fmt::format_to(std::back_inserter(r), ",NPU:{}\n", device_id_);
    TS_RETURN_IF_ERROR(record_.MaybeFlush());
  }
  // The allocated total at a time: the last event at or before it.
  auto total_at = [&](int64_t ts) {
    const auto it = std::upper_bound(events.begin(), events.end(), ts,
                                     [](int64_t t, const Event& e) { return t < e.ts_ns; });
    return it == events.begin() ? base : totals[static_cast<size_t>(it - events.begin()) - 1];
  };
  int64_t peak_ts = 0;
  int64_t peak = base;
  for (size_t i = 0; i < events.size(); ++i) {
    if (totals[i] > peak) {
      peak = totals[i];
      peak_ts = events[i].ts_ns;
    }
  }
  fmt::memory_buffer& b = operators_.buffer();
  for (const Alloc& a : allocs) {
    if (o.fused_cross_entropy == false && std::string_view(a.name) == "aten::_log_softmax" &&
        a.alloc_ns <= peak_ts && a.release_ns > peak_ts) {
      holder_at_peak += a.bytes;
    }
    AppendOperatorRow(a, total_at(a.alloc_ns), total_at(a.release_ns), reserved, legacy_,
                      device_id_, b);
    TS_RETURN_IF_ERROR(operators_.MaybeFlush());
  }
  truth_.stream_pool_offset_bytes = pools ? kUnshardPoolBytes : 0;
  truth_.stream_pools = pools ? 2 : 1;
  truth_.peak_holder = o.fused_cross_entropy ? "" : "aten::_log_softmax";
  truth_.peak_holder_bytes = holder_at_peak;
  truth_.peak_allocated_bytes = peak;
  truth_.peak_reserved_bytes = reserved;
  return Status::Ok();
}

Status MemoryWriter::Close(int64_t capture_start_ns, int64_t capture_end_ns) {
  TS_RETURN_IF_ERROR(record_.Close());
  TS_RETURN_IF_ERROR(operators_.Close());
  OutFile modules;
  TS_RETURN_IF_ERROR(modules.Open(profiler_dir_ + "/npu_module_mem.csv"));
  fmt::memory_buffer& b = modules.buffer();
  const bool with_device_id =
      options_.header == HeaderVariant::kCann83 || options_.header == HeaderVariant::kCann2026;
  AppendStr(b, with_device_id ? "Device_id,Component,Timestamp(us),Total Reserved(MB),Device\n"
                              : "Component,Timestamp(us),Total Reserved(MB),Device\n");
  struct Component {
    const char* name;
    int64_t bytes;
  };
  const Component components[] = {{"APP", truth_.peak_reserved_bytes + 3 * kGiB / 2},
                                  {"HCCL", 600 * kMiB},
                                  {"RUNTIME", 420 * kMiB},
                                  {"SLOG", 12 * kMiB}};
  constexpr int64_t kPeriodNs = 20'000'000;
  for (int64_t t = capture_start_ns; t < capture_end_ns; t += kPeriodNs) {
    for (const Component& c : components) {
      if (with_device_id) fmt::format_to(std::back_inserter(b), "{},", device_id_);
      fmt::format_to(std::back_inserter(b), "{},", c.name);
      AppendUs(b, t, 3);
      AppendStr(b, "\t,");
      AppendMb(b, c.bytes);
      fmt::format_to(std::back_inserter(b), ",NPU:{}\n", device_id_);
    }
    TS_RETURN_IF_ERROR(modules.MaybeFlush());
  }
  return modules.Close();
}

}  // namespace trainscope::synth
