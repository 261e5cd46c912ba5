#include "export/rank_tracks.h"

#include <algorithm>
#include <map>

#include "analysis/common/breakdown_intervals.h"

namespace trainscope::exports {
namespace {

using analysis::Motif;
using model::DeviceEvents;

// The compute rows of one step on one stream, in start order: the sequence
// motif mining and fingerprint matching ran on (motif_sequence.h).
std::vector<uint32_t> StreamRows(const DeviceEvents& events, int32_t step, int32_t stream) {
  std::vector<uint32_t> rows;
  for (uint32_t row : events.RowsOf(step)) {
    if (events.kind[row] == model::ActivityKind::kCompute && events.stream[row] == stream)
      rows.push_back(row);
  }
  return rows;
}

void AddInstances(const DeviceEvents& events, int32_t step, int64_t step_start_ns,
                  const std::vector<Motif>& motifs, RankTracks* out) {
  std::map<int32_t, std::vector<uint32_t>> by_stream;
  // Mined motifs first, fingerprints last: a kernel in both is tagged with
  // its fingerprint's instance.
  std::vector<size_t> order(motifs.size());
  for (size_t m = 0; m < motifs.size(); ++m) order[m] = m;
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t m) { return !motifs[m].fingerprint.has_value(); });
  for (size_t m : order) {
    const Motif& motif = motifs[m];
    auto [it, fresh] = by_stream.try_emplace(motif.stream);
    if (fresh) it->second = StreamRows(events, step, motif.stream);
    const std::vector<uint32_t>& rows = it->second;
    const size_t length = std::max<size_t>(1, motif.kernels.size());
    for (size_t k = 0; k < motif.instance_starts_ns.size(); ++k) {
      const int64_t start = step_start_ns + motif.instance_starts_ns[k];
      auto first = std::lower_bound(rows.begin(), rows.end(), start, [&](uint32_t row, int64_t t) {
        return events.start_ns[row] < t;
      });
      if (first == rows.end() || events.start_ns[*first] != start) continue;
      const auto begin = static_cast<size_t>(first - rows.begin());
      const size_t end = std::min(rows.size(), begin + length);
      MotifInstance instance;
      instance.step = step;
      instance.motif = static_cast<int32_t>(m);
      instance.index = static_cast<int32_t>(k);
      instance.stream = motif.stream;
      instance.start_ns = start;
      instance.end_ns = start;
      const auto id = static_cast<int32_t>(out->instances.size());
      for (size_t r = begin; r < end; ++r) {
        const uint32_t row = rows[r];
        instance.end_ns = std::max(instance.end_ns, events.end_ns(row));
        instance.kernel_ns += events.duration_ns[row];
        ++instance.kernels;
        out->instance[row] = id;
      }
      out->instances.push_back(instance);
    }
  }
}

void AddIdleGaps(const DeviceEvents& events, int32_t step, int64_t min_gap_ns, RankTracks* out) {
  std::vector<analysis::Interval> busy;
  for (uint32_t row : events.RowsOf(step))
    busy.push_back({events.start_ns[row], events.end_ns(row)});
  const std::vector<analysis::Interval> merged = analysis::UnionOf(std::move(busy));
  for (size_t k = 1; k < merged.size(); ++k) {
    if (merged[k].start - merged[k - 1].end >= min_gap_ns)
      out->idle_gaps.push_back({step, merged[k - 1].end, merged[k].start});
  }
}

}  // namespace

RankTracks BuildRankTracks(const model::RankProfile& profile, const analysis::RankResult& result,
                           const analysis::FamilyRules& rules,
                           const analysis::CommOptions& comm_options, int64_t min_gap_ns) {
  const DeviceEvents& events = profile.device_events;
  RankTracks out;
  const analysis::KernelFamilies families(profile, rules);
  out.family.resize(events.size());
  for (size_t row = 0; row < events.size(); ++row)
    out.family[row] = static_cast<uint32_t>(families.Of(row));
  out.instance.assign(events.size(), -1);
  for (const analysis::RankStepResult& step : result.steps) {
    const int32_t number = step.distribution.step;
    const std::optional<model::StepExtent> extent = events.ExtentOf(number);
    if (!extent) continue;
    AddInstances(events, number, extent->first_start_ns, step.distribution.motifs, &out);
    AddIdleGaps(events, number, min_gap_ns, &out);
  }
  out.comm = analysis::SummarizeRankCommunication(profile, comm_options, &out.pseudo_overlap);
  return out;
}

}  // namespace trainscope::exports
