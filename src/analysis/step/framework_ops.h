// The device time of one step by the framework operator and the nn.Module
// that launched it: what `compare` pairs across two runs (a GPU run and an
// NPU run of one model share their aten:: ops and module classes, not their
// kernel names).
//
// A kernel belongs to the outermost framework op (aten::*, npu::*, any
// cpu_op) enclosing its launch (Kineto: the cudaLaunchKernel / hipLaunchKernel
// the ac2g flow or correlation id links it to; Ascend: the op the
// torch_to_npu flow starts from), i.e. the op the model's code called
// (aten::linear, not the aten::mm it dispatches to), and to the innermost
// nn.Module around that launch, counted per module class (Qwen2RMSNorm, every
// layer's instance together).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/fingerprint_match.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// One kernel name an owner launched, with its count and summed time.
struct OwnedKernel {
  std::string name;
  std::string op_type;
  int64_t count = 0;
  int64_t total_ns = 0;
};

// A framework op or a module class and the kernels of the step it launched.
struct FrameworkOpStat {
  std::string name;  // "aten::linear", "npu::npu_rms_norm"; modules: "Qwen2RMSNorm"
  // The "Input Dims" of its costliest call ("[[16, 559, 1024], [1024, 1024]]"),
  // "" when the trace records no shapes (record_shapes off) or for modules.
  std::string shapes;
  int32_t shape_variants = 0;  // distinct input shapes among its calls (0: none recorded)
  int64_t calls = 0;           // calls that launched at least one device event of the step
  // Compute and communication kernels of the step it launched (copies and
  // memsets left out: a GEMM's split-K workspace memset is not a kernel of
  // the op's math).
  int64_t kernels = 0;
  int64_t kernel_ns = 0;  // summed duration of every device event it launched, copies included
  std::vector<OwnedKernel> top_kernels;  // kernels by time, descending, at most 4
  // Fingerprint ids (data/fingerprints.tsv) matched on the kernels of its
  // call with the most kernels: the decomposed chain it runs as.
  std::vector<std::string> fingerprints;
};

struct FrameworkOps {
  std::vector<FrameworkOpStat> ops;      // by kernel_ns, descending
  std::vector<FrameworkOpStat> modules;  // module classes, by kernel_ns, descending
  int64_t kernels = 0;                   // device events of the step, copies and memsets included
  int64_t kernel_ns = 0;                 // their summed duration
  int64_t owned_kernels = 0;             // of them, launched inside a framework op
  int64_t owned_ns = 0;
};

// What the framework ops of one profile's steps share, safe to share between
// the threads that find them: the library's answers per kernel (|accept|,
// shared with motif mining; may be null) and the fingerprints of every chain
// matched so far. A rank's owners and steps repeat the same chains (every
// layer's RMSNorm runs the same kernels, step after step): on a 392-step
// trace matching each op's chain again was a tenth of the whole analysis.
// Chains are keyed by the profile's string ids: one memo per profile.
class FrameworkOpsMemo {
 public:
  FrameworkOpsMemo(const FingerprintLibrary& library, FingerprintAcceptMemo* accept)
      : library_(library), accept_(accept) {}
  // The library its chains were matched with (ComputeFrameworkOps does not
  // use the memo with another).
  const FingerprintLibrary& library() const { return library_; }
  FingerprintAcceptMemo* accept() const { return accept_; }

  // The fingerprints of the chain |key| (its kernels' ids, packed), made by
  // |match| the first time.
  template <typename Match>
  std::vector<std::string> Of(const std::string& key, Match&& match) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = by_chain_.find(key); it != by_chain_.end()) return it->second;
    }
    std::vector<std::string> ids = match();
    const std::lock_guard<std::mutex> lock(mutex_);
    return by_chain_.try_emplace(key, std::move(ids)).first->second;
  }
  size_t chains() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return by_chain_.size();
  }

 private:
  const FingerprintLibrary& library_;
  FingerprintAcceptMemo* accept_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::vector<std::string>> by_chain_;
};

// nullopt when no device event of the step has a launch link to a framework
// op (no trace, or a trace without flows or CPU ops): unknown, not empty.
// |memo| (optional, of |profile| and |library|): what the profile's steps
// share; without it every op's chain is matched again, and asks every
// member again (on a long trace most of the analysis).
std::optional<FrameworkOps> ComputeFrameworkOps(const model::RankProfile& profile, int32_t step,
                                                const FingerprintLibrary& library,
                                                FrameworkOpsMemo* memo = nullptr);

}  // namespace trainscope::analysis
