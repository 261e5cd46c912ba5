#include "analysis/findings/pipeline_findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "core/rank_ranges.h"

namespace trainscope::analysis {

void AddStageImbalance(const std::vector<StageComputation>& ranks, const FindingThresholds& t,
                       std::vector<Finding>* out) {
  struct Stage {
    double computation_ns = 0;
    int n = 0;
    std::vector<int32_t> ranks;
  };
  std::map<int32_t, Stage> stages;
  double step_sum = 0;
  int steps = 0;
  for (const StageComputation& r : ranks) {
    if (r.stage < 0 || r.step_ns <= 0) continue;
    Stage& s = stages[r.stage];
    s.computation_ns += static_cast<double>(r.computation_ns);
    ++s.n;
    s.ranks.push_back(r.rank);
    step_sum += static_cast<double>(r.step_ns);
    ++steps;
  }
  if (stages.size() < 2 || steps == 0) return;
  const double mean_step = step_sum / steps;
  double slowest = 0, fastest = 0, mean = 0;
  int32_t slowest_stage = -1, fastest_stage = -1;
  std::string per_stage;
  for (const auto& [index, s] : stages) {
    const double c = s.computation_ns / s.n;
    mean += c / static_cast<double>(stages.size());
    if (slowest_stage < 0 || c > slowest) {
      slowest = c;
      slowest_stage = index;
    }
    if (fastest_stage < 0 || c < fastest) {
      fastest = c;
      fastest_stage = index;
    }
    per_stage += fmt::format("{}stage {} {:.1f} ms (ranks {})", per_stage.empty() ? "" : ", ",
                             index, c / 1e6, CompactRankList(s.ranks));
  }
  const double spread_pct = (slowest - fastest) / mean_step * 100;
  if (spread_pct < t.stage_imbalance_pct) return;
  Finding f;
  f.id = "stage-imbalance";
  f.ranks = stages[slowest_stage].ranks;
  f.occurrences = 1;
  f.evidence_values = {{"slowest_stage_ms", EvidenceMs(slowest)},
                       {"fastest_stage_ms", EvidenceMs(fastest)},
                       {"stage_spread_pct", spread_pct},
                       {"stages", static_cast<double>(stages.size())},
                       {"mean_step_ms", EvidenceMs(mean_step)}};
  f.text_values = {{"slowest_stage", slowest_stage}, {"fastest_stage", fastest_stage}};
  f.text_labels = {{"per_stage", per_stage}};
  // Every micro-batch waits for the slowest stage: balanced to the mean,
  // each stage would take the mean.
  f.estimated_gain_pct = (slowest - mean) / mean_step * 100;
  out->push_back(std::move(f));
}

}  // namespace trainscope::analysis
