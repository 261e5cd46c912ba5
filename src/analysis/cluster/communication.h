// Communication of one rank: every collective as a small record that can be
// matched across ranks, and per-step budgets (exposed communication,
// pseudo-overlap, small slices). Input to the cross-rank analysis.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/common/collective_types.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/common/host_idle.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct CommInstance {
  std::string key;  // same text on every rank for the same collective instance
  CollectiveType type = CollectiveType::kOther;
  int32_t step = -1;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  // The message size S of nccl-tests (docs/clusters.md §1): the buffer an
  // all-reduce, broadcast or reduce works on; for all-gather, reduce-scatter
  // and all-to-all the whole array, n x the per-rank count HCCL records.
  // 0 when unknown.
  double bytes = 0;
  // What the rank is known to have put through: HCCL's count x element size
  // (for all-gather, reduce-scatter, all-to-all one rank's part; Kineto: S
  // itself) or communication.json's transit size, the larger: known even
  // when the group size, and so S, is not. Decides the small-slice test (< 50 KB), never a
  // bandwidth. 0 when unknown.
  double rank_bytes = 0;
  int32_t group_size = -1;  // the group's size, -1 when the export does not say
  GroupSizeSource group_size_source = GroupSizeSource::kUnknown;
  // communication.json (ms there), -1 when absent or unknown.
  int64_t transit_ns = -1;
  int64_t wait_ns = -1;
  int64_t sync_ns = -1;
  // This rank's compute (the union of its compute kernels) before the op,
  // since the end of its previous collective in the step or the step's
  // first kernel, and while it ran: what the cross-rank critical path
  // charges (critical_path.h). -1 when the step has no kernel window.
  int64_t compute_before_ns = -1;
  int64_t compute_during_ns = -1;
  // The device idle in the same window before the op charged to the host
  // (data loader, sync, launch: ChargeHostIdle); zeros when the rank has no
  // host side (RankComm::host_known).
  HostIdleTimes host_idle_before;
};

// The size the small-slice test compares: S, else the rank's own part (a
// lower bound of S), 0 when neither is known (then only the duration
// decides).
inline double SmallSliceBytes(const CommInstance& op) {
  return op.bytes > 0 ? op.bytes : op.rank_bytes;
}

struct RankStepComm {
  int32_t step = -1;
  int64_t first_start_ns = 0;  // first kernel of any kind
  int64_t last_end_ns = 0;
  // A GPU trace's iteration (model/iteration.h); 0 where the step is not
  // one (Ascend: the device span is the step).
  int64_t iteration_ns = 0;
  // The wait at the step's first collective: the part of it during which no
  // compute runs (FSDP2 copies parameters in before its first all-gather,
  // so that collective is not the step's first kernel but still where an
  // early rank waits for the late one).
  int64_t step_start_wait_ns = 0;
  int64_t comm_ns = 0;
  int64_t exposed_ns = 0;
  // Pseudo-overlap counts only all-gathers (the FSDP unshard): a wait on a
  // reduce-scatter or all-reduce is a real data dependency (gradients before
  // the optimizer) and is already in exposed_ns.
  int64_t pseudo_overlap_ns = 0;
  int64_t pseudo_overlap_count = 0;
  int64_t all_gathers = 0;  // all-gathers in the step, the denominator of the count
  int64_t collectives = 0;
  int64_t small_collectives = 0;
  int64_t small_ns = 0;
  // Compute after the step's last collective ended (the critical path's
  // last window); -1 unknown.
  int64_t compute_after_last_ns = -1;
  // The host-charged device idle after the last collective, and the spans
  // before the step's first event (since the rank's previous step ended):
  // where a late rank's start was spent (ChargeHostIdle).
  HostIdleTimes host_idle_after_last;
  std::vector<HostIdleSpan> host_idle_before_start;
};

struct RankComm {
  int32_t rank = -1;
  std::vector<CommInstance> ops;    // start order
  std::vector<RankStepComm> steps;  // ascending step
  double wait_ratio = -1;           // over every op of communication.json
  double sync_ratio = -1;
  // The host side was recorded (a trace with host ops): the host idle
  // charges are measured, not unknown.
  bool host_known = false;
};

// The latencies the summary decides with; their values and origins are in
// data/thresholds.tsv (comm_resume_us, pseudo_overlap_min_idle_us,
// small_collective_ms, small_collective_kb), never constants here.
struct CommOptions {
  // Compute resuming within this of a collective's end waited for it.
  int64_t resume_tolerance_ns = 0;
  int64_t min_pseudo_overlap_ns = 0;
  // A "small slice": shorter than this and, where the size is known, smaller.
  int64_t small_duration_ns = 0;
  double small_bytes = 0;
};

CommOptions CommOptionsOf(const FindingThresholds& thresholds);

// A pseudo-overlap window: compute idle from |start_ns| to |end_ns| while
// the all-gather |op| (index into RankComm::ops) ran, resuming right after.
struct PseudoOverlapWindow {
  int32_t step = -1;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  size_t op = 0;
};

// Keeps only what the cross-rank analysis needs; the profile can be freed after.
// |windows| (optional): every pseudo-overlap window counted, in step order
// (the trace and SQLite exports draw them).
RankComm SummarizeRankCommunication(const model::RankProfile& profile, const CommOptions& options,
                                    std::vector<PseudoOverlapWindow>* windows = nullptr);

// Charges |spans| (the rank's host-explained device idle, by start:
// step/host_idle_spans.h) to the windows the critical path walks: before
// each collective (the same windows as compute_before_ns), after a step's
// last one, and before a step's first event. Sets host_known.
void ChargeHostIdle(const std::vector<HostIdleSpan>& spans, bool host_known, RankComm* comm);

}  // namespace trainscope::analysis
