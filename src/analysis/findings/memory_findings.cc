#include "analysis/findings/memory_findings.h"

#include <fmt/format.h>

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
                   const FindingThresholds& t, const StepGapShares& gaps,
                   std::vector<Finding>* out) {
  if (!step.memory) return;
  const MemoryUsage& m = *step.memory;
  const std::optional<double> share = MinGapShare(m);
  if (!share || *share < t.fragmentation_min_gap_share) return;
  // Every other captured step must hold the gap too.
  int64_t steps = 1;
  double lowest_share = *share;
  for (const auto& [other, other_share] : gaps) {
    if (other == step.step) continue;
    if (other_share < t.fragmentation_min_gap_share) return;
    lowest_share = std::min(lowest_share, other_share);
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

// memory-peak: the largest holder at the allocated peak holds at least
// memory_peak_holder_share of the peak; what each remedy would save.
void Peak(const StepDistribution& step, const model::RankProfile& profile,
          const FindingThresholds& t, std::vector<Finding>* out) {
  if (!step.memory) return;
  const MemoryUsage& m = *step.memory;
  if (!m.peak_allocated_bytes || *m.peak_allocated_bytes <= 0 || m.top_holders.empty() ||
      !m.live_at_peak_bytes) {
    return;
  }
  const MemoryHolder& top = m.top_holders.front();
  const double share =
      static_cast<double>(top.bytes) / static_cast<double>(*m.peak_allocated_bytes);
  if (share < t.memory_peak_holder_share) return;
  Finding f;
  f.id = "memory-peak";
  f.ranks = {profile.rank};
  f.occurrences = 1;
  f.evidence_values = {{"peak_allocated_gib", Gib(*m.peak_allocated_bytes)},
                       {"holder_gib", Gib(top.bytes)},
                       {"holder_pct", share * 100},
                       {"live_at_peak_gib", Gib(*m.live_at_peak_bytes)},
                       {"offload_saves_gib", Gib(top.bytes)}};
  if (m.peak_reserved_bytes) {
    f.evidence_values.emplace_back("peak_reserved_gib", Gib(*m.peak_reserved_bytes));
  }
  if (m.activation_bytes && *m.activation_bytes > 0) {
    f.evidence_values.emplace_back("activation_gib", Gib(*m.activation_bytes));
    f.evidence_values.emplace_back("recompute_saves_gib", Gib(*m.activation_bytes));
  }
  if (m.elementwise_live_at_peak_bytes && *m.elementwise_live_at_peak_bytes > 0) {
    f.evidence_values.emplace_back("fused_saves_gib", Gib(*m.elementwise_live_at_peak_bytes));
  }
  if (m.capacity_bytes && m.peak_reserved_bytes && *m.capacity_bytes > 0) {
    f.evidence_values.emplace_back(
        "capacity_pct",
        static_cast<double>(*m.peak_reserved_bytes) / static_cast<double>(*m.capacity_bytes) * 100);
    f.text_labels.push_back({"capacity_from", m.capacity_from});
  }
  f.text_values = {{"step", step.step}};
  f.text_labels.push_back({"holder", top.name});
  f.estimated_gain_pct = 0;  // memory, not time
  out->push_back(std::move(f));
}

// oom-risk: capacity minus the peak reserved under oom_headroom_share of
// the capacity; no capacity, no finding.
void OomRisk(const StepDistribution& step, const model::RankProfile& profile,
             const FindingThresholds& t, std::vector<Finding>* out) {
  if (!step.memory) return;
  const MemoryUsage& m = *step.memory;
  if (!m.capacity_bytes || *m.capacity_bytes <= 0 || !m.headroom_bytes || !m.peak_reserved_bytes) {
    return;
  }
  const double share =
      static_cast<double>(*m.headroom_bytes) / static_cast<double>(*m.capacity_bytes);
  if (share >= t.oom_headroom_share) return;
  Finding f;
  f.id = "oom-risk";
  f.ranks = {profile.rank};
  f.occurrences = 1;
  f.evidence_values = {{"headroom_gib", Gib(*m.headroom_bytes)},
                       {"headroom_pct", share * 100},
                       {"capacity_gib", Gib(*m.capacity_bytes)},
                       {"peak_reserved_gib", Gib(*m.peak_reserved_bytes)}};
  if (m.peak_allocated_bytes) {
    f.evidence_values.emplace_back("peak_allocated_gib", Gib(*m.peak_allocated_bytes));
  }
  f.text_values = {{"step", step.step}};
  f.text_labels = {{"capacity_from", m.capacity_from}};
  f.estimated_gain_pct = 0;  // a risk, not time
  out->push_back(std::move(f));
}

}  // namespace

void AddMemoryImbalance(std::vector<RankMemoryPeak> peaks, const FindingThresholds& t,
                        std::vector<Finding>* out) {
  std::erase_if(peaks, [](const RankMemoryPeak& p) { return p.peak_allocated_bytes <= 0; });
  if (peaks.size() < 2) return;
  std::stable_sort(peaks.begin(), peaks.end(),
                   [](const RankMemoryPeak& a, const RankMemoryPeak& b) {
                     return a.peak_allocated_bytes < b.peak_allocated_bytes;
                   });
  const size_t n = peaks.size();
  const size_t mid = n / 2;
  const auto at = [&](size_t i) { return static_cast<double>(peaks[i].peak_allocated_bytes); };
  const double median = n % 2 == 1 ? at(mid) : (at(mid - 1) + at(mid)) * 0.5;
  const RankMemoryPeak& lo = peaks.front();
  const RankMemoryPeak& hi = peaks.back();
  const double spread =
      static_cast<double>(hi.peak_allocated_bytes - lo.peak_allocated_bytes) / median;
  if (spread < t.memory_imbalance_share) return;
  std::vector<RankMemoryPeak> by_rank = peaks;
  std::stable_sort(
      by_rank.begin(), by_rank.end(),
      [](const RankMemoryPeak& a, const RankMemoryPeak& b) { return a.rank < b.rank; });
  std::string per_rank;
  for (const RankMemoryPeak& p : by_rank) {
    per_rank += fmt::format("{}rank {} {:.2f} GiB", per_rank.empty() ? "" : ", ", p.rank,
                            Gib(p.peak_allocated_bytes));
  }
  Finding f;
  f.id = "memory-imbalance";
  f.ranks = {hi.rank};
  f.occurrences = 1;
  f.evidence_values = {{"max_peak_gib", Gib(hi.peak_allocated_bytes)},
                       {"min_peak_gib", Gib(lo.peak_allocated_bytes)},
                       {"median_peak_gib", median / (1024.0 * 1024.0 * 1024.0)},
                       {"spread_pct", spread * 100},
                       {"ranks_compared", static_cast<double>(n)}};
  f.text_values = {{"max_rank", hi.rank}, {"min_rank", lo.rank}};
  f.text_labels = {{"per_rank", per_rank}};
  f.estimated_gain_pct = 0;  // memory, not time
  out->push_back(std::move(f));
}

StepGapShares GapSharesOf(const model::RankProfile& profile, const MemorySamples& samples) {
  std::map<int32_t, std::optional<MemoryUsage>> usage;
  if (samples.none()) return {};
  for (const int32_t step : profile.device_events.Steps()) {
    usage[step] = ComputeMemoryUsage(profile, samples, step);
  }
  return GapSharesOf(usage);
}

StepGapShares GapSharesOf(const std::map<int32_t, std::optional<MemoryUsage>>& usage) {
  StepGapShares gaps;
  for (const auto& [step, m] : usage) {
    if (!m) continue;
    if (const std::optional<double> share = MinGapShare(*m)) gaps[step] = *share;
  }
  return gaps;
}

std::vector<Finding> MemoryFindings(const StepDistribution& step, const model::RankProfile& profile,
                                    const FindingThresholds& thresholds,
                                    const StepGapShares* gaps) {
  std::vector<Finding> out;
  if (step.memory) {
    if (gaps != nullptr) {
      Fragmentation(step, profile, thresholds, *gaps, &out);
    } else {
      const MemorySamples samples(profile);
      Fragmentation(step, profile, thresholds, GapSharesOf(profile, samples), &out);
    }
  }
  Peak(step, profile, thresholds, &out);
  OomRisk(step, profile, thresholds, &out);
  return out;
}

}  // namespace trainscope::analysis
