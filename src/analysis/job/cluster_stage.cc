// The cluster stage: from the per-rank communication summaries (made by each
// rank's own analysis), cross-rank step timing, stragglers, slow links,
// collective statistics and the findings.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "analysis/cluster/clock_alignment.h"
#include "analysis/cluster/cluster_links.h"
#include "analysis/cluster/communication.h"
#include "analysis/cluster/critical_path.h"
#include "analysis/cluster/step_replay.h"
#include "analysis/cluster/straggler.h"
#include "analysis/common/statistics.h"
#include "analysis/findings/cluster_findings.h"
#include "analysis/job/job_stages.h"
#include "core/numbers.h"
#include "core/rank_ranges.h"

namespace trainscope::analysis {
namespace {

// The step every rank is compared on: the selected one, else the last step
// that every rank has.
int32_t ComparedStep(const std::vector<RankComm>& comm, const JobAnalysis& job) {
  // A rank without device events (no kernel_details.csv, a CPU-only trace)
  // has no steps here and cannot veto the step the others share.
  auto has = [&](int32_t step) {
    return std::all_of(comm.begin(), comm.end(), [step](const RankComm& rc) {
      return rc.steps.empty() ||
             std::any_of(rc.steps.begin(), rc.steps.end(),
                         [step](const RankStepComm& s) { return s.step == step; });
    });
  };
  if (!job.ranks.empty() && has(job.ranks.front().selected_step))
    return job.ranks.front().selected_step;
  if (comm.empty()) return -1;
  for (auto it = comm.front().steps.rbegin(); it != comm.front().steps.rend(); ++it) {
    if (has(it->step)) return it->step;
  }
  return comm.front().steps.empty() ? -1 : comm.front().steps.back().step;
}

// The budget of |step| of |rank| when its device timeline is set aside
// (step_trace_time.csv's), else null.
const TimeBudget* SetAsideBudget(const RankAnalysis& rank, int32_t step) {
  for (const StepDistribution& d : rank.steps) {
    if (d.step == step && !d.timeline_set_aside.empty() && d.breakdown) return &d.breakdown->budget;
  }
  return nullptr;
}

// A rank whose timeline of the step is set aside enters with its budget
// (step_trace_time.csv's step, communication and exposed communication),
// never with the span of the timeline judged wrong; its times on that
// timeline (start offset, step-start wait, pseudo-overlap) are unknown.
void UseSetAsideBudget(const TimeBudget& budget, RankClusterStats* row) {
  row->timeline_set_aside = true;
  row->step_time_ns = budget.total_ns;
  row->comm_ns = budget.communication_ns;
  row->exposed_comm_ns = budget.exposed_communication_ns;
  row->step_start_offset_ns = 0;
  row->step_start_wait_ns = 0;
  row->pseudo_overlap_ns = 0;
  row->pseudo_overlap_count = 0;
}

// |ranks|: the job's ranks, in |comm|'s order.
void FillPerRank(const std::vector<RankComm>& comm, const std::vector<RankAnalysis>& ranks,
                 int32_t step, ClusterAnalysis* c) {
  auto aside = [&](size_t i) {
    return i < ranks.size() ? SetAsideBudget(ranks[i], step) : nullptr;
  };
  int64_t earliest = INT64_MAX;
  for (size_t i = 0; i < comm.size(); ++i) {
    if (aside(i) != nullptr) continue;
    for (const RankStepComm& s : comm[i].steps) {
      if (s.step == step) earliest = std::min(earliest, s.first_start_ns);
    }
  }
  int64_t sum = 0, lo = INT64_MAX, hi = 0, skew = 0, wait_sum = 0;
  int64_t with_step = 0, with_timeline = 0;
  for (size_t i = 0; i < comm.size(); ++i) {
    const RankComm& rc = comm[i];
    RankClusterStats row;
    row.rank = rc.rank;
    row.step = step;
    row.wait_ratio = rc.wait_ratio;
    row.sync_ratio = rc.sync_ratio;
    bool has_step = false;
    for (const RankStepComm& s : rc.steps) {
      if (s.step != step) continue;
      // The step's time: a GPU trace's iteration, else its device span.
      row.step_time_ns = s.iteration_ns > 0 ? s.iteration_ns : s.last_end_ns - s.first_start_ns;
      row.step_start_offset_ns = s.first_start_ns - earliest;
      row.step_start_wait_ns = s.step_start_wait_ns;
      row.comm_ns = s.comm_ns;
      row.exposed_comm_ns = s.exposed_ns;
      row.pseudo_overlap_ns = s.pseudo_overlap_ns;
      row.pseudo_overlap_count = s.pseudo_overlap_count;
      row.all_gathers = s.all_gathers;
      row.collectives = s.collectives;
      row.small_collectives = s.small_collectives;
      row.small_comm_ns = s.small_ns;
      has_step = true;
      row.has_device_step = true;
    }
    if (const TimeBudget* budget = aside(i); has_step && budget != nullptr)
      UseSetAsideBudget(*budget, &row);
    c->per_rank.push_back(row);
    // A rank without kernels in the step (kernel_details.csv missing, as in
    // the Qwen sample's ranks 1 and 3) has no step time: a 0 there would
    // turn the spread into 200% and halve the mean.
    if (!has_step) continue;
    ++with_step;
    AddSaturating(sum, row.step_time_ns);
    lo = std::min(lo, row.step_time_ns);
    hi = std::max(hi, row.step_time_ns);
    if (row.timeline_set_aside) continue;
    ++with_timeline;
    skew = std::max(skew, row.step_start_offset_ns);
    AddSaturating(wait_sum, row.step_start_wait_ns);
    c->max_step_start_wait_ns = std::max(c->max_step_start_wait_ns, row.step_start_wait_ns);
  }
  c->ranks_with_step = static_cast<int32_t>(with_step);
  c->ranks_with_timeline = static_cast<int32_t>(with_timeline);
  const double n = static_cast<double>(std::max<int64_t>(1, with_step));
  c->mean_step_time_ns = static_cast<double>(sum) / n;
  c->step_time_spread_pct = with_step > 0 && c->mean_step_time_ns > 0
                                ? static_cast<double>(hi - lo) / c->mean_step_time_ns * 100
                                : 0;
  c->first_kernel_skew_ns = skew;
  c->mean_step_start_wait_ns =
      static_cast<double>(wait_sum) / static_cast<double>(std::max<int64_t>(1, with_timeline));
}

// The steps of |rank| whose device timeline is set aside, and whether
// that is every step it has (an implausible timeline: then none of its
// collectives, in a step or not, has a time worth comparing).
struct SetAsideSteps {
  std::vector<int32_t> steps;
  bool every_step = false;
  std::string why;  // the first set-aside step's reason
};

SetAsideSteps SetAsideStepsOf(const RankAnalysis& rank) {
  SetAsideSteps out;
  for (const StepDistribution& d : rank.steps) {
    if (d.timeline_set_aside.empty()) continue;
    out.steps.push_back(d.step);
    if (out.why.empty()) out.why = d.timeline_set_aside;
  }
  out.every_step = !out.steps.empty() && out.steps.size() == rank.steps.size();
  return out;
}

bool IsSetAside(const SetAsideSteps& aside, int32_t step) {
  return aside.every_step ||
         std::find(aside.steps.begin(), aside.steps.end(), step) != aside.steps.end();
}

std::vector<SetAsideSteps> SetAsideStepsOfRanks(const std::vector<RankAnalysis>& ranks,
                                                size_t count) {
  std::vector<SetAsideSteps> out(count);
  for (size_t i = 0; i < count && i < ranks.size(); ++i) out[i] = SetAsideStepsOf(ranks[i]);
  return out;
}

// One call of a collective seen across ranks: its shortest duration (the
// others include waiting) and the best-known message and group size.
struct CollectiveCall {
  CollectiveType type = CollectiveType::kOther;
  int32_t group_size = -1;
  GroupSizeSource source = GroupSizeSource::kUnknown;
  int64_t min_ns = INT64_MAX;
  double bytes = 0;
};

// Counts one rank's call in its type's totals. A call read off a set-aside
// timeline counts, and its message and transfer times (communication.json)
// stand, but its duration is no evidence: the total, the mean and "small"
// are over the timed calls only.
void CountCall(const CommInstance& op, bool timed, const CommOptions& options,
               CollectiveTypeStats* s) {
  ++s->count;
  if (op.transit_ns >= 0) AddSaturating(s->transit_ns, op.transit_ns);
  if (op.wait_ns >= 0) AddSaturating(s->wait_ns, op.wait_ns);
  if (op.sync_ns >= 0) AddSaturating(s->sync_ns, op.sync_ns);
  if (!timed) return;
  ++s->timed_count;
  AddSaturating(s->total_ns, op.duration_ns);
  const bool small =
      op.duration_ns < options.small_duration_ns && !(SmallSliceBytes(op) >= options.small_bytes);
  if (small) {
    ++s->small_count;
    AddSaturating(s->small_ns, op.duration_ns);
  }
}

// Folds one rank's view of a call into the call.
void MergeCall(const CommInstance& op, bool timed, CollectiveCall* call) {
  call->type = op.type;
  // The best-sourced size any member knows (a lower bound from links
  // yields to a recorded one).
  if (op.group_size > 0 &&
      (call->group_size <= 0 || op.group_size_source < call->source ||
       (op.group_size_source == call->source && op.group_size > call->group_size))) {
    call->group_size = op.group_size;
    call->source = op.group_size_source;
  }
  if (timed) call->min_ns = std::min(call->min_ns, op.duration_ns);
  call->bytes = std::max(call->bytes, op.bytes);
}

// Per collective type over every rank and step (docs/clusters.md §1):
// count and total over every rank's calls; the message, algorithm and bus
// bandwidth per call (instance), each instance's duration being its
// shortest across ranks (the others include waiting), as TraceLens does.
void FillCollectives(const std::vector<RankComm>& comm, const std::vector<SetAsideSteps>& aside,
                     const CommOptions& options, ClusterAnalysis* c) {
  std::unordered_map<std::string, CollectiveCall> instances;
  CollectiveTypeStats stats[kCollectiveTypes];
  for (size_t i = 0; i < comm.size(); ++i) {
    for (const CommInstance& op : comm[i].ops) {
      const bool timed = !IsSetAside(aside[i], op.step);
      CountCall(op, timed, options, &stats[static_cast<int>(op.type)]);
      MergeCall(op, timed, &instances[std::to_string(op.step) + "|" + op.key]);
    }
  }
  std::vector<double> algbw[kCollectiveTypes], busbw[kCollectiveTypes];
  double bytes_sum[kCollectiveTypes] = {};
  int64_t bytes_n[kCollectiveTypes] = {};
  for (const auto& [key, inst] : instances) {
    const int t = static_cast<int>(inst.type);
    CollectiveTypeStats& s = stats[t];
    ++s.instances;
    if (inst.group_size > 0) {
      s.group_size_min =
          s.group_size_min > 0 ? std::min(s.group_size_min, inst.group_size) : inst.group_size;
      s.group_size_max = std::max(s.group_size_max, inst.group_size);
      s.group_size_source = std::max(s.group_size_source, inst.source);  // the weakest
    } else {
      ++s.group_size_unknown;
    }
    if (inst.bytes <= 0) continue;
    bytes_sum[t] += inst.bytes;
    ++bytes_n[t];
    if (inst.min_ns <= 0 || inst.min_ns == INT64_MAX) continue;        // no timed member
    const double alg = inst.bytes / static_cast<double>(inst.min_ns);  // bytes/ns = GB/s
    algbw[t].push_back(alg);
    if (inst.group_size > 0)
      busbw[t].push_back(alg * BusBandwidthFactor(inst.type, inst.group_size));
  }
  for (int t = 0; t < kCollectiveTypes; ++t) {
    CollectiveTypeStats& s = stats[t];
    if (s.count == 0) continue;
    s.type = CollectiveTypeName(static_cast<CollectiveType>(t));
    s.mean_bytes = bytes_n[t] ? bytes_sum[t] / static_cast<double>(bytes_n[t]) : 0;
    s.bandwidth_known = !algbw[t].empty();
    s.algbw_gbps = s.bandwidth_known ? Median(algbw[t]) : 0;
    s.busbw_known = !busbw[t].empty();
    s.busbw_gbps = s.busbw_known ? Median(busbw[t]) : 0;
    c->collectives.push_back(s);
  }
  std::sort(c->collectives.begin(), c->collectives.end(),
            [](const CollectiveTypeStats& a, const CollectiveTypeStats& b) {
              return a.total_ns > b.total_ns;
            });
}

// The straggler methods' input: every rank's collectives less those of its
// set-aside steps, whose start times and durations are the timeline judged
// wrong (a late start of +-1 ms read off spreadsheet-rounded start times is
// no evidence). Counts each rank's set-aside steps and says, in the
// cluster's notes, which ranks the methods could not compare and why.
std::vector<RankComm> TimedCollectives(const std::vector<RankComm>& comm,
                                       const std::vector<SetAsideSteps>& set_aside,
                                       ClusterAnalysis* c) {
  std::vector<RankComm> timed = comm;
  std::vector<int32_t> not_compared;
  std::string not_compared_why;
  for (size_t i = 0; i < timed.size(); ++i) {
    const SetAsideSteps& aside = set_aside[i];
    c->per_rank[i].steps_set_aside = static_cast<int64_t>(aside.steps.size());
    if (aside.steps.empty()) continue;
    RankComm& rc = timed[i];
    std::erase_if(rc.ops, [&](const CommInstance& op) { return IsSetAside(aside, op.step); });
    std::erase_if(rc.steps, [&](const RankStepComm& s) { return IsSetAside(aside, s.step); });
    if (aside.every_step) {
      not_compared.push_back(rc.rank);
      if (not_compared_why.empty()) not_compared_why = aside.why;
      continue;
    }
    std::string list;
    for (int32_t step : aside.steps) list += fmt::format("{}{}", list.empty() ? "" : ", ", step);
    c->notes.push_back(fmt::format(
        "rank {}: device timeline set aside in step(s) {} ({}): those steps' collectives are left "
        "out of the straggler methods",
        rc.rank, list, aside.why));
  }
  if (!not_compared.empty()) {
    c->notes.push_back(fmt::format(
        "{} {}: device timeline set aside in every step ({}): their collective times are not "
        "evidence, so arrival order, lateness, late start and least communication are not "
        "concluded for them (n/a); compute imbalance uses step_trace_time.csv's computation",
        not_compared.size() == 1 ? "rank" : "ranks", CompactRankList(not_compared),
        not_compared_why));
  }
  return timed;
}

}  // namespace

std::optional<StepReplay> AddClusterAnalysis(std::vector<RankComm> comm,
                                             const std::vector<RankLinks>& links, JobAnalysis* job,
                                             const FindingCatalog& catalog) {
  ClusterAnalysis& c = job->cluster;
  c.ranks = static_cast<int32_t>(comm.size());
  if (comm.size() < 2) return std::nullopt;
  c.present = true;
  for (size_t i = 0; i < comm.size(); ++i) {
    if (comm[i].rank < 0) comm[i].rank = static_cast<int32_t>(i);
  }
  std::vector<std::string> hosts(comm.size());
  for (size_t i = 0; i < comm.size() && i < job->ranks.size(); ++i)
    hosts[i] = HostOfProfilePath(job->ranks[i].header.source);
  c.clock = AlignClocks(hosts, &comm);
  c.step = ComparedStep(comm, *job);
  FillPerRank(comm, job->ranks, c.step, &c);
  const std::vector<SetAsideSteps> set_aside = SetAsideStepsOfRanks(job->ranks, comm.size());
  FillCollectives(comm, set_aside, CommOptionsOf(catalog.thresholds()), &c);
  // Ranks of one pipeline stage do the same work (data-parallel peers).
  std::vector<RankComputation> computation;
  for (const RankAnalysis& rank : job->ranks) {
    const StepDistribution* step = rank.selected();
    if (step == nullptr || !step->breakdown) continue;
    computation.push_back(RankComputation{rank.header.rank, rank.header.pipeline_stage.value_or(0),
                                          step->breakdown->budget.computation_ns});
  }
  const std::vector<RankComm> timed = TimedCollectives(comm, set_aside, &c);
  DetectStragglers(timed, StragglerOptionsOf(catalog.thresholds()), &c, computation);
  c.critical_path = CrossRankCriticalPath(timed, c.step);
  std::string no_replay;
  std::optional<StepReplay> replay = StepReplay::Build(timed, c.step, &no_replay);
  AddWhatIfs(replay, no_replay, c.straggler_ranks, &c.critical_path);
  c.link_matrix = BuildLinkMatrix(links);
  c.slow_links = FindSlowLinks(links, catalog.thresholds().slow_link_ratio,
                               catalog.thresholds().slow_link_min_mb, &c.links_checked);
  if (c.collectives.empty()) c.notes.push_back("no communication ops found on any rank");
  if (c.links_checked == 0) {
    // Per-link records exist only in Ascend exports: a user of another
    // profiler is pointed at what their trace does measure.
    const bool ascend =
        std::any_of(job->ranks.begin(), job->ranks.end(), [](const RankAnalysis& r) {
          return r.header.platform == model::Platform::kAscend || !r.header.cann_version.empty() ||
                 !r.header.torch_npu_version.empty();
        });
    c.notes.push_back(ascend
                          ? "no communication_matrix.json links: slow links not checked"
                          : "no per-link bandwidth in a Kineto trace; compare collectives' busbw "
                            "GB/s");
  }
  AddClusterFindings(c, &job->findings, catalog, job->platform);
  return replay;
}

}  // namespace trainscope::analysis
