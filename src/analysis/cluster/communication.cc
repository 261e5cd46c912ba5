#include "analysis/cluster/communication.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/cluster/compute_cover.h"
#include "analysis/common/breakdown_intervals.h"
#include "analysis/common/collective_groups.h"
#include "analysis/common/coverage_sweep.h"
#include "analysis/common/dtypes.h"
#include "core/numbers.h"
#include "core/rule_file.h"
#include "model/iteration.h"

namespace trainscope::analysis {
namespace {

// A communication.json time, or -1 when unknown (NaN, negative).
double Known(double ms) { return std::isfinite(ms) && ms >= 0 ? ms : -1; }

// The same in nanoseconds (the file has milliseconds), -1 when unknown or
// outside the time range.
int64_t KnownNs(double ms) {
  const double ns = Known(ms) * 1e6;
  return ns >= 0 && ns < static_cast<double>(kMaxTimeNs) ? std::llround(ns) : -1;
}

// The number of entries of Kineto's "Process Group Ranks" ("[0, 1, 2]"),
// -1 when it lists none.
int32_t RanksListed(std::string_view ranks) {
  int32_t n = 0;
  bool in_number = false;
  for (char c : ranks) {
    const bool digit = c >= '0' && c <= '9';
    if (digit && !in_number) ++n;
    in_number = digit;
  }
  return n > 0 ? n : -1;
}

// The group size and message of a Kineto collective: "Group size" (or the
// length of "Process Group Ranks"), and max(in, out) elements, which is
// nccl-tests' S already (an all-gather's output, a reduce-scatter's input).
void KinetoMessage(const model::RankProfile& profile, const model::CollectiveArgs& args,
                   CommInstance* op) {
  op->group_size =
      args.group_size > 0 ? args.group_size : RanksListed(profile.strings.Get(args.pg_ranks));
  if (op->group_size > 0) op->group_size_source = GroupSizeSource::kRecorded;
  const std::optional<int> elem = ElementBytes(profile.strings.Get(args.dtype));
  const int64_t nelems = std::max(args.in_nelems, args.out_nelems);
  if (elem && nelems > 0) op->bytes = *elem * static_cast<double>(nelems);
  op->rank_bytes = op->bytes;
}

// What an Ascend rank's export says of its HCCL groups: the HCCL group
// hashes' sizes from parallel_group_info, and the largest group-local rank
// its communication_matrix.json links name per group hash.
class AscendGroups {
 public:
  explicit AscendGroups(const model::RankProfile& profile) {
    for (const model::CaptureInfo::ParallelGroup& g : profile.info.parallel_groups) {
      if (g.global_ranks.empty()) continue;
      const std::string hash = std::to_string(HcclGroupHash(g.hccl_name));
      const auto size = static_cast<int32_t>(g.global_ranks.size());
      metadata_.emplace(hash, size);
      // The op name keeps the hash's last 3 digits: a suffix two groups
      // share names neither (-1).
      auto [it, inserted] = by_suffix_.try_emplace(hash.substr(hash.size() - 3), size);
      if (!inserted && it->second != size) it->second = -1;
    }
    for (const model::CommLinkRecord& l : profile.communication.links) {
      int32_t& top = local_top_[l.group_hash];
      top = std::max({top, l.src + 1, l.dst + 1});
    }
  }

  // The size of the group of |op_name| (hash |hash| where known), and where
  // it came from.
  std::pair<int32_t, GroupSizeSource> SizeOf(std::string_view op_name,
                                             const std::string& hash) const {
    if (!hash.empty()) {
      if (auto it = metadata_.find(hash); it != metadata_.end())
        return {it->second, GroupSizeSource::kParallelGroups};
    } else if (const size_t at = op_name.find("__"); at != std::string_view::npos) {
      if (auto it = by_suffix_.find(std::string(op_name.substr(at + 2, 3)));
          it != by_suffix_.end() && it->second > 0)
        return {it->second, GroupSizeSource::kParallelGroups};
    }
    if (auto it = local_top_.find(hash); !hash.empty() && it != local_top_.end() && it->second > 1)
      return {it->second, GroupSizeSource::kLinks};
    return {-1, GroupSizeSource::kUnknown};
  }

 private:
  std::unordered_map<std::string, int32_t> metadata_;   // group hash -> global_ranks
  std::unordered_map<std::string, int32_t> by_suffix_;  // last 3 digits -> size, -1 ambiguous
  std::unordered_map<std::string, int32_t> local_top_;  // group hash -> largest local rank + 1
};

// All-gather, reduce-scatter and all-to-all: HCCL records the count per
// rank (HcclAllGather's sendCount, HcclReduceScatter's recvCount, as NCCL's
// API), and nccl-tests' S is the whole array, n times it. An all-to-allv's
// counts differ per peer: its count does not give S.
bool CountIsPerRank(CollectiveType type) {
  return type == CollectiveType::kAllGather || type == CollectiveType::kReduceScatter ||
         type == CollectiveType::kAllToAll;
}

// The message and group of an HCCL op from its own record (trace_view.json's
// op args or COMMUNICATION_OP), the group hash from communication.json's key
// or the group's name.
void AscendMessage(const model::CommOpMessage* message, const model::CommOpRecord* record,
                   const AscendGroups& groups, std::string_view name, CommInstance* op) {
  std::string hash = record != nullptr ? record->group_hash : std::string();
  if (hash.empty() && message != nullptr && !message->group_name.empty())
    hash = std::to_string(HcclGroupHash(message->group_name));
  if (message != nullptr && message->rank_size > 0) {
    op->group_size = message->rank_size;
    op->group_size_source = GroupSizeSource::kRecorded;
  } else {
    std::tie(op->group_size, op->group_size_source) = groups.SizeOf(name, hash);
  }
  if (message == nullptr || message->count <= 0) return;
  const std::optional<int> elem = ElementBytes(message->data_type);
  if (!elem) return;
  double bytes = *elem * static_cast<double>(message->count);
  op->rank_bytes = bytes;
  if (CountIsPerRank(op->type)) {
    const std::string lower = AsciiLower(name);
    if (lower.find("alltoallv") != std::string::npos || op->group_size <= 0) return;
    bytes *= op->group_size;
  }
  op->bytes = bytes;
}

// The collectives of the rank's device events. Kineto collectives carry
// record_param_comms args (name, dtype, sizes, process group); their kernel
// names are not unique, so an instance is keyed (group, type, step, index).
// Ascend hcom_* op names (hcom_allReduce__586_3_1: group suffix, per-group
// index) are the same on every rank of the group and are the key, completed
// with communication.json's record of the same name (its times) and HCCL's
// own record of the op (its message and group).
void CollectivesOf(const model::RankProfile& profile, std::vector<CommInstance>* out) {
  const model::Timeline& tl = profile.timeline;
  const bool names_are_keys = !(tl.present && tl.format == "kineto");
  std::unordered_map<std::string_view, const model::CommOpRecord*> records;
  for (const model::CommOpRecord& r : profile.communication.ops) records.emplace(r.name, &r);
  std::unordered_map<std::string_view, const model::CommOpMessage*> messages;
  for (const model::CommOpMessage& m : profile.communication.messages) messages.emplace(m.name, &m);
  const AscendGroups groups(profile);
  std::map<std::string, int64_t> next_index;  // (pg, type, step) -> instances seen
  const model::DeviceEvents& events = profile.device_events;
  // Sized once: doubling a list of ops held the old copy beside the new.
  out->reserve(out->size() + static_cast<size_t>(std::count(events.kind.begin(), events.kind.end(),
                                                            model::ActivityKind::kCommunication)));
  for (size_t i = 0; i < events.size(); ++i) {
    if (events.kind[i] != model::ActivityKind::kCommunication) continue;
    CommInstance op;
    op.step = events.step[i];
    op.start_ns = events.start_ns[i];
    op.duration_ns = events.duration_ns[i];
    std::string_view name = profile.strings.Get(events.name[i]);
    std::string pg;
    op.type = ClassifyCollective(CollectiveNameOf(profile, i));
    if (events.collective[i] != model::kNoIndex) {
      const model::CollectiveArgs& args = tl.collectives[static_cast<size_t>(events.collective[i])];
      std::string_view coll = profile.strings.Get(args.name);
      if (!coll.empty()) name = coll;
      pg = profile.strings.Get(args.pg_name);
      KinetoMessage(profile, args, &op);
    }
    if (names_are_keys) {
      op.key.assign(name);
    } else {
      std::string base = pg + ":" + CollectiveTypeName(op.type) + ":" + std::to_string(op.step);
      const int64_t index = next_index[base]++;
      op.key = base + "#" + std::to_string(index);
    }
    const auto record_it = records.find(name);
    const model::CommOpRecord* record = record_it == records.end() ? nullptr : record_it->second;
    if (names_are_keys) {
      const auto message_it = messages.find(name);
      AscendMessage(message_it == messages.end() ? nullptr : message_it->second, record, groups,
                    name, &op);
    }
    if (record != nullptr) {
      // Unknown values (NaN from the reader) stay unknown: times -1.
      // What the rank moved over its links also bounds the slice's size.
      const double transit_mb = record->TransitSizeMb();
      if (std::isfinite(transit_mb) && transit_mb > 0)
        op.rank_bytes = std::max(op.rank_bytes, transit_mb * 1e6);
      op.transit_ns = KnownNs(record->transit_ms);
      op.wait_ns = KnownNs(record->wait_ms);
      op.sync_ns = KnownNs(record->sync_ms);
    }
    out->push_back(std::move(op));
  }
}

struct StepKernels {
  std::vector<size_t> comm;  // indices into RankComm::ops
  int64_t first_start = INT64_MAX;
  int64_t last_end = INT64_MIN;
};

// The compute around each collective of the step, in the collectives'
// start order: before it (from the previous one's end, or the step's first
// kernel), while it ran, and after the last one.
void AttributeCompute(const StepKernels& sk, const ComputeCover& compute,
                      std::vector<CommInstance>* ops, RankStepComm* out) {
  int64_t cursor = sk.first_start;
  for (size_t i : sk.comm) {
    CommInstance& op = (*ops)[i];
    const int64_t end = op.start_ns + std::max<int64_t>(0, op.duration_ns);
    op.compute_before_ns = compute.CoveredIn(cursor, op.start_ns);
    op.compute_during_ns = compute.CoveredIn(std::max(cursor, op.start_ns), end);
    cursor = std::max(cursor, end);
  }
  out->compute_after_last_ns = compute.CoveredIn(cursor, sk.last_end);
}

void SummarizeStep(const CommOptions& options, const std::vector<CommInstance>& ops,
                   const StepKernels& sk, const ComputeCover& compute, RankStepComm* out,
                   std::vector<PseudoOverlapWindow>* windows) {
  out->first_start_ns = sk.first_start;
  out->last_end_ns = sk.last_end;
  const int64_t first_compute = compute.first_start();
  std::vector<Interval> comm;
  comm.reserve(sk.comm.size());
  bool start_collective_seen = false;
  for (size_t idx : sk.comm) {
    const CommInstance& op = ops[idx];
    const int64_t end = op.start_ns + op.duration_ns;
    comm.push_back({op.start_ns, end});
    ++out->collectives;
    const bool small =
        op.duration_ns < options.small_duration_ns && !(SmallSliceBytes(op) >= options.small_bytes);
    if (small) {
      ++out->small_collectives;
      AddSaturating(out->small_ns, op.duration_ns);
    }
    // The step's first collective is where every rank meets the slowest
    // one: the wait there is the part of it no compute covers (all of it
    // when it runs before any compute; on FSDP2 a copy-in kernel comes
    // first, and the wait is still in the all-gather behind it).
    if (!start_collective_seen) {
      start_collective_seen = true;
      out->step_start_wait_ns = op.start_ns < first_compute
                                    ? op.duration_ns
                                    : op.duration_ns - compute.CoveredIn(op.start_ns, end);
      if (op.start_ns < first_compute) continue;
    }
    // Pseudo-overlap: compute idles while an all-gather runs and resumes
    // right after it ends, i.e. its next kernel needed the unshard. Other
    // collectives that compute waits for (the last reduce-scatter before the
    // optimizer) are dependencies no stream placement can hide.
    if (op.type != CollectiveType::kAllGather) continue;
    ++out->all_gathers;
    const std::optional<ComputeCover::Resume> resume = compute.ResumeAt(end);
    if (!resume) continue;
    if (resume->next_start - end > options.resume_tolerance_ns) continue;
    const int64_t prev_end = resume->prior_end;
    if (prev_end >= end) continue;
    const int64_t idle = end - std::max(prev_end, op.start_ns);
    if (idle >= options.min_pseudo_overlap_ns) {
      out->pseudo_overlap_ns += idle;
      ++out->pseudo_overlap_count;
      if (windows) windows->push_back({out->step, end - idle, end, idx});
    }
  }
  // Both lists in start order, merged into one sweep (no union of the
  // step's compute kernels is built: one piece per kernel).
  std::sort(comm.begin(), comm.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  constexpr CoverageSweep::Lanes kCompute = CoverageSweep::Lane(0);
  constexpr CoverageSweep::Lanes kComm = CoverageSweep::Lane(1);
  CoverageSweep sweep;
  size_t j = 0;
  compute.ForEach([&](int64_t start, int64_t end) {
    for (; j < comm.size() && comm[j].start < start; ++j)
      sweep.Add(kComm, comm[j].start, comm[j].end);
    sweep.Add(kCompute, start, end);
  });
  for (; j < comm.size(); ++j) sweep.Add(kComm, comm[j].start, comm[j].end);
  out->comm_ns = sweep.Covered(kComm);
  out->exposed_ns = sweep.Covered(kComm, kCompute);
}

}  // namespace

CommOptions CommOptionsOf(const FindingThresholds& t) {
  CommOptions o;
  o.resume_tolerance_ns = std::llround(t.comm_resume_us * 1e3);
  o.min_pseudo_overlap_ns = std::llround(t.pseudo_overlap_min_idle_us * 1e3);
  o.small_duration_ns = std::llround(t.small_collective_ms * 1e6);
  o.small_bytes = t.small_collective_kb * 1024;
  return o;
}

RankComm SummarizeRankCommunication(const model::RankProfile& profile, const CommOptions& options,
                                    std::vector<PseudoOverlapWindow>* windows) {
  RankComm rc;
  rc.rank = profile.rank;
  CollectivesOf(profile, &rc.ops);
  // The table's rows are in start order, and so are the ops taken from it:
  // a stable sort of them would still copy them all to a buffer (an op is
  // 144 bytes and its key: 72 k of them in a 1 GB kernel_details.csv).
  const auto by_start = [](const CommInstance& a, const CommInstance& b) {
    return a.start_ns < b.start_ns;
  };
  if (!std::is_sorted(rc.ops.begin(), rc.ops.end(), by_start))
    std::stable_sort(rc.ops.begin(), rc.ops.end(), by_start);

  std::map<int32_t, StepKernels> steps;
  const model::DeviceEvents& k = profile.device_events;
  std::vector<int32_t> numbers = k.Steps();
  // No steps at all: the whole capture is the one window. Rows outside
  // every step of a stepped capture are no step's.
  if (numbers.empty() && k.size() > 0) numbers.push_back(model::kNoStep);
  for (int32_t step : numbers) {
    StepKernels& sk = steps[step];
    const model::StepExtent extent = *k.ExtentOf(step);
    sk.first_start = extent.first_start_ns;
    sk.last_end = extent.last_end_ns;
  }
  for (size_t i = 0; i < rc.ops.size(); ++i) steps[rc.ops[i].step].comm.push_back(i);
  for (auto& [step, sk] : steps) {
    if (sk.first_start == INT64_MAX) continue;  // comm only seen in the trace: no window
    // Read in place: this runs beside the step analyses (compute_cover.h).
    const ComputeCover compute(k, step);
    RankStepComm out;
    out.step = step;
    if (const auto iteration = model::IterationOf(profile, step))
      out.iteration_ns = iteration->span_ns();
    SummarizeStep(options, rc.ops, sk, compute, &out, windows);
    AttributeCompute(sk, compute, &rc.ops, &out);
    rc.steps.push_back(out);
  }

  double wait = 0, transit = 0, sync = 0;
  for (const model::CommOpRecord& r : profile.communication.ops) {
    // An op with an unknown time does not count in the ratios.
    if (Known(r.wait_ms) < 0 || Known(r.transit_ms) < 0 || Known(r.sync_ms) < 0) continue;
    wait += r.wait_ms;
    transit += r.transit_ms;
    sync += r.sync_ms;
  }
  if (wait + transit > 0) rc.wait_ratio = wait / (wait + transit);
  if (sync + transit > 0) rc.sync_ratio = sync / (sync + transit);
  return rc;
}

void ChargeHostIdle(const std::vector<HostIdleSpan>& spans, bool host_known, RankComm* comm) {
  comm->host_known = host_known;
  if (spans.empty()) return;
  // The ops are in start order; a step's own, in that order, are what
  // AttributeCompute's windows run over.
  std::map<int32_t, std::vector<size_t>> ops_of_step;
  for (size_t i = 0; i < comm->ops.size(); ++i) ops_of_step[comm->ops[i].step].push_back(i);
  int64_t previous_end = INT64_MIN;
  for (RankStepComm& step : comm->steps) {
    int64_t cursor = step.first_start_ns;
    for (const size_t k : ops_of_step[step.step]) {
      CommInstance& c = comm->ops[k];
      c.host_idle_before = HostIdleWithin(spans, cursor, c.start_ns);
      cursor = std::max(cursor, c.start_ns + std::max<int64_t>(0, c.duration_ns));
    }
    step.host_idle_after_last = HostIdleWithin(spans, cursor, step.last_end_ns);
    auto it = std::lower_bound(spans.begin(), spans.end(), previous_end,
                               [](const HostIdleSpan& s, int64_t t) { return s.end_ns <= t; });
    for (; it != spans.end() && it->start_ns < step.first_start_ns; ++it) {
      step.host_idle_before_start.push_back({std::max(it->start_ns, previous_end),
                                             std::min(it->end_ns, step.first_start_ns), it->kind});
    }
    previous_end = std::max(previous_end, step.last_end_ns);
  }
}

}  // namespace trainscope::analysis
