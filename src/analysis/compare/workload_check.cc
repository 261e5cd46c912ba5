#include "analysis/compare/workload_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string_view>

namespace trainscope::analysis {
namespace {

struct KernelClassRule {
  const char* name;
  std::vector<const char*> needles;  // any of them, in the lower-cased type
};

// First match wins: convolutions before matmuls (cuDNN's implicit-GEMM
// convolutions name a gemm too), attention before matmuls (flash kernels
// are matmuls inside). Words common to every platform's names.
const std::vector<KernelClassRule>& KernelClassRules() {
  static const std::vector<KernelClassRule> rules = {
      {"convolution",
       {"convolution", "convolve", "conv1d", "conv2d", "conv3d", "conv_", "winograd", "dgrad",
        "wgrad", "fprop", "implicit_gemm", "implicit_conv", "igemm"}},
      {"attention", {"attn", "attention", "flash", "fmha", "mha_", "sdpa"}},
      {"matmul", {"gemm", "matmul", "gemv", "cublas", "cutlass", "nvjet", "bmm"}},
      {"batch norm", {"batchnorm", "batch_norm", "bn_fw", "bn_bw", "bnforward", "bnbackward"}},
      {"layer/RMS norm", {"rmsnorm", "rms_norm", "layernorm", "layer_norm"}},
      {"pooling", {"pool"}},
      {"softmax/loss", {"softmax", "cross_entropy", "crossentropy", "nll"}},
      {"embedding", {"embedding"}},
  };
  return rules;
}

// Families whose time depends on the job's scale and layout, not on what
// the model computes: left out of the mix.
bool WorkloadScaleFamily(const std::string& family) {
  return family == "communication" || family == "memory" || family == "wait";
}

struct WorkloadSide {
  std::map<std::string, double> mix;  // class -> share of the compute time
  double mix_ns = 0;
  std::optional<double> kernels_per_step;  // median over ranks x steps with kernels
  std::optional<double> steps_per_rank;    // median
  std::string kind = "unknown";
  int32_t ranks = 0;
  std::string platform;
};

double WorkloadMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2.0;
}

WorkloadSide WorkloadSideOf(const JobAnalysis& job) {
  WorkloadSide side;
  side.ranks = static_cast<int32_t>(job.ranks.size());
  side.platform = model::PlatformLabel(job.platform);
  std::vector<double> kernels, steps;
  std::string kind;
  for (const RankAnalysis& rank : job.ranks) {
    if (kind.empty()) {
      kind = rank.header.workload;
    } else if (kind != rank.header.workload) {
      kind = "unknown";
    }
    double with_kernels = 0;
    for (const StepDistribution& step : rank.steps) {
      if (step.kernels.count == 0) continue;
      ++with_kernels;
      kernels.push_back(static_cast<double>(step.kernels.count));
      for (const OperatorStat& op : step.top_operators) {
        if (WorkloadScaleFamily(op.family)) continue;
        side.mix[KernelClassOf(op.op_type, op.family)] += static_cast<double>(op.total_ns);
        side.mix_ns += static_cast<double>(op.total_ns);
      }
    }
    if (with_kernels > 0) steps.push_back(with_kernels);
  }
  if (!kind.empty()) side.kind = kind;
  if (side.mix_ns > 0) {
    for (auto& [name, ns] : side.mix) ns /= side.mix_ns;
  }
  if (!kernels.empty()) side.kernels_per_step = WorkloadMedian(kernels);
  if (!steps.empty()) side.steps_per_rank = WorkloadMedian(steps);
  return side;
}

// "matmul 61%, attention 22%, ...": the classes above 2% of the time.
std::string WorkloadMixText(const std::map<std::string, double>& mix) {
  std::vector<std::pair<std::string, double>> rows(mix.begin(), mix.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [name, share] : rows) {
    if (share < 0.02) continue;
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {:.0f}%", name, share * 100);
  }
  return text.empty() ? "n/a" : text;
}

double WorkloadMixDistance(const std::map<std::string, double>& a,
                           const std::map<std::string, double>& b) {
  std::map<std::string, double> diff = a;
  for (const auto& [name, share] : b) diff[name] -= share;
  double sum = 0;
  for (const auto& [name, d] : diff) sum += std::fabs(d);
  return sum / 2.0;
}

std::string WorkloadCount(std::optional<double> v) {
  return v ? fmt::format("{:g}", std::round(*v)) : "n/a";
}

}  // namespace

std::string KernelClassOf(const std::string& op_type, const std::string& family) {
  std::string lower(op_type);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  for (const KernelClassRule& rule : KernelClassRules()) {
    for (const char* needle : rule.needles) {
      if (lower.find(needle) != std::string::npos) return rule.name;
    }
    // The family rules know GEMM libraries whose names say nothing
    // (hipBLASLt's Cijk_...): what the names above leave is a matmul.
    if (std::string_view(rule.name) == "matmul" && family == "matmul/attention") return "matmul";
  }
  return family == "loss" ? "softmax/loss" : "other";
}

const char* WorkloadVerdictKey(WorkloadVerdict v) {
  switch (v) {
    case WorkloadVerdict::kSame:
      return "same";
    case WorkloadVerdict::kDifferent:
      return "different";
    case WorkloadVerdict::kUnknown:
      return "unknown";
  }
  return "unknown";
}

WorkloadCheck CheckWorkload(const JobAnalysis& base, const JobAnalysis& next) {
  const WorkloadSide b = WorkloadSideOf(base), n = WorkloadSideOf(next);
  WorkloadCheck check;
  auto add = [&](WorkloadSignal s) { check.signals.push_back(std::move(s)); };

  WorkloadSignal kind{"kind", "training or inference", b.kind, n.kind, true, false, ""};
  kind.differs = b.kind != "unknown" && n.kind != "unknown" && b.kind != n.kind;
  if (kind.differs) kind.detail = fmt::format("BASE is {}, NEW is {}", b.kind, n.kind);
  add(kind);

  WorkloadSignal mix{"kernel_mix",
                     "kernel classes by device time",
                     WorkloadMixText(b.mix),
                     WorkloadMixText(n.mix),
                     true,
                     false,
                     ""};
  if (b.mix_ns > 0 && n.mix_ns > 0) {
    check.kernel_mix_distance = WorkloadMixDistance(b.mix, n.mix);
    mix.differs = *check.kernel_mix_distance > kWorkloadMixDifferent;
    mix.detail = fmt::format(
        "{:.0f}% of the compute time would have to change class to turn one mix into the other "
        "(different above {:.0f}%)",
        *check.kernel_mix_distance * 100, kWorkloadMixDifferent * 100);
  }
  add(mix);

  WorkloadSignal kernels{"kernels_per_step",
                         "kernels per step (median over steps x ranks)",
                         WorkloadCount(b.kernels_per_step),
                         WorkloadCount(n.kernels_per_step),
                         false,
                         false,
                         ""};
  if (b.kernels_per_step && n.kernels_per_step && *b.kernels_per_step > 0) {
    const double ratio = *n.kernels_per_step / *b.kernels_per_step;
    kernels.differs = ratio > 2 || ratio < 0.5;
    kernels.detail = fmt::format("NEW launches {:.2f}x BASE's kernels per step", ratio);
  }
  add(kernels);
  add(WorkloadSignal{"steps", "steps per rank (median)", WorkloadCount(b.steps_per_rank),
                     WorkloadCount(n.steps_per_rank), false, b.steps_per_rank != n.steps_per_rank,
                     ""});
  add(WorkloadSignal{"ranks", "ranks", fmt::format("{}", b.ranks), fmt::format("{}", n.ranks),
                     false, b.ranks != n.ranks, ""});
  WorkloadSignal platform{
      "platform", "platform", b.platform, n.platform, false, base.platform != next.platform, ""};
  if (platform.differs) {
    platform.detail = "a port: kernels are named and fused differently, the classes still compare";
  }
  add(platform);

  if (b.mix_ns <= 0 || n.mix_ns <= 0) {
    check.verdict = WorkloadVerdict::kUnknown;
    check.summary = fmt::format("unknown: {} has no compute kernels to tell its workload",
                                b.mix_ns <= 0 ? "BASE" : "NEW");
    return check;
  }
  std::string differs;
  for (const WorkloadSignal& s : check.signals) {
    if (!s.decisive || !s.differs) continue;
    if (!differs.empty()) differs += "; ";
    differs += s.id == "kind" ? s.detail
                              : fmt::format("kernel mix BASE {} vs NEW {} (distance {:.2f})",
                                            s.base, s.next, check.kernel_mix_distance.value_or(0));
  }
  if (differs.empty()) {
    check.verdict = WorkloadVerdict::kSame;
    check.summary = fmt::format("same workload (kernel mix distance {:.2f})",
                                check.kernel_mix_distance.value_or(0));
  } else {
    check.verdict = WorkloadVerdict::kDifferent;
    check.summary = fmt::format("different workloads: {}", differs);
  }
  return check;
}

}  // namespace trainscope::analysis
