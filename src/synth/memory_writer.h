// memory_record.csv, operator_memory.csv and npu_module_mem.csv of one rank
// (synth --memory), as torch_npu writes them (ascend-formats.md §2.7-2.9):
// the PyTorch caching allocator's totals after each allocation and free,
// one row per tensor allocation, and the driver's components sampled every
// 20 ms. The plants (docs/synth.md "Memory"): a per-stream pool (the FSDP
// unshard's own stream keeps its blocks, a constant offset between reserved
// and allocated) unless unshard_on_compute_stream, and a peak holder (the
// unfused cross-entropy's fp32 log-probabilities) unless
// fused_cross_entropy; unfused RMSNorm keeps its fp32 intermediates.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "synth/out_file.h"
#include "synth/synth.h"

namespace trainscope::synth {

// What the writer planted (ground_truth.json "memory").
struct MemoryTruth {
  int64_t stream_pool_offset_bytes = 0;  // 0: one pool
  int stream_pools = 1;
  std::string peak_holder;  // "" when none is planted
  int64_t peak_holder_bytes = 0;
  int64_t peak_allocated_bytes = 0;  // every step's
  int64_t peak_reserved_bytes = 0;
};

class MemoryWriter {
 public:
  MemoryWriter(const SynthOptions& options, int micro_batches, int device_id);
  Status Open(const std::string& profiler_dir);
  // One step whose device work spans [start_ns, end_ns).
  Status WriteStep(int64_t start_ns, int64_t end_ns);
  // npu_module_mem.csv over the capture, then closes every file.
  Status Close(int64_t capture_start_ns, int64_t capture_end_ns);
  const MemoryTruth& truth() const { return truth_; }

 private:
  const SynthOptions& options_;
  int micro_batches_;
  int device_id_;
  bool legacy_;
  OutFile record_;
  OutFile operators_;
  std::string profiler_dir_;
  MemoryTruth truth_;
};

}  // namespace trainscope::synth
