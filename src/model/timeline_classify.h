// Rule table that sorts device activities into compute / communication /
// memcpy / memset.
//
// Name regexes alone misclassify LLM stacks (HTA counts DeepEP
// dispatch/combine as compute), so metadata wins first: a kernel carrying
// collective args is communication, memcpy/memset categories are memory.
// Then the first matching name rule decides; no match means compute. The
// table is data so users can add their custom collectives.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/timeline.h"

namespace trainscope::model {

struct ClassRule {
  enum class Match : uint8_t { kPrefix, kContains };
  Match match = Match::kPrefix;
  std::string pattern;
  ActivityKind kind = ActivityKind::kCommunication;
};

// ^nccl, ncclDevKernel, ncclKernel, ^hcom, ^hccl (any case), DeepEP
// dpsk::ep::, multimem_all_reduce, cross_device_reduce (vLLM custom
// allreduce), rccl.
const std::vector<ClassRule>& DefaultClassRules();

// |category| is the Kineto cat (kernel, gpu_memcpy, Memcpy, ...).
ActivityKind ClassifyActivity(std::string_view name, std::string_view category,
                              bool has_collective_args, const std::vector<ClassRule>& rules);

// GPU kernel name -> op type: drops a leading "void ", template arguments and
// the parameter list ("void at::native::foo<float, 4>(int)" ->
// "at::native::foo"); "(anonymous namespace)" is kept.
std::string_view ShortKernelName(std::string_view name);

}  // namespace trainscope::model
