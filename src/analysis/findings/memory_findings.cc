#include "analysis/findings/memory_findings.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "analysis/step/memory_usage.h"

namespace trainscope::analysis {
namespace {

double Gib(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

// The smallest gap of a step over its peak reserved: the share of the
// allocator's memory no tensor used even at the step's tightest moment.
std::optional<double> MinGapShare(const MemoryUsage& m) {
  if (!m.gap_min_bytes || !m.peak_reserved_bytes || *m.peak_reserved_bytes <= 0) {
    return std::nullopt;
  }
  return static_cast<double>(*m.gap_min_bytes) / static_cast<double>(*m.peak_reserved_bytes);
}

// The allocator switches this run already sets (profiler_metadata.json
// ENV_VARIABLES), so the remedy does not recommend them again.
std::string AllocatorSwitchesSet(const model::CaptureInfo& info) {
  std::string set;
  for (const char* key :
       {"MULTI_STREAM_MEMORY_REUSE", "PYTORCH_NPU_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"}) {
    const auto it = info.env.find(key);
    if (it == info.env.end() || it->second.empty()) continue;
    const std::string_view value = it->second;
    if (std::string_view(key) == "MULTI_STREAM_MEMORY_REUSE"
            ? value == "0"
            : value.find("expandable_segments:True") == std::string_view::npos) {
      continue;
    }
    set += (set.empty() ? "" : ", ") + std::string(key) + "=" + std::string(value);
  }
  return set;
}

// The reserved-minus-allocated gap stays at or above
// fragmentation_min_gap_share of the peak reserved at every sample of this
// step and of every other captured step with samples: memory the allocator
// keeps but never hands out, not a transient of one allocation burst.
void Fragmentation(const StepDistribution& step, const model::RankProfile& profile,
                   const FindingThresholds& t, std::vector<Finding>* out) {
  if (!step.memory) return;
  const MemoryUsage& m = *step.memory;
  const std::optional<double> share = MinGapShare(m);
  if (!share || *share < t.fragmentation_min_gap_share) return;
  // Every other captured step must hold the gap too.
  int64_t steps = 1;
  double lowest_share = *share;
  for (const int32_t other : profile.device_events.Steps()) {
    if (other == step.step) continue;
    const std::optional<MemoryUsage> o = ComputeMemoryUsage(profile, other);
    if (!o) continue;
    const std::optional<double> s = MinGapShare(*o);
    if (!s) continue;
    if (*s < t.fragmentation_min_gap_share) return;
    lowest_share = std::min(lowest_share, *s);
    ++steps;
  }
  Finding f;
  f.id = "memory-fragmentation";
  f.ranks = {profile.rank};
  f.occurrences = steps;
  f.evidence_values = {{"gap_min_gib", Gib(*m.gap_min_bytes)},
                       {"gap_min_pct", *share * 100},
                       {"lowest_gap_pct", lowest_share * 100},
                       {"peak_reserved_gib", Gib(*m.peak_reserved_bytes)},
                       {"steps_checked", static_cast<double>(steps)}};
  // A Kineto trace's samples carry no Stream Ptr: the pools are unknown.
  if (!m.streams.empty()) {
    f.evidence_values.emplace_back("stream_pools", static_cast<double>(m.streams.size()));
  }
  if (m.gap_mean_bytes) f.evidence_values.emplace_back("gap_mean_gib", Gib(*m.gap_mean_bytes));
  if (m.peak_allocated_bytes) {
    f.evidence_values.emplace_back("peak_allocated_gib", Gib(*m.peak_allocated_bytes));
  }
  f.text_values = {{"step", step.step}};
  if (m.streams.size() > 1) f.variant = "streams";
  if (const std::string set = AllocatorSwitchesSet(profile.info); !set.empty()) {
    f.variant += f.variant.empty() ? "tuned" : "+tuned";
    f.text_labels.push_back({"env_set", set});
  }
  f.estimated_gain_pct = 0;  // memory, not time
  out->push_back(std::move(f));
}

}  // namespace

std::vector<Finding> MemoryFindings(const StepDistribution& step, const model::RankProfile& profile,
                                    const FindingThresholds& thresholds) {
  std::vector<Finding> out;
  Fragmentation(step, profile, thresholds, &out);
  return out;
}

}  // namespace trainscope::analysis
