// Attribution of a kernel chain to the host code that launched it, from the
// trace's launcher links (Kineto cpu_op / python_function, Ascend
// trace_view.json flows): the framework op or module enclosing the whole
// chain and the Python source line (methodology §2 step 4, "matched to the
// source line via the op call stack").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/rank_profile.h"

namespace trainscope::analysis {

struct HostAttribution {
  std::string framework_op;  // "nn.Module: Qwen3RMSNorm_0", "aten::rms_norm", or member ops
                             // "aten::pow+aten::mean"
  std::string source;        // "modeling_qwen3.py(66): forward", "" when no Python frames
  // Why |source| is empty though the ops have call stacks ("its ops' call
  // stacks share no user frame"), else "".
  std::string source_note;
  bool empty() const { return framework_op.empty() && source.empty(); }
};

// The operator_details.csv operator a kernel belongs to, by name: the
// kernel name's "aclnn*" prefix ("aclnnMuls_MulsAiCore_Muls" -> "aclnnMuls",
// torch_npu's aclnn launch op), else its op type (aclop kernels: "Conv2D",
// "TransData", which operator_details.csv lists under those names).
std::string_view OperatorKeyOfKernel(std::string_view kernel_name, std::string_view op_type);

class HostAttributor {
 public:
  explicit HostAttributor(const model::RankProfile& profile);
  // False when the profile has neither a trace with launcher links nor an
  // operator_details.csv with call stacks.
  bool available() const { return available_ || !source_of_operator_.empty(); }
  // The chain whose kernels start at |kernel_starts_ns| (absolute, as in
  // DeviceEvents). Kernels are found in the trace by start time (+-1 us);
  // without a source line from the trace, operator_details.csv's call
  // stacks of the kernels' operators name one.
  HostAttribution Attribute(const std::vector<int64_t>& kernel_starts_ns) const;

 private:
  HostAttribution FromLaunchers(const std::vector<int64_t>& kernel_starts_ns) const;
  // The most frequent source line of the chain's operators in
  // operator_details.csv (ties: the earliest kernel's); the framework op,
  // when still empty, is the operators' names.
  void FromOperatorDetails(const std::vector<int64_t>& kernel_starts_ns,
                           HostAttribution* out) const;
  int32_t Launcher(int64_t start_ns) const;
  // The module and source line of the forward op behind the first backward
  // op (a fwdbwd flow end) in |backward_chain|; empty when there is none.
  HostAttribution FromForward(const std::vector<int32_t>& backward_chain) const;

  const model::RankProfile& profile_;
  bool available_ = false;
  std::unordered_map<int32_t, int32_t> forward_of_;  // backward host op -> forward host op
  // operator_details.csv: operator name -> its most frequent user source
  // line (an operator called from several lines keeps the commonest).
  std::unordered_map<std::string_view, std::string_view> source_of_operator_;
};

}  // namespace trainscope::analysis
