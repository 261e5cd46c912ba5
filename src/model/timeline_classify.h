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

#include "core/status.h"
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

// Parses user rules, one per line: <kind> <match> <pattern>, kind one of
// compute, communication, memcpy, memset; match prefix or contains (case
// sensitive, as kernel names are); columns separated by a TAB or two
// spaces, '#' comments. Errors name |source_name| and the line.
Result<std::vector<ClassRule>> ParseClassRules(std::string_view text,
                                               const std::string& source_name);

// |user| rules first (the first match wins), then DefaultClassRules().
std::vector<ClassRule> WithDefaultClassRules(std::vector<ClassRule> user);

// |category| is the Kineto cat (kernel, gpu_memcpy, Memcpy, ...).
ActivityKind ClassifyActivity(std::string_view name, std::string_view category,
                              bool has_collective_args, const std::vector<ClassRule>& rules);

}  // namespace trainscope::model
