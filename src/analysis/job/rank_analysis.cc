#include "analysis/job/rank_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>

#include "analysis/findings/fingerprint_findings.h"
#include "analysis/findings/memory_findings.h"
#include "analysis/findings/pipeline_findings.h"
#include "analysis/findings/replayed_gains.h"
#include "analysis/findings/threshold_findings.h"
#include "analysis/job/job_stages.h"
#include "analysis/job/workload.h"
#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/mining_memo.h"
#include "analysis/step/host_idle_spans.h"
#include "analysis/step/iteration_check.h"
#include "analysis/step/plausibility.h"
#include "analysis/step/profiler_agreement.h"
#include "analysis/step/step_selection.h"
#include "core/parallel.h"

namespace trainscope::analysis {

const StepDistribution* RankAnalysis::selected() const {
  for (const auto& step : steps) {
    if (step.step == selected_step) return &step;
  }
  return nullptr;
}

namespace {

FileHealth ToHealth(const RowLedger& ledger) {
  FileHealth health;
  health.file = ledger.file();
  health.rows_read = ledger.rows_read();
  health.rows_used = ledger.rows_used();
  health.rows_skipped = ledger.rows_skipped();
  health.skipped_by_reason.assign(ledger.skipped_by_reason().begin(),
                                  ledger.skipped_by_reason().end());
  health.notes_by_reason.assign(ledger.notes_by_reason().begin(), ledger.notes_by_reason().end());
  health.samples = ledger.samples();
  return health;
}

// The article zooms 40 ms -> 4 ms -> 1 ms until a periodic chain stands out;
// with the motifs mined, the zooms go straight to the most repeated
// fingerprinted chain that recurs across the step (instances spread over a
// quarter of it or more, like a per-layer chain; a tight loop such as the
// optimizer's is dense but not the layer structure), else the costliest.
// nullopt: no motif repeats; the zooms keep the densest compute region.
std::optional<ZoomCentre> TopMotifCentre(const StepDistribution& step) {
  if (step.motifs.empty()) return std::nullopt;
  const Motif* best = nullptr;
  const auto span_ns = static_cast<double>(step.kernels.span_ns);
  auto recurs_across_step = [&](const Motif& motif) {
    return motif.period_ns * static_cast<double>(motif.occurrences) >= 0.25 * span_ns;
  };
  for (const Motif& motif : step.motifs) {
    if (motif.instance_starts_ns.size() < 2) continue;
    if (motif.fingerprint.has_value() && !recurs_across_step(motif)) continue;
    bool better = false;
    if (best == nullptr) {
      better = true;
    } else if (motif.fingerprint.has_value() != best->fingerprint.has_value()) {
      better = motif.fingerprint.has_value();
    } else if (motif.fingerprint.has_value() && motif.occurrences != best->occurrences) {
      better = motif.occurrences > best->occurrences;
    } else {
      better = motif.total_ns > best->total_ns;
    }
    if (better) best = &motif;
  }
  if (best == nullptr) return std::nullopt;
  std::string chain;
  for (size_t i = 0; i < best->kernels.size() && i < 12; ++i) {
    chain += (i ? " → " : "") + best->kernels[i];
  }
  if (best->kernels.size() > 12) chain += " → …";
  std::string label =
      std::string(best->fingerprint ? "instances of the most repeated fingerprinted motif ("
                                    : "instances of the costliest motif (") +
      chain + ")";
  if (best->fingerprint) label += ", fingerprint " + *best->fingerprint;
  return ZoomCentre{best->instance_starts_ns, std::move(label)};
}

const FindingCatalog& CatalogOf(const AnalysisOptions& options) {
  return options.catalog != nullptr ? *options.catalog : FindingCatalog::Builtin();
}

// Every step's memory, made once for all the rank's steps: the steps are
// measured here, in parallel, because each step's findings need the gap
// shares of all of them. The allocator samples are dropped once they are
// measured (a trace's were the largest block alive at the peak of its
// analysis, beside the profile).
struct RankMemory {
  // |asked|: the steps the rank's analysis will ask for; those the device
  // events do not have (kNoStep: the whole capture) are measured here too,
  // while the samples are alive, but take no part in the gap shares.
  RankMemory(const model::RankProfile& profile, unsigned threads,
             const std::vector<int32_t>& asked) {
    const MemorySamples samples(profile);
    none = samples.none();
    if (none) return;
    std::vector<int32_t> steps = profile.device_events.Steps();  // ascending
    const size_t device_steps = steps.size();
    for (const int32_t step : asked) {
      if (!std::binary_search(steps.begin(), steps.begin() + static_cast<ptrdiff_t>(device_steps),
                              step)) {
        steps.push_back(step);
      }
    }
    std::vector<std::optional<MemoryUsage>> usage(steps.size());
    ParallelFor(steps.size(), threads,
                [&](size_t i) { usage[i] = ComputeMemoryUsage(profile, samples, steps[i]); });
    for (size_t i = 0; i < device_steps; ++i) by_step.emplace(steps[i], std::move(usage[i]));
    gaps = GapSharesOf(by_step);
    for (size_t i = device_steps; i < steps.size(); ++i) {
      by_step.emplace(steps[i], std::move(usage[i]));
    }
  }
  // The step's memory: measured above, or now, from the samples made again,
  // for a step nobody said it would ask for.
  std::optional<MemoryUsage> Of(const model::RankProfile& profile, int32_t step) const {
    if (const auto it = by_step.find(step); it != by_step.end()) return it->second;
    if (none) return std::nullopt;
    return ComputeMemoryUsage(profile, step);
  }
  bool none = true;  // no memory data at all
  std::map<int32_t, std::optional<MemoryUsage>> by_step;
  StepGapShares gaps;
};

// A step whose device timeline is set aside keeps the picture of its events
// (what the input holds), but none of the times measured on it: the wait at
// step start and the exposed shares of send/receive, all-to-all and the
// tensor-parallel group, which findings would turn into numbers.
void ForgetTimelineMeasures(StepTimeline* timeline) {
  timeline->step_start_idle_ns = 0;
  timeline->step_start_waits_for.clear();
  timeline->step_start_wait_collective_ns = 0;
  timeline->p2p_not_overlapped_ns = 0;
  timeline->all_to_all_not_overlapped_ns = 0;
  timeline->tensor_parallel_not_overlapped_ns = 0;
}

// Findings measured without the device timeline: on the step budget
// (step_trace_time.csv's when the timeline is set aside), the environment
// or the memory records. Every other finding (kernel shares, gaps, host
// waits, motifs and fingerprints) needs the timeline.
bool NeedsKernelTimeline(const Finding& f) {
  static constexpr std::string_view kWithout[] = {
      "exposed-communication", "host-bound", "launch-blocking",     "verbose-logging",
      "memory-peak",           "oom-risk",   "memory-fragmentation"};
  return std::find(std::begin(kWithout), std::end(kWithout), f.id) == std::end(kWithout);
}

void WithholdTimelineGains(const std::string& why, std::vector<Finding>* findings) {
  for (Finding& f : *findings) {
    if (!NeedsKernelTimeline(f)) continue;
    f.gain_withheld = true;
    f.estimated_gain_pct = 0;
    f.gain_model = why;
  }
}

// One step of one rank, as if the step were the one chosen for the job, in
// two parts: its measures (distribution, host sync, input bound, launch
// gaps, operator efficiency, memory), which run beside its motif mining
// (MineStepMotifs), then what needs both (motifs, module tree, timeline,
// findings).
// |implausible|: why the rank's device timeline is impossible, "" when it
// is not (plausibility.h): then every step's timeline is set aside.
void MeasureStep(const model::RankProfile& profile, int32_t step, const KernelFamilies& families,
                 const AnalysisOptions& options, const std::vector<uint32_t>& sync_calls,
                 const DataLoaderCalls& loader_calls, const RankMemory& memory,
                 const std::string& implausible, RankStepResult* result) {
  result->distribution = ComputeStepDistribution(profile, step, families, options.distribution);
  if (!implausible.empty()) SetTimelineAside(profile, implausible, &result->distribution);
  result->distribution.host_sync = ComputeHostSync(profile, step, sync_calls);
  result->distribution.data_loader = ComputeInputBound(profile, step, loader_calls);
  // Gaps between device events are the timeline's: none from one set aside.
  if (result->distribution.timeline_set_aside.empty())
    result->distribution.launch_gaps = ComputeLaunchGaps(profile, step);
  OperatorEfficiencyOptions efficiency;
  efficiency.yardstick_min_share = CatalogOf(options).thresholds().matmul_yardstick_min_share;
  result->distribution.operator_efficiency = ComputeOperatorEfficiency(profile, step, efficiency);
  result->distribution.memory = memory.Of(profile, step);
}

void FinishStep(const model::RankProfile& profile, const KernelFamilies& families,
                const RankMotifContext& motifs, FrameworkOpsMemo* ops_memo,
                const AnalysisOptions& options, bool picture, std::optional<StepMotifs> mined,
                const RankMemory& memory, RankStepResult* result) {
  const int32_t step = result->distribution.step;
  result->fingerprint_findings =
      AddStepMotifs(profile, motifs, std::move(mined), &result->distribution);
  result->distribution.module_tree = ComputeModuleTree(profile, step, result->distribution.motifs);
  result->distribution.framework_ops = ComputeFrameworkOps(profile, step, motifs.library, ops_memo);
  std::optional<ZoomCentre> centre = TopMotifCentre(result->distribution);
  TimelineOptions timeline_options;
  timeline_options.picture = picture;
  timeline_options.kernels = picture && options.timeline_kernels;
  result->timeline =
      ComputeStepTimeline(profile, step, families, timeline_options, centre ? &*centre : nullptr);
  AddTrackInstances(profile, result->distribution.motifs, timeline_options.max_track_kernels,
                    &result->timeline);
  const std::string& aside = result->distribution.timeline_set_aside;
  if (!aside.empty()) ForgetTimelineMeasures(&result->timeline);
  result->threshold_findings = ThresholdFindings(result->distribution, result->timeline, profile,
                                                 CatalogOf(options), &memory.gaps);
  const auto min_kernels = static_cast<int64_t>(CatalogOf(options).thresholds().judge_min_kernels);
  if (!result->distribution.kernels.known) {
    // Unknown kernels are not "0 kernels": the rank has no source of them.
    const std::string why =
        "gain withheld: this rank has no per-kernel data (no kernel_details.csv or trace device "
        "tasks): not enough to judge what a remedy would save";
    WithholdGains(why, &result->threshold_findings);
    WithholdGains(why, &result->fingerprint_findings);
  } else if (result->distribution.kernels.count < min_kernels) {
    const std::string why = fmt::format(
        "gain withheld: the step holds {} kernel{}, fewer than {} (judge_min_kernels, "
        "data/thresholds.tsv): not enough steps to judge what a remedy would save",
        result->distribution.kernels.count, result->distribution.kernels.count == 1 ? "" : "s",
        min_kernels);
    WithholdGains(why, &result->threshold_findings);
    WithholdGains(why, &result->fingerprint_findings);
  }
  if (!aside.empty()) {
    const std::string why =
        "gain not computed: this finding needs the kernel timeline, set aside "
        "because " +
        aside;
    WithholdTimelineGains(why, &result->threshold_findings);
    WithholdTimelineGains(why, &result->fingerprint_findings);
    // No report draws or quotes a timeline judged wrong: only the step and
    // why are kept.
    StepTimeline kept;
    kept.step = step;
    kept.drawn = false;
    kept.set_aside = aside;
    result->timeline = std::move(kept);
  }
}

RankAnalysis ToRankAnalysis(RankResult&& result, const StepChoice& choice) {
  RankAnalysis analysis;
  analysis.header = std::move(result.header);
  analysis.selected_step = choice.step;
  analysis.selected_step_reason = choice.reason;
  for (RankStepResult& step : result.steps) {
    if (step.distribution.step == choice.step) {
      analysis.timeline = std::move(step.timeline);
    } else if (!step.timeline.track.kernels.empty()) {
      StepTimeline& other = analysis.other_tracks.emplace_back(std::move(step.timeline));
      other.longest_gaps.clear();
      other.zooms.clear();
      other.overview = {};
    }
    analysis.steps.push_back(std::move(step.distribution));
  }
  if (analysis.timeline.step != choice.step) {
    analysis.timeline = StepTimeline();
    analysis.timeline.step = choice.step;
  }
  if (!analysis.timeline.drawn && analysis.timeline.set_aside.empty()) {
    analysis.header.warnings.push_back(fmt::format(
        "step {0} is this rank's first captured step, whose timeline picture (gaps, zooms, "
        "overview) is not computed, as a warm-up step is never shown unless it is the only step "
        "all ranks share; rerun with --step {0} to draw it",
        choice.step));
  }
  return analysis;
}

// One warning per rank when its time budget and step_trace_time.csv disagree
// by more than the tolerance in any step: the steps whose budget follows
// another source that agrees, and the steps whose device timeline is set
// aside because none agrees (the first one's differences quoted). An
// implausible rank's steps are set aside too; its own warning says so.
void WarnWhenTheProfilerDisagrees(const std::vector<RankStepResult>& steps,
                                  std::string_view budget_file, bool implausible,
                                  RankHeader* header) {
  std::vector<int32_t> replaced;
  std::string replaced_by;
  std::vector<int32_t> set_aside;
  const StepDistribution* first_aside = nullptr;
  for (const RankStepResult& s : steps) {
    const StepDistribution& d = s.distribution;
    if (!d.timeline_set_aside.empty()) {
      set_aside.push_back(d.step);
      if (first_aside == nullptr) first_aside = &d;
    } else if (d.breakdown && !d.breakdown->replaced.empty()) {
      replaced.push_back(d.step);
      replaced_by = d.breakdown->source;
    }
  }
  auto list_of = [](const std::vector<int32_t>& list) {
    std::string text;
    for (int32_t s : list) text += fmt::format("{}{}", text.empty() ? "" : ", ", s);
    return text;
  };
  if (!replaced.empty()) {
    header->warnings.push_back(fmt::format(
        "{0} disagrees with step_trace_time.csv by more than {1:.0f}% in step(s) {2}, and {3} "
        "agrees: the time budget of those steps follows {3} (the 'time' line names it); check {0} "
        "for missing or mistyped rows",
        budget_file, kProfilerAgreementShare * 100, list_of(replaced), replaced_by));
  }
  if (set_aside.empty() || implausible) return;
  header->warnings.push_back(fmt::format(
      "no source of device events agrees with step_trace_time.csv within {0:.0f}% of the step in "
      "{1} of {2} steps ({3}); step {4}: {5}. The time budget of those steps comes from "
      "step_trace_time.csv (the 'time' line names it), their busy span, issue rate and step-start "
      "wait are not computed, and the findings that need the kernel timeline show their gain as "
      "not computed. Hint: rows skipped or missing in {6} (input health below) or device tasks "
      "of a type this version does not know",
      kProfilerAgreementShare * 100, set_aside.size(), steps.size(), list_of(set_aside),
      first_aside->step, first_aside->timeline_set_aside, budget_file));
}

// The step the projection is of: the cluster's mean step time, else the
// mean of the ranks' selected steps (time budget, else kernel span).
std::optional<int64_t> JobStepNs(const JobAnalysis& job) {
  if (job.cluster.present && job.cluster.mean_step_time_ns > 0)
    return static_cast<int64_t>(std::llround(job.cluster.mean_step_time_ns));
  double sum = 0;
  int64_t ranks = 0;
  for (const RankAnalysis& rank : job.ranks) {
    const StepDistribution* step = rank.selected();
    if (step == nullptr) continue;
    int64_t ns = step->breakdown ? step->breakdown->budget.total_ns : 0;
    if (ns <= 0 && step->kernels.count > 0) ns = step->kernels.span_ns;
    if (ns <= 0) continue;
    sum += static_cast<double>(ns);
    ++ranks;
  }
  if (ranks == 0) return std::nullopt;
  return static_cast<int64_t>(std::llround(sum / static_cast<double>(ranks)));
}

// Device work in the profile: kernels, copies or memsets, or device time in
// the profiler's own step accounting (a rank whose kernel_details.csv is
// missing still ran on the device: its kernels are unknown, not absent).
bool HasDeviceActivity(const RankAnalysis& rank) {
  return std::any_of(rank.steps.begin(), rank.steps.end(), [](const StepDistribution& s) {
    const bool events = s.kernels.count + s.kernels.memcpy_count + s.kernels.memset_count > 0;
    const bool accounted =
        s.step_trace && s.step_trace->computing_ns + s.step_trace->communication_ns > 0;
    return events || accounted;
  });
}

// Whether a report can show |step| of this rank, so that its timeline needs
// the picture: with --step only that step; else every step but the first
// captured one when two or more steps have kernels, as the step choice
// (step_selection.cc) skips it as warm-up. A job step that is this rank's
// first step anyway (the only step every rank shares) is told as a warning.
bool MayBeShown(const RankSteps& steps, int32_t step, std::optional<int32_t> requested) {
  if (requested) return step == *requested;
  return steps.spans_ns.size() < 2 || steps.present.empty() || step != steps.present.front();
}

// The platform all ranks with device activity share; unknown when they
// differ (inputs of different platforms are different runs) or none has one.
model::Platform JobPlatform(const std::vector<RankResult>& ranks) {
  std::optional<model::Platform> common;
  for (const RankResult& rank : ranks) {
    const model::Platform p = rank.header.platform;
    if (p == model::Platform::kUnknown) continue;
    if (common && *common != p) return model::Platform::kUnknown;
    common = p;
  }
  return common.value_or(model::Platform::kUnknown);
}

// stage-imbalance from each rank's pipeline stage (profiler_metadata.json)
// and the computation of its shown step.
void AddPipelineFindings(JobAnalysis* job, const FindingCatalog& catalog) {
  std::vector<StageComputation> stages;
  for (const RankAnalysis& rank : job->ranks) {
    const StepDistribution* step = rank.selected();
    if (!rank.header.pipeline_stage || step == nullptr || !step->breakdown) continue;
    const TimeBudget& budget = step->breakdown->budget;
    stages.push_back(StageComputation{rank.header.rank, *rank.header.pipeline_stage,
                                      budget.computation_ns, budget.total_ns});
  }
  std::vector<Finding> found;
  AddStageImbalance(stages, catalog.thresholds(), &found);
  RenderFindings(catalog, &found, job->platform);
  job->findings.insert(job->findings.end(), std::make_move_iterator(found.begin()),
                       std::make_move_iterator(found.end()));
}

// memory-imbalance from each rank's allocated peak in its shown step.
void AddMemoryFindings(JobAnalysis* job, const FindingCatalog& catalog) {
  std::vector<RankMemoryPeak> peaks;
  for (const RankAnalysis& rank : job->ranks) {
    const StepDistribution* step = rank.selected();
    if (step == nullptr || !step->memory || !step->memory->peak_allocated_bytes) continue;
    peaks.push_back(RankMemoryPeak{rank.header.rank, *step->memory->peak_allocated_bytes});
  }
  std::vector<Finding> found;
  AddMemoryImbalance(std::move(peaks), catalog.thresholds(), &found);
  RenderFindings(catalog, &found, job->platform);
  job->findings.insert(job->findings.end(), std::make_move_iterator(found.begin()),
                       std::make_move_iterator(found.end()));
}

bool HasStep(const RankSteps& steps, int32_t step) {
  return std::find(steps.present.begin(), steps.present.end(), step) != steps.present.end();
}

// An inference job (every rank inference) gets no finding whose remedy
// assumes training; the ids withheld are named in the report.
void WithholdTrainingOnlyFindings(JobAnalysis* job) {
  const bool inference =
      !job->ranks.empty() &&
      std::all_of(job->ranks.begin(), job->ranks.end(),
                  [](const RankAnalysis& r) { return r.header.workload == "inference"; });
  if (!inference) return;
  std::vector<Finding> kept;
  for (Finding& f : job->findings) {
    if (IsTrainingOnlyFinding(f.id)) {
      job->withheld_for_inference.push_back(f.id);
    } else {
      kept.push_back(std::move(f));
    }
  }
  job->findings = std::move(kept);
}

}  // namespace

Result<RankResult> AnalyzeRank(const model::RankProfile& profile, const JobContext& context) {
  RankResult result;
  RankHeader& header = result.header;
  header.rank = profile.rank;
  header.source = profile.source_dir;
  header.torch_npu_version = profile.info.torch_npu_version;
  header.cann_version = profile.info.cann_version;
  header.profiler_level = profile.info.profiler_level;
  header.platform = model::DetectPlatform(profile);
  header.device_name = profile.info.device_name;
  if (header.device_name.empty() && !profile.timeline.devices.empty())
    header.device_name = model::DeviceLabel(profile.timeline.devices.front());
  Workload workload = DetectWorkload(profile);
  header.workload = std::move(workload.kind);
  header.workload_evidence = std::move(workload.evidence);
  header.parallel_sizes = profile.info.parallel_sizes;
  for (const model::CaptureInfo::ParallelGroup& group : profile.info.parallel_groups) {
    if (group.name == "pp" && group.group_rank >= 0) header.pipeline_stage = group.group_rank;
  }
  header.steps_from = profile.steps_from;
  for (const auto& ledger : profile.ledgers) header.files.push_back(ToHealth(ledger));
  header.missing_files = profile.missing_files;
  header.inventory = profile.inventory;
  header.warnings = profile.warnings;
  header.l2_cache = SummarizeL2Cache(profile);
  result.steps_info = RankStepsOf(profile);
  // Without --step the rank's own choice cannot fail; --step is checked by
  // Combine, rank by rank, as the job's choice.
  TS_ASSIGN_OR_RETURN(result.own_step, SelectStep(result.steps_info, std::nullopt));
  if (profile.device_events.size() == 0 && result.own_step.step == model::kNoStep) {
    // Not "no ProfilerStep schedule": the trace may well have step windows,
    // but nothing ran on the device in them.
    result.own_step.reason =
        "no device activity in the capture (no GPU/NPU kernel, copy or memset): no step can be "
        "measured, the whole capture is shown as one step";
  }

  std::vector<int32_t> steps = result.steps_info.present;
  if (steps.empty()) steps.push_back(model::kNoStep);
  const KernelFamilies families(profile, context.rules);
  const FingerprintLibrary& full =
      context.options.fingerprints ? *context.options.fingerprints : FingerprintLibrary::Builtin();
  // An Ascend rank's kernels have op types: the GPU rows (kernel-name globs)
  // cannot match them and only cost time.
  std::optional<FingerprintLibrary> ascend_only;
  if (header.platform == model::Platform::kAscend) ascend_only = full.WithoutNameOnlyRows();
  const FingerprintLibrary& library = ascend_only ? *ascend_only : full;
  const HostAttributor host(profile);
  FingerprintAcceptMemo accept_memo(library);
  MiningMemo rank_mining_memo;
  MiningMemo* const mining_memo =
      context.mining_memo != nullptr ? context.mining_memo : &rank_mining_memo;
  const RankMotifContext motifs{library, host, CatalogOf(context.options), &accept_memo,
                                mining_memo};
  FrameworkOpsMemo ops_memo(library, &accept_memo);
  const std::vector<uint32_t> sync_calls = FindHostSyncCalls(profile);
  const DataLoaderCalls loader_calls = FindDataLoaderCalls(profile);
  const RankMemory memory(profile, context.step_threads, steps);
  const std::string implausible = PlausibilityWarning(profile);
  const std::string implausible_why =
      implausible.empty()
          ? std::string()
          : fmt::format(
                "the device timeline of {} is implausible (kernels of one stream overlap, start "
                "together or outlast the step: the rank's warning has the numbers)",
                std::filesystem::path(profile.device_events_from).filename().string());
  result.steps.resize(steps.size());
  // Mining is the costliest analysis: a single big rank has dozens of steps,
  // so they share the cores the other ranks leave, and a step's mining runs
  // beside its other measures, so that a rank of two or three big steps
  // keeps both cores busy too (three steps of 1 M kernels were two rounds of
  // whole steps on two cores). The rank's communication summary reads the
  // whole profile, not a step: one more task beside them, handed out first
  // (last, with a hundred short steps before it, it ran alone at the end);
  // the minings, the longer tasks, before the measures.
  std::vector<std::optional<StepMotifs>> mined(steps.size());
  ParallelFor(1 + 2 * steps.size(), context.step_threads, [&](size_t task) {
    if (task == 0) {
      result.comm = SummarizeRankCommunication(
          profile, CommOptionsOf(CatalogOf(context.options).thresholds()));
      ChargeHostIdle(HostIdleSpans(profile, loader_calls, sync_calls),
                     profile.timeline.host_ops.size() > 0, &result.comm);
    } else if (task <= steps.size()) {
      mined[task - 1] = MineStepMotifs(profile, motifs, steps[task - 1]);
    } else {
      const size_t i = task - 1 - steps.size();
      MeasureStep(profile, steps[i], families, context.options, sync_calls, loader_calls, memory,
                  implausible_why, &result.steps[i]);
    }
  });
  ParallelFor(steps.size(), context.step_threads, [&](size_t i) {
    FinishStep(profile, families, motifs, &ops_memo, context.options,
               MayBeShown(result.steps_info, steps[i], context.options.step), std::move(mined[i]),
               memory, &result.steps[i]);
  });
  if (!implausible.empty()) header.warnings.push_back(implausible);
  if (std::string iterations = IterationWarning(profile); !iterations.empty()) {
    header.warnings.push_back(std::move(iterations));
  }
  WarnWhenTheProfilerDisagrees(
      result.steps, std::filesystem::path(profile.device_events_from).filename().string(),
      /*implausible=*/!implausible.empty(), &header);
  result.links = RankLinks{profile.rank, profile.communication.links};
  return result;
}

Result<JobAnalysis> Combine(std::vector<RankResult>&& ranks, const JobContext& context) {
  const AnalysisOptions& options = context.options;
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankResult& a, const RankResult& b) {
    return a.header.rank < b.header.rank;
  });
  // Phase one: the job's step, from every rank's steps and spans.
  std::optional<StepChoice> job_step;
  if (!options.step) {
    std::vector<RankSteps> steps;
    steps.reserve(ranks.size());
    for (const RankResult& rank : ranks) steps.push_back(rank.steps_info);
    job_step = SelectJobStep(steps);
  }
  std::vector<StepChoice> choices;
  for (const RankResult& rank : ranks) {
    if (options.step) {
      TS_ASSIGN_OR_RETURN(StepChoice requested, SelectStep(rank.steps_info, options.step));
      choices.push_back(std::move(requested));
    } else if (job_step && HasStep(rank.steps_info, job_step->step)) {
      choices.push_back(*job_step);
    } else {
      // A rank without that step (e.g. no kernel_details) keeps its own choice.
      choices.push_back(rank.own_step);
    }
  }
  // Phase two: each rank's results on its step, then the job stages.
  JobAnalysis job;
  job.family_names = context.rules.families();
  job.platform = JobPlatform(ranks);
  std::vector<std::vector<Finding>> per_rank(ranks.size());
  std::vector<RankComm> comm;
  std::vector<RankLinks> links;
  comm.reserve(ranks.size());
  links.reserve(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (RankStepResult& step : ranks[i].steps) {
      if (step.distribution.step != choices[i].step) continue;
      per_rank[i] = std::move(step.fingerprint_findings);
      per_rank[i].insert(per_rank[i].end(),
                         std::make_move_iterator(step.threshold_findings.begin()),
                         std::make_move_iterator(step.threshold_findings.end()));
    }
    // Text only for the findings of the step shown: a rank's findings are
    // data (ids and values) until here.
    RenderFindings(CatalogOf(options), &per_rank[i], job.platform);
    comm.push_back(std::move(ranks[i].comm));
    links.push_back(std::move(ranks[i].links));
    job.ranks.push_back(ToRankAnalysis(std::move(ranks[i]), choices[i]));
  }
  ranks.clear();
  job.findings = MergeRankFindings(std::move(per_rank));
  const std::optional<StepReplay> replay =
      AddClusterAnalysis(std::move(comm), links, &job, CatalogOf(options));
  AddPipelineFindings(&job, CatalogOf(options));
  AddMemoryFindings(&job, CatalogOf(options));
  WithholdTrainingOnlyFindings(&job);
  // Every finding made and kept: the replay re-estimates those it can.
  if (replay) ReplayFindingGains(*replay, CatalogOf(options), &job.cluster, &job.findings);
  for (Finding& f : job.findings) f.estimated_gain_pct = ClampGainPct(f.estimated_gain_pct);
  RankFindings(&job.findings);
  job.projection = ProjectGains(job.findings, JobStepNs(job),
                                job.cluster.critical_path.findings_together_gain_pct);
  for (const RankAnalysis& rank : job.ranks) {
    if (!HasDeviceActivity(rank)) job.ranks_without_device_activity.push_back(rank.header.rank);
  }
  return job;
}

Result<JobAnalysis> AnalyzeJob(const std::vector<model::RankProfile>& profiles,
                               const FamilyRules& rules, const AnalysisOptions& options,
                               unsigned threads) {
  // Fewer ranks than cores (one big trace): the steps of each rank share the rest.
  const unsigned step_threads = ThreadsPerItem(threads, profiles.size());
  MiningMemo mining_memo;
  const JobContext context{rules, options, step_threads, &mining_memo};
  std::vector<std::optional<Result<RankResult>>> results(profiles.size());
  ParallelFor(profiles.size(), threads,
              [&](size_t i) { results[i].emplace(AnalyzeRank(profiles[i], context)); });
  std::vector<RankResult> ranks;
  ranks.reserve(results.size());
  for (auto& result : results) {
    if (!result->ok()) return result->status();
    ranks.push_back(std::move(*result).value());
  }
  return Combine(std::move(ranks), context);
}

Result<RankAnalysis> AnalyzeRank(const model::RankProfile& profile, const FamilyRules& rules,
                                 const AnalysisOptions& options, unsigned threads) {
  const JobContext context{rules, options, std::max(1u, threads)};
  TS_ASSIGN_OR_RETURN(RankResult result, AnalyzeRank(profile, context));
  std::vector<RankResult> ranks;
  ranks.push_back(std::move(result));
  TS_ASSIGN_OR_RETURN(JobAnalysis job, Combine(std::move(ranks), context));
  return std::move(job.ranks.front());
}

}  // namespace trainscope::analysis
