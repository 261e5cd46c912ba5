#include "analysis/timeline/step_timeline.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <unordered_map>

#include "analysis/common/collective_groups.h"
#include "analysis/common/collective_types.h"
#include "analysis/common/coverage_sweep.h"
#include "core/index_iterator.h"

namespace trainscope::analysis {
namespace {

// Other = device work that is neither compute nor communication: memory
// copies and AI CPU / DSA tasks (the article's "Other" lane).
Lane LaneOf(const model::RankProfile& profile, size_t i) {
  const auto& kernels = profile.device_events;
  if (kernels.kind[i] == model::ActivityKind::kCommunication) return Lane::kComm;
  if (model::IsMemoryTraffic(kernels.kind[i])) return Lane::kOther;
  std::string_view accelerator = profile.strings.Get(kernels.accelerator[i]);
  if (accelerator == "AI_CPU" || accelerator == "DSA_SQE") return Lane::kOther;
  return Lane::kCompute;
}

// Picks the window of |width| inside [lo, hi) that contains the most
// anchor points (two pointers over sorted points). Ties keep the earliest.
double DensestWindowStart(const std::vector<int64_t>& points, double lo, double hi, double width) {
  auto first = std::lower_bound(points.begin(), points.end(), lo,
                                [](int64_t point, double value) { return point < value; });
  auto last = std::lower_bound(points.begin(), points.end(), hi,
                               [](int64_t point, double value) { return point < value; });
  double best_start = lo;
  std::ptrdiff_t best_count = -1;
  auto tail = first;
  for (auto head = first; head != last; ++head) {
    while (static_cast<double>(*head - *tail) >= width) ++tail;
    std::ptrdiff_t count = head - tail + 1;
    if (count > best_count) {
      best_count = count;
      best_start = static_cast<double>(*tail);
    }
  }
  // Keep the window inside [lo, hi) when possible.
  if (best_start + width > hi) best_start = std::max(lo, hi - width);
  return best_start;
}

// The nested zoom windows: each is the window of its width, inside the
// previous one, that holds the most |anchors_ns|.
template <typename Kernels>
void BuildZooms(const Kernels& kernels, StepTimeline* timeline, std::vector<int64_t> anchors_ns,
                const std::string& centred_on, const TimelineOptions& options) {
  std::sort(anchors_ns.begin(), anchors_ns.end());
  timeline->zooms.clear();
  timeline->zoom_centre = centred_on;
  double lo = 0, hi = static_cast<double>(timeline->span_ns);
  std::vector<double> widths(options.zoom_widths_ns.begin(), options.zoom_widths_ns.end());
  // A step shorter than every configured window still gets one zoom, at a
  // quarter of its span, so the kernels are shown one by one somewhere.
  if (!widths.empty() && hi > 0 &&
      std::all_of(widths.begin(), widths.end(), [&](double width) { return width >= hi; })) {
    widths = {hi / 4};
  }
  for (double width : widths) {
    // A window as wide as what is already shown would not zoom in.
    if (width >= hi - lo) continue;
    double start = DensestWindowStart(anchors_ns, lo, hi, width);
    ZoomWindow zoom;
    zoom.width_ns = width;
    zoom.start_ns = start;
    // Every kernel that runs in the window, also one that started before it:
    // a kernel left out would be drawn as free time. Past the cap the window
    // is narrowed to end where the first kernel not kept starts, so what is
    // drawn is complete; the width asked for is kept.
    for (const TimelineKernel& kernel : kernels) {
      const auto kernel_start = static_cast<double>(kernel.start_ns);
      const double kernel_end = kernel_start + static_cast<double>(kernel.duration_ns);
      if (kernel_start >= start + zoom.width_ns || kernel_end <= start) continue;
      if (zoom.kernels.size() == options.max_kernels_per_zoom) {
        zoom.requested_width_ns = zoom.width_ns;
        zoom.width_ns = std::max(kernel_start - start, 0.0);
        break;
      }
      zoom.kernels.push_back(kernel);
    }
    // A kernel that started before the cut but is not kept cannot exist
    // (kernels are in start order), so the count is what is drawn.
    zoom.kernel_count = static_cast<int64_t>(zoom.kernels.size());
    // Kept at its size: every step's zooms live until the job's step is
    // chosen, and the list grew by doubling.
    zoom.kernels.shrink_to_fit();
    timeline->zooms.push_back(std::move(zoom));
    // The next, narrower window is searched inside this one.
    lo = start;
    hi = std::min(hi, start + width);
  }
}

}  // namespace

namespace {

// Kernel time and count per (lane, column, family) in one dense table. The
// families of a step are few, so a cell is a short row of slots instead of
// a tree (every step a report can show gets an overview). Slots follow the
// families' string indices, ascending, and each family's time is summed in
// kernel order: the same sums and tie-breaks as a map per cell.
class ColumnCells {
 public:
  template <typename Kernels>
  ColumnCells(const Kernels& kernels, int32_t columns) : columns_(columns) {
    // The distinct families by a mark per string index (at most one per
    // distinct op type, name and family of the step): a list of every
    // kernel's family, sorted and made unique, was a million-entry sort a
    // step.
    uint32_t last = 0;
    for (const TimelineKernel& kernel : kernels) last = std::max(last, kernel.family);
    constexpr uint32_t kAbsent = ~uint32_t{0};
    slot_of_.assign(kernels.size() == 0 ? 0 : static_cast<size_t>(last) + 1, kAbsent);
    for (const TimelineKernel& kernel : kernels) slot_of_[kernel.family] = 0;
    for (size_t family = 0; family < slot_of_.size(); ++family) {
      if (slot_of_[family] == kAbsent) continue;
      slot_of_[family] = static_cast<uint32_t>(families_.size());
      families_.push_back(static_cast<uint32_t>(family));
    }
    cells_.resize(3 * static_cast<size_t>(columns) * families_.size());
  }
  void Add(Lane lane, int32_t column, uint32_t family, double time_ns) {
    Cell& cell = cells_[Index(static_cast<uint32_t>(lane), column) + Slot(family)];
    cell.time_ns += time_ns;
    cell.kernels += 1;
  }
  // The runs of one lane: neighbouring columns whose dominant family is the
  // same.
  std::vector<OverviewRun> LaneRuns(uint32_t lane) const;

 private:
  struct Cell {
    double time_ns = 0;
    int64_t kernels = 0;
  };
  size_t Index(uint32_t lane, int32_t column) const {
    return (lane * static_cast<size_t>(columns_) + static_cast<size_t>(column)) * families_.size();
  }
  size_t Slot(uint32_t family) const { return slot_of_[family]; }
  int32_t columns_;
  std::vector<uint32_t> families_;  // the step's family string indices, ascending: slot -> family
  // Family string index -> its slot, ~0 where the step has no kernel of it.
  std::vector<uint32_t> slot_of_;
  std::vector<Cell> cells_;
};

std::vector<OverviewRun> ColumnCells::LaneRuns(uint32_t lane) const {
  std::vector<OverviewRun> runs;
  std::optional<OverviewRun> run;
  auto flush = [&](int end_column) {
    if (!run) return;
    run->end_column = end_column;
    runs.push_back(*run);
    run.reset();
  };
  for (int c = 0; c < columns_; ++c) {
    const Cell* row = cells_.data() + Index(lane, c);
    // The first family with the most time (ties: the lowest index).
    size_t best = families_.size();
    for (size_t f = 0; f < families_.size(); ++f) {
      if (row[f].kernels == 0) continue;
      if (best == families_.size() || row[f].time_ns > row[best].time_ns) best = f;
    }
    if (best == families_.size()) {
      flush(c);
      continue;
    }
    if (run && families_[best] != run->family) flush(c);
    if (!run) run = OverviewRun{c, c, families_[best], 0, 0};
    for (size_t f = 0; f < families_.size(); ++f) {
      run->time_ns += row[f].time_ns;
      run->kernels += row[f].kernels;
    }
  }
  flush(columns_);
  return runs;
}

// AggregateColumns over any range of kernels in start order.
template <typename Kernels>
TimelineOverview AggregateColumnsOf(const Kernels& kernels, double t0, double t1, int32_t columns) {
  TimelineOverview overview;
  overview.columns = columns;
  const double range = std::max(t1 - t0, 1e-3);
  const double ns_per_column = range / columns;
  overview.ns_per_column = ns_per_column;
  // busy[c] = fraction of column c covered by any kernel (for the Free lane).
  std::vector<double> busy(static_cast<size_t>(columns), 0.0);
  ColumnCells cells(kernels, columns);
  for (const TimelineKernel& kernel : kernels) {
    const auto kernel_start = static_cast<double>(kernel.start_ns);
    double start = std::max(kernel_start, t0);
    double end = std::min(static_cast<double>(kernel.start_ns + kernel.duration_ns), t1);
    if (end <= start && !(kernel.duration_ns == 0 && kernel_start >= t0 && kernel_start < t1))
      continue;
    int c0 = std::clamp(static_cast<int>((start - t0) / ns_per_column), 0, columns - 1);
    int c1 = std::clamp(static_cast<int>((end - t0) / ns_per_column), 0, columns - 1);
    for (int c = c0; c <= c1; ++c) {
      double col_start = t0 + c * ns_per_column, col_end = col_start + ns_per_column;
      double overlap = std::max(0.0, std::min(end, col_end) - std::max(start, col_start));
      cells.Add(kernel.lane, c, kernel.family, overlap);
      double& covered = busy[static_cast<size_t>(c)];
      covered = std::min(1.0, covered + overlap / ns_per_column);
    }
  }
  for (uint32_t lane = 0; lane < 3; ++lane) overview.lanes[lane] = cells.LaneRuns(lane);
  // Free: columns with less than half their time covered.
  int free_start = -1;
  for (int c = 0; c <= columns; ++c) {
    bool is_free = c < columns && busy[static_cast<size_t>(c)] < 0.5;
    if (is_free && free_start < 0) free_start = c;
    if (!is_free && free_start >= 0) {
      overview.free.push_back(ColumnRange{free_start, c});
      free_start = -1;
    }
  }
  return overview;
}

}  // namespace

TimelineOverview AggregateColumns(const std::vector<TimelineKernel>& kernels, double t0, double t1,
                                  int32_t columns) {
  return AggregateColumnsOf(kernels, t0, t1, columns);
}

namespace {

struct GapSpan {
  int64_t start_ns;
  int64_t duration_ns;
};

// The longest free gaps of a step (no device work at all), found while its
// kernels go by in start order: a gap opens where a kernel starts after all
// before it ended. Only the longest few are kept, in a bounded heap (a step
// has ~10^5-10^6 gaps: a list of all of them was the largest allocation of
// the analysis). Longest first, ties by start, as a partial sort of all.
class LongestGaps {
 public:
  LongestGaps(size_t keep, int64_t min_ns) : keep_(keep), min_ns_(min_ns) {
    longest_.reserve(keep);
  }

  void Add(int64_t start, int64_t end) {
    if (end <= start) return;  // covers nothing, so it ends no gap
    if (seen_ && start > covered_) Offer(GapSpan{covered_, start - covered_});
    covered_ = seen_ ? std::max(covered_, end) : end;
    seen_ = true;
  }

  std::vector<GapSpan> Take() && {
    std::sort_heap(longest_.begin(), longest_.end(), Longer);
    return std::move(longest_);
  }

 private:
  static bool Longer(const GapSpan& a, const GapSpan& b) {
    if (a.duration_ns != b.duration_ns) return a.duration_ns > b.duration_ns;
    return a.start_ns < b.start_ns;
  }

  void Offer(const GapSpan& gap) {
    if (keep_ == 0 || gap.duration_ns < min_ns_) return;
    if (longest_.size() < keep_) {
      longest_.push_back(gap);
      std::push_heap(longest_.begin(), longest_.end(), Longer);
    } else if (Longer(gap, longest_.front())) {
      std::pop_heap(longest_.begin(), longest_.end(), Longer);
      longest_.back() = gap;
      std::push_heap(longest_.begin(), longest_.end(), Longer);
    }
  }

  size_t keep_;
  int64_t min_ns_;
  std::vector<GapSpan> longest_;  // a heap whose front is the shortest kept
  int64_t covered_ = 0;           // the end of all work so far
  bool seen_ = false;
};

// Step-start idle: until the first compute kernel; the collective that
// runs meanwhile is what the step waits for (the article's 302 ms barrier).
void FindStepStartWait(const model::RankProfile& profile, model::RowSet rows, int64_t origin,
                       StepTimeline* timeline) {
  const auto& kernels = profile.device_events;
  for (size_t i : rows) {
    if (LaneOf(profile, i) != Lane::kCompute) continue;
    timeline->step_start_idle_ns = kernels.start_ns[i] - origin;
    break;
  }
  for (size_t i : rows) {
    if (kernels.kind[i] != model::ActivityKind::kCommunication) continue;
    if (kernels.start_ns[i] - origin > timeline->step_start_idle_ns) break;
    timeline->step_start_waits_for = std::string(profile.strings.Get(kernels.op_type[i]));
    timeline->step_start_wait_collective_ns = kernels.duration_ns[i];
    break;
  }
}

// The longest free gaps (step-relative), each with the op types of the
// kernels around it.
std::vector<FreeGap> NameGaps(const model::RankProfile& profile, model::RowSet rows, int64_t origin,
                              const std::vector<GapSpan>& longest) {
  const auto& kernels = profile.device_events;
  std::vector<FreeGap> gaps;
  gaps.reserve(longest.size());
  for (const GapSpan& gap : longest)
    gaps.push_back(FreeGap{gap.start_ns - origin, gap.duration_ns, "", ""});
  for (FreeGap& gap : gaps) {
    const int64_t gap_start = origin + gap.start_ns;
    const int64_t gap_end = gap_start + gap.duration_ns;
    // Before: the kernel that ends last at or before the gap's start (the
    // first of equals); after: the first to start at or after its end with
    // a name for its op type. Rows are in start order: only those starting
    // by the gap's start can end by it, and the first after the gap is found
    // by binary search. (Every row was visited for every gap, its name
    // copied at each improvement: a million copies a step on a big rank.)
    int64_t best_end = INT64_MIN;
    std::optional<size_t> before;
    for (size_t k = 0; k < rows.size() && kernels.start_ns[rows[k]] <= gap_start; ++k) {
      const size_t i = rows[k];
      if (kernels.end_ns(i) <= gap_start && kernels.end_ns(i) > best_end) {
        best_end = kernels.end_ns(i);
        before = i;
      }
    }
    if (before) gap.before = std::string(profile.strings.Get(kernels.op_type[*before]));
    auto after = std::lower_bound(rows.begin(), rows.end(), gap_end, [&](uint32_t row, int64_t t) {
      return kernels.start_ns[row] < t;
    });
    for (; after != rows.end() && gap.after.empty(); ++after) {
      gap.after = std::string(profile.strings.Get(kernels.op_type[*after]));
    }
  }
  return gaps;
}

// The host op that launched each kernel of |rows| (by its place in rows),
// step-relative, in start order.
std::vector<TrackLaunch> TrackLaunches(const model::RankProfile& profile, model::RowSet rows,
                                       int64_t origin) {
  const auto& kernels = profile.device_events;
  const model::HostOps& ops = profile.timeline.host_ops;
  std::vector<TrackLaunch> launches;
  for (size_t k = 0; k < rows.size(); ++k) {
    const int32_t launcher = kernels.launcher[rows[k]];
    if (launcher < 0 || static_cast<size_t>(launcher) >= ops.size()) continue;
    launches.push_back(TrackLaunch{static_cast<uint32_t>(k), ops.start_ns[launcher] - origin,
                                   ops.duration_ns[launcher]});
  }
  std::stable_sort(
      launches.begin(), launches.end(),
      [](const TrackLaunch& a, const TrackLaunch& b) { return a.start_ns < b.start_ns; });
  return launches;
}

// The step's kernels as the zooms and the overview read them, in start
// order, each made from the profile's columns as it is read: its lane and
// family packed in 4 bytes, the rest the columns' own. A list of them
// (32 bytes a kernel) was the largest block of a step's analysis, 32 MB a
// step of a million kernels and two steps at once on two cores, for data
// the profile holds; it is made only where the timeline keeps the kernels.
class StepKernels {
 public:
  static constexpr uint32_t kFamilyBits = 30;

  StepKernels(const model::DeviceEvents& events, model::RowSet rows, int64_t origin,
              const std::vector<uint32_t>& local_string, const std::vector<uint32_t>& lane_family)
      : events_(events),
        rows_(rows),
        origin_(origin),
        local_string_(local_string),
        lane_family_(lane_family) {}

  static uint32_t Pack(Lane lane, uint32_t family) {
    return static_cast<uint32_t>(lane) << kFamilyBits | family;
  }

  using Iterator = IndexIterator<StepKernels, TimelineKernel>;
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, rows_.size()); }
  size_t size() const { return rows_.size(); }

  // Kernel |k| of the step, made from the columns.
  TimelineKernel operator[](size_t k) const {
    const uint32_t i = rows_[k];
    const uint32_t packed = lane_family_[k];
    return TimelineKernel{events_.start_ns[i] - origin_,
                          events_.duration_ns[i],
                          static_cast<Lane>(packed >> kFamilyBits),
                          local_string_[events_.op_type[i]],
                          local_string_[events_.name[i]],
                          packed & ((uint32_t{1} << kFamilyBits) - 1)};
  }

 private:
  const model::DeviceEvents& events_;
  model::RowSet rows_;
  int64_t origin_;
  const std::vector<uint32_t>& local_string_;
  const std::vector<uint32_t>& lane_family_;
};

}  // namespace

StepTimeline ComputeStepTimeline(const model::RankProfile& profile, int32_t step,
                                 const KernelFamilies& families, const TimelineOptions& options,
                                 const ZoomCentre* centre) {
  const FamilyRules& rules = families.rules();
  StepTimeline timeline;
  timeline.step = step;
  const auto& kernels = profile.device_events;
  // DeviceEvents is kept sorted by start, so rows are in start order (the
  // sweep below needs it; a copy is sorted otherwise).
  std::vector<uint32_t> sorted;
  const model::RowSet rows = RowsByStart(kernels.start_ns, kernels.RowsOf(step), &sorted);
  if (rows.empty()) return timeline;
  const int64_t origin = kernels.start_ns[rows.front()];
  int64_t window_end = origin;
  // Lanes of the sweep: the three of the picture, and the collective kinds
  // whose exposure is told apart (communication lanes besides).
  constexpr CoverageSweep::Lanes kComputeLane = CoverageSweep::Lane(0);
  constexpr CoverageSweep::Lanes kCommLane = CoverageSweep::Lane(1);
  constexpr CoverageSweep::Lanes kOtherLane = CoverageSweep::Lane(2);
  constexpr CoverageSweep::Lanes kP2p = CoverageSweep::Lane(3);
  constexpr CoverageSweep::Lanes kAllToAll = CoverageSweep::Lane(4);
  constexpr CoverageSweep::Lanes kTensorParallel = CoverageSweep::Lane(5);
  CoverageSweep sweep;
  LongestGaps free_gaps(options.longest_gaps, options.min_gap_ns);
  const CollectiveGroups groups(profile.info);
  // Profile string id -> index in timeline.strings; families likewise. By
  // array, not hash map: two lookups a kernel, a million kernels a step.
  constexpr uint32_t kNotLocal = ~uint32_t{0};
  std::vector<uint32_t> local_string(options.picture ? profile.strings.size() : 0, kNotLocal);
  std::vector<uint32_t> local_family(options.picture ? rules.families().size() : 0, kNotLocal);
  // Every kernel's lane and family, in start order, for the zooms and the
  // overview (StepKernels).
  std::vector<uint32_t> lane_family;
  if (options.picture) lane_family.reserve(rows.size());
  auto local = [&](StringId id) {
    uint32_t& index = local_string[id];
    if (index == kNotLocal) {
      index = static_cast<uint32_t>(timeline.strings.size());
      timeline.strings.emplace_back(profile.strings.Get(id));
    }
    return index;
  };
  for (size_t i : rows) {
    window_end = std::max(window_end, kernels.end_ns(i));
    Lane lane = LaneOf(profile, i);
    CoverageSweep::Lanes lanes = lane == Lane::kCompute ? kComputeLane
                                 : lane == Lane::kComm  ? kCommLane
                                                        : kOtherLane;
    if (lane == Lane::kComm) {
      const std::string_view name = CollectiveNameOf(profile, i);
      const CollectiveType type = ClassifyCollective(name);
      if (type == CollectiveType::kP2p) lanes |= kP2p;
      if (type == CollectiveType::kAllToAll) lanes |= kAllToAll;
      if (groups.KindOf(name) == "tp") lanes |= kTensorParallel;
    }
    sweep.Add(lanes, kernels.start_ns[i], kernels.end_ns(i));
    if (!options.picture) continue;
    free_gaps.Add(kernels.start_ns[i], kernels.end_ns(i));
    const size_t index = families.Of(i);
    uint32_t& family = local_family[index];
    if (family == kNotLocal) {
      family = static_cast<uint32_t>(timeline.strings.size());
      timeline.strings.push_back(rules.families()[index]);
    }
    // The family, then the op type and the name, kernel by kernel: the
    // order of timeline.strings.
    local(kernels.op_type[i]);
    local(kernels.name[i]);
    lane_family.push_back(StepKernels::Pack(lane, family));
  }
  timeline.step_start_ns = origin;
  timeline.kernel_count = static_cast<int64_t>(rows.size());
  timeline.span_ns = window_end - origin;
  timeline.compute_ns = sweep.Covered(kComputeLane);
  timeline.comm_ns = sweep.Covered(kCommLane);
  timeline.other_ns = sweep.Covered(kOtherLane);
  timeline.comm_not_overlapped_ns = sweep.Covered(kCommLane, kComputeLane);
  timeline.p2p_not_overlapped_ns = sweep.Covered(kP2p, kComputeLane);
  timeline.all_to_all_not_overlapped_ns = sweep.Covered(kAllToAll, kComputeLane);
  timeline.tensor_parallel_not_overlapped_ns = sweep.Covered(kTensorParallel, kComputeLane);
  timeline.free_ns = (window_end - origin) - sweep.Covered(kComputeLane | kCommLane | kOtherLane);

  FindStepStartWait(profile, rows, origin, &timeline);

  if (!options.picture) {
    timeline.drawn = false;
    return timeline;
  }

  timeline.longest_gaps = NameGaps(profile, rows, origin, std::move(free_gaps).Take());

  const StepKernels step_kernels(kernels, rows, origin, local_string, lane_family);
  if (centre != nullptr) {
    BuildZooms(step_kernels, &timeline, centre->anchors_ns, centre->label, options);
  } else {
    // Nested zoom windows on the densest region of compute starts.
    std::vector<int64_t> starts;
    for (const TimelineKernel& kernel : step_kernels) {
      if (kernel.lane == Lane::kCompute) starts.push_back(kernel.start_ns);
    }
    BuildZooms(step_kernels, &timeline, starts, "densest region of compute kernel starts", options);
  }
  timeline.overview =
      AggregateColumnsOf(step_kernels, 0, static_cast<double>(timeline.span_ns), kOverviewColumns);
  if (options.kernels) {
    timeline.track.kernels.reserve(step_kernels.size());
    for (const TimelineKernel& kernel : step_kernels) timeline.track.kernels.push_back(kernel);
    timeline.track.launches = TrackLaunches(profile, rows, origin);
  }
  return timeline;
}

namespace {

// Keeps the |max_kernels| longest kernels of |track| (ties: the earliest), in
// start order, with their instance tags.
void CapTrack(size_t max_kernels, TimelineTrack* track) {
  const size_t n = track->kernels.size();
  if (n <= max_kernels) return;
  std::vector<uint32_t> order(n);
  for (size_t k = 0; k < n; ++k) order[k] = static_cast<uint32_t>(k);
  const auto keep = static_cast<std::ptrdiff_t>(max_kernels);
  std::nth_element(order.begin(), order.begin() + keep, order.end(), [&](uint32_t a, uint32_t b) {
    const int64_t da = track->kernels[a].duration_ns;
    const int64_t db = track->kernels[b].duration_ns;
    return da != db ? da > db : a < b;
  });
  order.resize(max_kernels);
  std::sort(order.begin(), order.end());
  TimelineTrack kept;
  kept.kernels.reserve(max_kernels);
  kept.instance.reserve(max_kernels);
  for (uint32_t k : order) {
    kept.kernels.push_back(track->kernels[k]);
    kept.instance.push_back(track->instance[k]);
  }
  kept.instances = std::move(track->instances);
  // Launches of the kernels kept, with their new indices.
  std::vector<int64_t> new_index(n, -1);
  for (size_t k = 0; k < order.size(); ++k) new_index[order[k]] = static_cast<int64_t>(k);
  for (const TrackLaunch& launch : track->launches) {
    const int64_t index = new_index[launch.kernel];
    if (index < 0) continue;
    kept.launches.push_back(
        TrackLaunch{static_cast<uint32_t>(index), launch.start_ns, launch.duration_ns});
  }
  kept.dropped = static_cast<int64_t>(n - max_kernels);
  *track = std::move(kept);
}

}  // namespace

void AddTrackInstances(const model::RankProfile& profile, const std::vector<Motif>& motifs,
                       size_t max_kernels, StepTimeline* timeline) {
  TimelineTrack& track = timeline->track;
  if (track.kernels.empty()) return;
  const model::DeviceEvents& events = profile.device_events;
  const model::RowSet rows = events.RowsOf(timeline->step);
  track.instance.assign(track.kernels.size(), -1);
  if (rows.size() == track.kernels.size()) {
    // Mined motifs first, fingerprints last: a kernel in both keeps its
    // fingerprint's instance (export/rank_tracks.cc tags the same way).
    std::vector<size_t> order(motifs.size());
    for (size_t m = 0; m < motifs.size(); ++m) order[m] = m;
    std::stable_partition(order.begin(), order.end(),
                          [&](size_t m) { return !motifs[m].fingerprint.has_value(); });
    // Positions in the track of each stream's compute kernels: the sequence
    // motif mining ran on.
    std::unordered_map<int32_t, std::vector<uint32_t>> by_stream;
    for (size_t m : order) {
      const Motif& motif = motifs[m];
      auto [it, fresh] = by_stream.try_emplace(motif.stream);
      if (fresh) {
        for (size_t k = 0; k < rows.size(); ++k) {
          const uint32_t row = rows[k];
          if (events.kind[row] == model::ActivityKind::kCompute &&
              events.stream[row] == motif.stream)
            it->second.push_back(static_cast<uint32_t>(k));
        }
      }
      const std::vector<uint32_t>& positions = it->second;
      const size_t length = std::max<size_t>(1, motif.kernels.size());
      for (const int64_t start : motif.instance_starts_ns) {
        auto first =
            std::lower_bound(positions.begin(), positions.end(), start,
                             [&](uint32_t k, int64_t t) { return track.kernels[k].start_ns < t; });
        if (first == positions.end() || track.kernels[*first].start_ns != start) continue;
        const auto begin = static_cast<size_t>(first - positions.begin());
        const size_t end = std::min(positions.size(), begin + length);
        TrackInstance instance{static_cast<int32_t>(m), start, start};
        const auto id = static_cast<int32_t>(track.instances.size());
        for (size_t p = begin; p < end; ++p) {
          const TimelineKernel& kernel = track.kernels[positions[p]];
          instance.end_ns = std::max(instance.end_ns, kernel.start_ns + kernel.duration_ns);
          track.instance[positions[p]] = id;
        }
        track.instances.push_back(instance);
      }
    }
  }
  CapTrack(max_kernels, &track);
}

}  // namespace trainscope::analysis
