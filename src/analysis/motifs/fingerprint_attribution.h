// Attribution of a kernel chain to the host code that launched it, from the
// trace's launcher links (Kineto cpu_op / python_function, Ascend
// trace_view.json flows): the framework op or module enclosing the whole
// chain and the Python source line (methodology §2 step 4, "matched to the
// source line via the op call stack").
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct HostAttribution {
  std::string framework_op;  // "nn.Module: Qwen3RMSNorm_0", "aten::rms_norm", or member ops
                             // "aten::pow+aten::mean"
  std::string source;        // "modeling_qwen3.py(66): forward", "" when no Python frames
  bool empty() const { return framework_op.empty() && source.empty(); }
};

class HostAttributor {
 public:
  explicit HostAttributor(const model::RankProfile& profile);
  // False when the profile has no trace with launcher links.
  bool available() const { return available_; }
  // The chain whose kernels start at |kernel_starts_ns| (absolute, as in
  // DeviceEvents). Kernels are found in the trace by start time (+-1 us).
  HostAttribution Attribute(const std::vector<int64_t>& kernel_starts_ns) const;

 private:
  int32_t Launcher(int64_t start_ns) const;
  // The module and source line of the forward op behind the first backward
  // op (a fwdbwd flow end) in |backward_chain|; empty when there is none.
  HostAttribution FromForward(const std::vector<int32_t>& backward_chain) const;

  const model::RankProfile& profile_;
  bool available_ = false;
  std::unordered_map<int32_t, int32_t> forward_of_;  // backward host op -> forward host op
};

}  // namespace trainscope::analysis
