// Are BASE and NEW the same workload? Checked before two runs are compared:
// a ResNet capture set against an LLM job is not a slow-down, and a step
// time of one is not a yardstick for the other. The signals, each with both
// sides' values: the training/inference kind, the mix of kernel classes by
// device time (convolution, matmul, attention, norms, ...: classes that read
// the same on every platform), kernels per step, steps, ranks and platform.
// Only the kind and the kernel mix decide; the others are evidence (a fused
// run has fewer kernels, a port another platform, a scaled job more ranks,
// and each is still the same workload). docs/compare.md "Workload check".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/job/rank_analysis.h"

namespace trainscope::analysis {

// Two kernel mixes further apart than this (total variation distance of
// their time shares: the share of device time that would have to move
// class to make one mix the other) are different workloads.
inline constexpr double kWorkloadMixDifferent = 0.5;

struct WorkloadSignal {
  std::string id;     // kind, kernel_mix, kernels_per_step, steps, ranks, platform
  std::string label;  // for people
  std::string base, next;
  bool decisive = false;  // it can make the workloads different
  bool differs = false;
  std::string detail;
};

enum class WorkloadVerdict { kSame, kDifferent, kUnknown };
const char* WorkloadVerdictKey(WorkloadVerdict v);  // "same", "different", "unknown"

struct WorkloadCheck {
  // Unknown when a side has no device activity (nothing to compare).
  WorkloadVerdict verdict = WorkloadVerdict::kUnknown;
  std::string summary;  // one line; for different workloads, what differs
  std::vector<WorkloadSignal> signals;
  std::optional<double> kernel_mix_distance;  // in [0, 1]
};

WorkloadCheck CheckWorkload(const JobAnalysis& base, const JobAnalysis& next);

// The kernel class of an operator type or normalised kernel name and its
// family ("convolution", "matmul", ...; "other" when none matches).
std::string KernelClassOf(const std::string& op_type, const std::string& family);

}  // namespace trainscope::analysis
