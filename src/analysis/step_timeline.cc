#include "analysis/step_timeline.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/breakdown_intervals.h"

namespace trainscope::analysis {
namespace {

double ToUs(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// Other = device work that is neither compute nor communication: memory
// copies and AI CPU / DSA tasks (the article's "Other" lane).
Lane LaneOf(const model::RankProfile& profile, size_t i) {
  const auto& kernels = profile.kernels;
  if (kernels.kind[i] == model::KernelKind::kCommunication) return Lane::kComm;
  if (kernels.kind[i] == model::KernelKind::kMemory) return Lane::kOther;
  std::string_view accelerator = profile.strings.Get(kernels.accelerator[i]);
  if (accelerator == "AI_CPU" || accelerator == "DSA_SQE") return Lane::kOther;
  return Lane::kCompute;
}

// Picks the window of |width| inside [lo, hi) that contains the most
// anchor points (two pointers over sorted points). Ties keep the earliest.
double DensestWindowStart(const std::vector<double>& points, double lo, double hi, double width) {
  auto first = std::lower_bound(points.begin(), points.end(), lo);
  auto last = std::lower_bound(points.begin(), points.end(), hi);
  double best_start = lo;
  std::ptrdiff_t best_count = -1;
  auto tail = first;
  for (auto head = first; head != last; ++head) {
    while (*head - *tail >= width) ++tail;
    std::ptrdiff_t count = head - tail + 1;
    if (count > best_count) {
      best_count = count;
      best_start = *tail;
    }
  }
  // Keep the window inside [lo, hi) when possible.
  if (best_start + width > hi) best_start = std::max(lo, hi - width);
  return best_start;
}

}  // namespace

void BuildZooms(StepTimeline* timeline, std::vector<double> anchors_us,
                const std::string& centred_on, const TimelineOptions& options) {
  std::sort(anchors_us.begin(), anchors_us.end());
  timeline->zooms.clear();
  timeline->zoom_centre = centred_on;
  double lo = 0, hi = timeline->span_us;
  std::vector<double> widths = options.zoom_widths_us;
  // A step shorter than every configured window still gets one zoom, at a
  // quarter of its span, so the kernels are shown one by one somewhere.
  if (!widths.empty() && hi > 0 &&
      std::all_of(widths.begin(), widths.end(), [&](double width) { return width >= hi; })) {
    widths = {hi / 4};
  }
  for (double width : widths) {
    // A window as wide as what is already shown would not zoom in.
    if (width >= hi - lo) continue;
    double start = DensestWindowStart(anchors_us, lo, hi, width);
    ZoomWindow zoom;
    zoom.width_us = width;
    zoom.start_us = start;
    for (const TimelineKernel& kernel : timeline->kernels) {
      double relative = kernel.start_us - start;
      if (relative < 0 || relative >= width) continue;
      ++zoom.kernel_count;
      if (zoom.kernels.size() < options.max_kernels_per_zoom) zoom.kernels.push_back(kernel);
    }
    zoom.truncated = zoom.kernel_count > static_cast<int64_t>(zoom.kernels.size());
    timeline->zooms.push_back(std::move(zoom));
    // The next, narrower window is searched inside this one.
    lo = start;
    hi = std::min(hi, start + width);
  }
}

StepTimeline ComputeStepTimeline(const model::RankProfile& profile, int32_t step,
                                 const KernelFamilies& families, const TimelineOptions& options) {
  const FamilyRules& rules = families.rules();
  StepTimeline timeline;
  timeline.step = step;
  const auto& kernels = profile.kernels;
  const std::span<const uint32_t> rows = kernels.RowsOf(step);
  if (rows.empty()) return timeline;
  // KernelTable is sorted by start, so rows are in start order.
  const int64_t origin = kernels.start_ns[rows.front()];
  int64_t window_end = origin;
  std::vector<Interval> compute, comm, other;
  // Profile string id -> index in timeline.strings; families likewise.
  std::unordered_map<StringId, uint32_t> local_string;
  std::unordered_map<size_t, uint32_t> local_family;
  auto local = [&](StringId id) {
    auto [it, inserted] =
        local_string.try_emplace(id, static_cast<uint32_t>(timeline.strings.size()));
    if (inserted) timeline.strings.emplace_back(profile.strings.Get(id));
    return it->second;
  };
  for (size_t i : rows) {
    window_end = std::max(window_end, kernels.end_ns(i));
    Lane lane = LaneOf(profile, i);
    Interval interval{kernels.start_ns[i], kernels.end_ns(i)};
    (lane == Lane::kCompute ? compute : lane == Lane::kComm ? comm : other).push_back(interval);
    const size_t index = families.Of(i);
    auto [family, new_family] =
        local_family.try_emplace(index, static_cast<uint32_t>(timeline.strings.size()));
    if (new_family) timeline.strings.push_back(rules.families()[index]);
    timeline.kernels.push_back(
        TimelineKernel{ToUs(kernels.start_ns[i] - origin), ToUs(kernels.duration_ns[i]), lane,
                       local(kernels.op_type[i]), local(kernels.name[i]), family->second});
  }
  timeline.step_start_ns = origin;
  timeline.span_us = ToUs(window_end - origin);
  std::vector<Interval> compute_union = UnionOf(compute);
  std::vector<Interval> comm_union = UnionOf(comm);
  std::vector<Interval> other_union = UnionOf(other);
  std::vector<Interval> all_union =
      UnionOfMerged(UnionOfMerged(compute_union, comm_union), other_union);
  timeline.compute_us = ToUs(TotalLength(compute_union));
  timeline.comm_us = ToUs(TotalLength(comm_union));
  timeline.other_us = ToUs(TotalLength(other_union));
  timeline.comm_not_overlapped_us = ToUs(LengthMinus(comm_union, compute_union));
  timeline.free_us = ToUs((window_end - origin) - TotalLength(all_union));

  // Step-start idle: until the first compute kernel; the collective that
  // runs meanwhile is what the step waits for (the article's 302 ms barrier).
  for (size_t i : rows) {
    if (LaneOf(profile, i) != Lane::kCompute) continue;
    timeline.step_start_idle_us = ToUs(kernels.start_ns[i] - origin);
    break;
  }
  for (size_t i : rows) {
    if (kernels.kind[i] != model::KernelKind::kCommunication) continue;
    if (kernels.start_ns[i] - origin > static_cast<int64_t>(timeline.step_start_idle_us * 1000))
      break;
    timeline.step_start_waits_for = std::string(profile.strings.Get(kernels.op_type[i]));
    timeline.step_start_wait_collective_us = ToUs(kernels.duration_ns[i]);
    break;
  }

  // Free gaps between consecutive pieces of the all-activity union.
  std::vector<FreeGap> gaps;
  for (size_t g = 1; g < all_union.size(); ++g) {
    int64_t gap_start = all_union[g - 1].end;
    int64_t gap_end = all_union[g].start;
    if (gap_end - gap_start < options.min_gap_ns) continue;
    gaps.push_back(FreeGap{ToUs(gap_start - origin), ToUs(gap_end - gap_start), "", ""});
  }
  // Only the longest few are kept: partial_sort, not a full sort of 10^5 gaps.
  size_t keep = std::min(gaps.size(), options.longest_gaps);
  std::partial_sort(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(keep), gaps.end(),
                    [](const FreeGap& a, const FreeGap& b) {
                      if (a.duration_us != b.duration_us) return a.duration_us > b.duration_us;
                      return a.start_us < b.start_us;
                    });
  gaps.resize(keep);
  for (FreeGap& gap : gaps) {
    int64_t gap_start = origin + static_cast<int64_t>(gap.start_us * 1000 + 0.5);
    int64_t gap_end = gap_start + static_cast<int64_t>(gap.duration_us * 1000 + 0.5);
    int64_t best_end = INT64_MIN;
    for (size_t i : rows) {
      if (kernels.end_ns(i) <= gap_start && kernels.end_ns(i) > best_end) {
        best_end = kernels.end_ns(i);
        gap.before = std::string(profile.strings.Get(kernels.op_type[i]));
      }
      if (kernels.start_ns[i] >= gap_end && gap.after.empty()) {
        gap.after = std::string(profile.strings.Get(kernels.op_type[i]));
      }
    }
  }
  timeline.longest_gaps = std::move(gaps);

  // Nested zoom windows on the densest region of compute starts (re-centred
  // on the costliest motif later, when motif mining has run).
  std::vector<double> starts;
  for (const TimelineKernel& kernel : timeline.kernels) {
    if (kernel.lane == Lane::kCompute) starts.push_back(kernel.start_us);
  }
  BuildZooms(&timeline, starts, "densest region of compute kernel starts", options);
  return timeline;
}

}  // namespace trainscope::analysis
