// The analysis of a whole job: every rank, every step, and the selected one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cluster.h"
#include "analysis/family_rules.h"
#include "analysis/finding.h"
#include "analysis/kernel_distribution.h"
#include "analysis/motifs.h"
#include "analysis/step_timeline.h"
#include "model/input_issue.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct FileHealth {
  std::string file;
  int64_t rows_read = 0;
  int64_t rows_used = 0;
  int64_t rows_skipped = 0;
  std::vector<std::pair<std::string, int64_t>> skipped_by_reason;
  std::vector<std::pair<std::string, int64_t>> notes_by_reason;
  std::vector<RowIssueSample> samples;
};

struct RankAnalysis {
  int32_t rank = -1;
  std::string source;
  std::string torch_npu_version;
  std::string cann_version;
  std::string profiler_level;
  int32_t selected_step = model::kNoStep;
  std::string selected_step_reason;
  std::string steps_from;  // where step numbers come from ("" = none: the whole capture)
  std::vector<StepDistribution> steps;  // every step present, ascending
  StepTimeline timeline;                // panorama of the selected step
  std::vector<FileHealth> files;
  std::vector<std::string> missing_files;
  std::vector<std::string> warnings;

  const StepDistribution* selected() const;
};

class FingerprintLibrary;
class FindingCatalog;

struct AnalysisOptions {
  std::optional<int32_t> step;  // --step
  const FingerprintLibrary* fingerprints =
      nullptr;  // --fingerprints (merged with the built-in); null: built-in
  DistributionOptions distribution;
  // Finding thresholds and texts (--thresholds overrides the built-in
  // data/thresholds.tsv); null: FindingCatalog::Builtin().
  const FindingCatalog* catalog = nullptr;
};

struct JobAnalysis {
  std::vector<std::string> inputs;
  // Input health beyond the ranks (set by the caller from the loader): ranks
  // that failed to load, and files under the inputs not taken as profiles.
  std::vector<model::InputIssue> failed_inputs;
  std::vector<model::InputIssue> skipped_inputs;
  std::vector<RankAnalysis> ranks;
  std::vector<std::string> family_names;
  std::vector<Finding> findings;  // the root-cause portrait, ranked by estimated gain
  ClusterAnalysis cluster;
};

// |threads|: the steps of the rank are analysed in parallel.
Result<RankAnalysis> AnalyzeRank(const model::RankProfile& profile, const FamilyRules& rules,
                                 const AnalysisOptions& options, unsigned threads = 1);

// Analyses every rank on up to |threads| threads. The first failing rank's
// error is returned (e.g. --step not present).
Result<JobAnalysis> AnalyzeJob(const std::vector<model::RankProfile>& profiles,
                               const FamilyRules& rules, const AnalysisOptions& options,
                               unsigned threads);

}  // namespace trainscope::analysis
