// The analysis of a whole job in two phases: each rank on its own
// (AnalyzeRank: everything a rank can say alone, for every step it has),
// then the job (Combine: the job's step, the cluster, the portrait). A
// rank's profile can be freed as soon as its RankResult exists, so a job
// needs memory for one profile per thread plus the results.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cluster/cluster.h"
#include "analysis/cluster/cluster_links.h"
#include "analysis/cluster/communication.h"
#include "analysis/common/family_rules.h"
#include "analysis/common/finding.h"
#include "analysis/common/gain_projection.h"
#include "analysis/common/l2_cache.h"
#include "analysis/job/run_grouping.h"
#include "analysis/motifs/motifs.h"
#include "analysis/step/kernel_distribution.h"
#include "analysis/step/step_selection.h"
#include "analysis/timeline/step_timeline.h"
#include "model/input_issue.h"
#include "model/platform.h"
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

// Who a rank is and how its input read: the same in its RankResult and in
// the RankAnalysis the reports show.
struct RankHeader {
  int32_t rank = -1;
  std::string source;
  std::string torch_npu_version;
  std::string cann_version;
  std::string profiler_level;
  model::Platform platform = model::Platform::kUnknown;  // model::DetectPlatform
  // The device the trace names (Kineto deviceProperties' first name, e.g.
  // "AMD Instinct MI300X"; an Ascend export's NPU name); "" when it names none.
  std::string device_name;
  // DetectWorkload: "training", "inference" or "unknown", and what says so.
  std::string workload = "unknown";
  std::string workload_evidence;
  // The parallel layout from profiler_metadata.json (empty / unset when the
  // profile has none): distributed_args' *_size entries, and this rank's
  // pipeline stage (its rank in the "pp" process group).
  std::map<std::string, int64_t> parallel_sizes;
  std::optional<int32_t> pipeline_stage;
  std::string steps_from;  // where step numbers come from ("" = none: the whole capture)
  std::vector<FileHealth> files;
  std::vector<std::string> missing_files;
  std::vector<std::string> warnings;
  // Every entry of the rank's directories, read or not (RankProfile::inventory).
  std::vector<model::InputFile> inventory;
  // l2_cache.csv summarised (Ascend, l2_cache=True); nullopt without the file.
  std::optional<L2CacheSummary> l2_cache;
};

struct RankAnalysis {
  RankHeader header;
  int32_t selected_step = model::kNoStep;
  std::string selected_step_reason;
  std::vector<StepDistribution> steps;  // every step present, ascending
  StepTimeline timeline;                // panorama of the selected step
  // The other steps whose kernels were kept (AnalysisOptions::
  // timeline_kernels), ascending, for the interactive timeline's step
  // selector: their track, strings, start, span and step-start idle only
  // (no gaps, zooms or overview).
  std::vector<StepTimeline> other_tracks;

  const StepDistribution* selected() const;
};

class FingerprintLibrary;
class FindingCatalog;
class MiningMemo;

struct AnalysisOptions {
  std::optional<int32_t> step;  // --step
  const FingerprintLibrary* fingerprints =
      nullptr;  // --fingerprints (merged with the built-in); null: built-in
  DistributionOptions distribution;
  // Finding thresholds and texts (--thresholds overrides the built-in
  // data/thresholds.tsv); null: FindingCatalog::Builtin().
  const FindingCatalog* catalog = nullptr;
  // Keep every kernel of each drawn step (StepTimeline::track) for the HTML
  // report's interactive timeline: set when --html is asked for, as it costs
  // ~40 bytes per kernel of every step a report may show.
  bool timeline_kernels = false;
};

// What a report says of ranks without device activity, and what to turn on.
inline constexpr const char* kNoDeviceActivityMessage =
    "the capture has no GPU/NPU kernels (no device activity: a CPU-only trace, or a profiler "
    "level that records no device data), so no kernel statistic, time budget or finding can be "
    "computed for it";
inline constexpr const char* kNoDeviceActivityRemedy =
    "capture device activity: torch.profiler.profile(activities=[ProfilerActivity.CPU, "
    "ProfilerActivity.CUDA]) on NVIDIA and AMD GPUs; torch_npu.profiler.profile(activities="
    "[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU]) with "
    "experimental_config profiler_level Level0 or above (not Level_none) on Ascend; and let the "
    "profiler run for at least one step";

struct JobAnalysis {
  std::vector<std::string> inputs;
  // Empty when the inputs form one run (the usual case); else every run,
  // the analysed one included, and only that one's ranks are in |ranks|.
  std::vector<RunSummary> runs;
  // Input health beyond the ranks (set by the caller from the loader): ranks
  // that failed to load, and files under the inputs not taken as profiles.
  std::vector<model::InputIssue> failed_inputs;
  std::vector<model::InputIssue> skipped_inputs;
  std::vector<RankAnalysis> ranks;
  std::vector<std::string> family_names;
  // The ranks' platform (unknown when they differ or none has device
  // activity): remedies name this platform's switches only.
  model::Platform platform = model::Platform::kUnknown;
  std::vector<Finding> findings;  // the root-cause portrait, ranked by estimated gain
  GainProjection projection;      // the step after applying every finding
  // Ranks whose capture has no device activity at all (no kernel, copy or
  // memset in any step): a CPU-only trace, or a profile level that records
  // no device data. Their numbers are unknown, not zero.
  std::vector<int32_t> ranks_without_device_activity;
  // Training-only findings not reported because every rank is inference
  // (IsTrainingOnlyFinding), by id.
  std::vector<std::string> withheld_for_inference;
  ClusterAnalysis cluster;
};

// What every rank's analysis shares: the rules, the options (--step,
// --fingerprints) and the threads one rank's steps may use.
struct JobContext {
  const FamilyRules& rules;
  AnalysisOptions options;
  unsigned step_threads = 1;
  // Minings remembered across the job's ranks; null: each rank keeps its own.
  MiningMemo* mining_memo = nullptr;
};

// One step of one rank, analysed as if it were the step chosen for the job.
struct RankStepResult {
  StepDistribution distribution;  // with its motifs
  StepTimeline timeline;          // zooms centred on the step's top motif
  std::vector<Finding> fingerprint_findings;
  std::vector<Finding> threshold_findings;
};

// Everything one rank can say alone, for every step it has; the job's step
// is chosen later, by Combine, from |steps_info| of every rank.
//
// Contract: plain data only. No pointer, view or string id into the
// profile or its StringPool survives in a RankResult, so the profile can be
// freed once it exists, and a RankResult can be serialised (what an MPI mode
// gathers and what `compare` diffs: rank_result_io.h).
struct RankResult {
  RankHeader header;
  RankSteps steps_info;               // steps present and their spans, for the job's step
  StepChoice own_step;                // this rank's choice, when the job has no common step
  std::vector<RankStepResult> steps;  // one per step present (kNoStep: none), ascending
  RankComm comm;                      // for the cluster stage
  RankLinks links;                    // communication_matrix.json records, for slow links
};

Result<RankResult> AnalyzeRank(const model::RankProfile& profile, const JobContext& context);

// The job from every rank's result (any order; sorted by rank here): the
// step every rank is shown on, each rank's findings on that step, the
// cluster analysis and the ranked portrait. Fails like --step does today
// when the requested step is missing on a rank (the lowest such rank).
Result<JobAnalysis> Combine(std::vector<RankResult>&& ranks, const JobContext& context);

// The two phases over profiles already in memory (tests, benchmarks): every
// rank analysed on up to |threads| threads, then Combine.
Result<JobAnalysis> AnalyzeJob(const std::vector<model::RankProfile>& profiles,
                               const FamilyRules& rules, const AnalysisOptions& options,
                               unsigned threads);

// One profile as a job of one rank.
Result<RankAnalysis> AnalyzeRank(const model::RankProfile& profile, const FamilyRules& rules,
                                 const AnalysisOptions& options, unsigned threads = 1);

}  // namespace trainscope::analysis
