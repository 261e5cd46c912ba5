// Cross-rank analysis of a job: communication per rank, stragglers, step
// skew, slow links (issue "Clusters"; docs/clusters.md has the algorithms).
//
// Everything here is small: per rank a handful of numbers, per collective
// type one row, so a 1,000-rank job still fits in a few hundred KB.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/cluster/clock_alignment.h"
#include "analysis/cluster/critical_path.h"
#include "analysis/common/collective_types.h"

namespace trainscope::analysis {

// Per collective type (allreduce, allgather, ...) over every rank and step
// (definitions in docs/clusters.md §1).
struct CollectiveTypeStats {
  std::string type;
  int64_t count = 0;      // calls over all ranks and all steps (one per rank per call)
  int64_t instances = 0;  // calls matched across ranks: the same call on every rank is one
  // Calls whose duration is evidence: those of a set-aside timeline (its
  // times judged wrong) count in |count| but not here, nor in the total,
  // the mean, the bandwidths or |small_count|. 0: the time is unknown.
  int64_t timed_count = 0;
  int64_t total_ns = 0;   // summed durations of the timed calls (mean: total_ns / timed_count)
  double mean_bytes = 0;  // message size S per call (nccl-tests); 0 when no call's is known
  // Median over calls with a known message and duration; false when there
  // is none: algbw is then unknown (null, "n/a"), not 0.
  bool bandwidth_known = false;
  double algbw_gbps = 0;  // S / the call's shortest duration across ranks
  // busbw = algbw x the nccl-tests factor for the type and the group's size;
  // over the calls whose group size the export records (busbw_known false:
  // none does, and busbw is unknown, not computed from the ranks present).
  bool busbw_known = false;
  double busbw_gbps = 0;
  int32_t group_size_min = -1;  // group sizes of the calls (-1: none known)
  int32_t group_size_max = -1;
  int64_t group_size_unknown = 0;  // calls whose group size the export does not say
  // The least direct source any call's size came from.
  GroupSizeSource group_size_source = GroupSizeSource::kUnknown;
  int64_t small_count = 0;  // slices < 1 ms (and < 50 KB where the size is known)
  int64_t small_ns = 0;
  // communication.json (Ascend) sums of the known times; 0 elsewhere.
  int64_t transit_ns = 0;
  int64_t wait_ns = 0;
  int64_t sync_ns = 0;
};

// One rank of the compared step (and communication over every step).
struct RankClusterStats {
  int32_t rank = -1;
  int32_t step = -1;  // the compared step
  // The rank has device events in the compared step. A rank without them
  // (kernel_details.csv missing, as in the Qwen sample's ranks 1 and 3) is
  // listed with what it has (communication.json ratios, straggler votes);
  // its step columns are unknown (null, "n/a"), never 0.
  bool has_device_step = false;
  // The rank's device timeline of the step is set aside (it disagrees with
  // step_trace_time.csv, or is impossible: StepDistribution::
  // timeline_set_aside): its step time, communication and exposed
  // communication are step_trace_time.csv's budget; its start offset,
  // step-start wait and pseudo-overlap, times on that timeline, are unknown
  // (null, "n/a") and left out of the skew and the wait means.
  bool timeline_set_aside = false;
  int64_t step_time_ns = 0;  // a GPU trace's iteration, else last kernel end - first kernel start
  int64_t step_start_offset_ns = 0;  // first kernel start minus the earliest rank's
  int64_t step_start_wait_ns = 0;    // duration of the step-start collective (0: none)
  int64_t comm_ns = 0;               // |union of comm| in the step
  int64_t exposed_comm_ns = 0;       // |comm \ compute| in the step
  int64_t pseudo_overlap_ns = 0;     // compute idle waiting for a running all-gather
  int64_t pseudo_overlap_count = 0;  // all-gathers compute waited for
  int64_t all_gathers = 0;           // all-gathers in the step
  int64_t collectives = 0;           // in the step
  int64_t small_collectives = 0;     // in the step
  int64_t small_comm_ns = 0;
  double wait_ratio = -1;  // communication.json Wait/(Wait+Transit), -1 if absent
  double sync_ratio = -1;
  // Straggler evidence over every matched collective instance. A rank's
  // collectives enter the methods (a)-(d) only from the steps whose device
  // timeline is used: a set-aside timeline's start times and durations are
  // not evidence. The counts below say how much of this rank was compared;
  // where one is 0 the values it is the n of are unknown (null, "n/a").
  int64_t steps_set_aside = 0;       // the rank's steps whose timeline is set aside
  int64_t instances_compared = 0;    // (a), (b): matched instances the rank took part in
  int64_t start_steps_compared = 0;  // (c): steps whose first collective compared its start
  int64_t comm_steps_compared = 0;   // (d): steps whose totals compared it
  int64_t shortest_flags = 0;        // method (a): Dixon/3-sigma outlier count
  int64_t last_arrivals = 0;         // method (b): times this rank arrived last
  double mean_lateness_ns = 0;       // method (b): start minus the instance's median start
  // Method (c): steps in which this rank reached the step's first collective
  // last, as an outlier and late by a share of the step; its mean lateness
  // there (start minus the median start) over every tested step.
  int64_t late_start_flags = 0;
  double mean_start_lateness_ns = 0;
  // Method (d): steps in which this rank's total collective time was the
  // outlying smallest (it waited least: the others waited for it).
  int64_t least_comm_flags = 0;
  // Method (e): this rank's computation above its group's median, when it
  // is the group's outlier (0 otherwise).
  int64_t excess_computation_ns = 0;
};

// One straggler method's verdict.
struct StragglerMethod {
  std::string id;    // "shortest-communication" / "last-arrival"
  std::string rule;  // how the verdict was reached, for people
  int64_t instances_tested = 0;
  std::vector<int32_t> ranks;                      // the straggler ranks, most evident first
  std::vector<std::pair<int32_t, double>> scores;  // (rank, count or share) for every rank with one
};

struct SlowLink {
  int32_t reporting_rank = -1;  // whose communication_matrix.json
  std::string group_hash;
  int32_t src = -1;  // global ranks where known, else group-local
  int32_t dst = -1;
  std::string transport;
  std::string op_type;
  double bandwidth_gbps = 0;       // mean over the steps
  double transport_mean_gbps = 0;  // mean of every link of the same transport
  double ratio = 0;                // bandwidth / transport_mean
};

// One cell of the rank x rank bandwidth matrix (communication_matrix.json,
// msprof-analyze's communication_matrix view): every record of the link
// src -> dst over one transport, all groups and steps summed, so bandwidth
// = data / time of what actually went over it.
struct LinkCell {
  int32_t src = -1;  // global ranks where known, else group-local
  int32_t dst = -1;
  std::string transport;
  double size_mb = 0;
  double time_ms = 0;
  double bandwidth_gbps() const { return time_ms > 0 ? size_mb / time_ms : 0; }  // MB/ms = GB/s
};

struct ClusterAnalysis {
  bool present = false;  // false for a single rank
  int32_t ranks = 0;
  int32_t ranks_with_step = 0;  // ranks with device events in the step: the per-rank means' n
  // Of those, the ranks whose device timeline of the step is used (not set
  // aside): the n of the skew and the step-start wait; with none, those are
  // unknown.
  int32_t ranks_with_timeline = 0;
  int32_t step = -1;  // the compared step
  // The hosts' clock offsets, applied to every time below before any
  // cross-rank method reads it (clock_alignment.h).
  ClockAlignment clock;
  // The compared step's cross-rank critical path (critical_path.h).
  CriticalPath critical_path;
  std::vector<RankClusterStats> per_rank;
  double mean_step_time_ns = 0;
  double step_time_spread_pct = 0;   // (max - min) / mean
  int64_t first_kernel_skew_ns = 0;  // max - min first-kernel start
  double mean_step_start_wait_ns = 0;
  int64_t max_step_start_wait_ns = 0;
  StragglerMethod by_shortest_comm;  // (a) msprof-analyze slow_rank, per instance
  StragglerMethod by_last_arrival;   // (b) TraceLens/HTA arrival order
  StragglerMethod by_late_start;     // (c) last at each step's first collective
  StragglerMethod by_least_comm;     // (d) msprof-analyze slow_rank on per-step totals
  StragglerMethod by_compute;        // (e) computation above the rank's group
  // The ranks named by the most methods (two methods agreeing outweigh one).
  std::vector<int32_t> straggler_ranks;
  std::vector<CollectiveTypeStats> collectives;
  std::vector<SlowLink> slow_links;
  int64_t links_checked = 0;
  // Every link between two different ranks, by (src, dst, transport).
  std::vector<LinkCell> link_matrix;
  std::vector<std::string> notes;  // what could not be analysed and why
};

}  // namespace trainscope::analysis
