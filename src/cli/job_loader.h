// Loading and analysing the ranks of a set of inputs, shared by `analyze`
// and `compare`: the rule files (families, fingerprints, activity rules,
// thresholds) read once, then every rank loaded, analysed on its own and
// freed (formats::ForEachProfile -> analysis::AnalyzeRank), and the results
// grouped into runs and combined into a job.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/job/run_grouping.h"
#include "analysis/motifs/fingerprint_library.h"
#include "core/progress.h"
#include "core/status.h"
#include "formats/load_profiles.h"
#include "model/input_issue.h"
#include "model/timeline_classify.h"

namespace trainscope::cli {

struct RuleFiles {
  std::string families_file;        // extra family rules, tried before the built-in ones
  std::string fingerprints_file;    // extra fingerprints, tried before the built-in ones
  std::string activity_rules_file;  // extra compute/communication name rules for GPU traces
  std::string thresholds_file;      // overrides of data/thresholds.tsv
};

// The rules every rank is analysed with. Not movable once Options() has
// been taken: the options point into it.
struct LoadedRules {
  analysis::FamilyRules rules;
  std::optional<analysis::FingerprintLibrary> fingerprints;
  std::optional<analysis::FindingCatalog> catalog;
  std::optional<std::vector<model::ClassRule>> activity_rules;

  analysis::AnalysisOptions Options(std::optional<int32_t> step) const;
  const analysis::FindingCatalog& Catalog() const;
};

Result<LoadedRules> LoadRuleFiles(const RuleFiles& files);

// Every rank of |paths|, analysed; keyed by discovery index.
struct AnalysedInputs {
  std::map<size_t, Result<analysis::RankResult>> results;
  std::map<size_t, analysis::RunIdentity> identities;  // the same keys
  size_t loaded = 0;
  std::vector<model::InputIssue> failed;   // ranks not loaded
  std::vector<model::InputIssue> skipped;  // files not taken as profiles
};

// Called for each rank analysed without error, while its profile is alive
// (from the worker threads, any order): the exports (export/job_export.h).
using RankSink = std::function<void(size_t index, const model::RankProfile& profile,
                                    const analysis::RankResult& result)>;

// Fails only when no rank loads or none has usable data. A |progress| line
// names each rank as it is done, with the rows read so far.
// With a |shard| of count > 1 (the MPI mode): only its block of ranks, and
// no job-wide error (formats::ForEachProfile).
Result<AnalysedInputs> AnalyseInputs(const std::vector<std::string>& paths, unsigned threads,
                                     const LoadedRules& rules,
                                     const analysis::AnalysisOptions& options,
                                     const formats::ProfileShard& shard = {},
                                     const RankSink* sink = nullptr, Progress* progress = nullptr);

// The results of one run, sorted by rank (discovery order among equal
// ranks); the first failed rank's error when any failed.
Result<std::vector<analysis::RankResult>> RankResultsOf(
    std::map<size_t, Result<analysis::RankResult>>&& results);

}  // namespace trainscope::cli
