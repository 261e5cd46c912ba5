// AddFingerprintAnalysis: motifs of every step of every rank, fingerprint
// matching, expected gains and the threshold rules, merged into the job's
// findings (methodology §2 steps 4-5, §3).
#include <algorithm>
#include <map>
#include <optional>

#include "analysis/findings_catalog.h"
#include "analysis/fingerprint_attribution.h"
#include "analysis/fingerprint_findings.h"
#include "analysis/fingerprint_library.h"
#include "analysis/job_stages.h"
#include "analysis/motif_step.h"
#include "analysis/threshold_findings.h"
#include "core/parallel.h"

namespace trainscope::analysis {
namespace {

// First kernel start of each step: motif positions are relative to it, as
// in the timeline panorama.
std::map<int32_t, int64_t> StepStarts(const model::KernelTable& table) {
  std::map<int32_t, int64_t> starts;
  for (size_t i = 0; i < table.size(); ++i) {
    auto [it, inserted] = starts.emplace(table.step[i], table.start_ns[i]);
    if (!inserted) it->second = std::min(it->second, table.start_ns[i]);
  }
  if (table.size() > 0)
    starts[model::kNoStep] = *std::min_element(table.start_ns.begin(), table.start_ns.end());
  return starts;
}

double StepSpanUs(const StepDistribution& step) {
  if (step.breakdown && step.breakdown->budget.total_ns > 0)
    return step.breakdown->budget.total_ns / 1e3;
  return step.kernels.span_us;
}

}  // namespace

void AddFingerprintAnalysis(const std::vector<model::RankProfile>& profiles, const FamilyRules&,
                            const FingerprintLibrary* user_library, unsigned threads,
                            JobAnalysis* job, const FindingCatalog* user_catalog) {
  const FingerprintLibrary& library = user_library ? *user_library : FingerprintLibrary::Builtin();
  const FindingCatalog* catalog = user_catalog ? user_catalog : &FindingCatalog::Builtin();
  const size_t n = std::min(profiles.size(), job->ranks.size());
  std::vector<std::optional<HostAttributor>> hosts(n);
  std::vector<std::map<int32_t, int64_t>> starts(n);
  ParallelFor(n, threads, [&](size_t i) {
    hosts[i].emplace(profiles[i]);
    starts[i] = StepStarts(profiles[i].kernels);
  });

  // One task per (rank, step): a single big rank has dozens of steps, and
  // mining is the costliest analysis, so steps (not only ranks) share the cores.
  struct Task {
    size_t rank;
    size_t step;
    int64_t start_ns;
  };
  std::vector<Task> tasks;
  for (size_t i = 0; i < n; ++i) {
    for (size_t s = 0; s < job->ranks[i].steps.size(); ++s) {
      auto start = starts[i].find(job->ranks[i].steps[s].step);
      if (start != starts[i].end()) tasks.push_back(Task{i, s, start->second});
    }
  }
  std::vector<StepMotifs> mined(tasks.size());
  ParallelFor(tasks.size(), threads, [&](size_t t) {
    const Task& task = tasks[t];
    const StepDistribution& step = job->ranks[task.rank].steps[task.step];
    mined[t] = AnalyzeStepMotifs(profiles[task.rank], step.step, task.start_ns, StepSpanUs(step),
                                 library, *hosts[task.rank]);
  });

  std::vector<std::vector<Finding>> per_rank(n);
  for (size_t t = 0; t < tasks.size(); ++t) {
    RankAnalysis& rank = job->ranks[tasks[t].rank];
    StepDistribution& step = rank.steps[tasks[t].step];
    if (step.step == rank.selected_step) {
      per_rank[tasks[t].rank] = FingerprintFindings(
          rank.rank, step.step, mined[t], library,
          static_cast<int64_t>(catalog->thresholds().fingerprint_min_instances), *catalog);
    }
    step.motifs = std::move(mined[t].motifs);
  }
  ParallelFor(n, threads, [&](size_t i) {
    auto thresholds = ThresholdFindings(job->ranks[i], profiles[i], *catalog);
    per_rank[i].insert(per_rank[i].end(), std::make_move_iterator(thresholds.begin()),
                       std::make_move_iterator(thresholds.end()));
  });
  auto merged = MergeRankFindings(std::move(per_rank));
  job->findings.insert(job->findings.end(), std::make_move_iterator(merged.begin()),
                       std::make_move_iterator(merged.end()));
}

}  // namespace trainscope::analysis
