#include "analysis/health/training_health.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "analysis/common/device_peaks.h"
#include "analysis/common/statistics.h"
#include "analysis/common/visited_quantiles.h"
#include "core/index_iterator.h"
#include "core/parallel.h"
#include "core/rule_file.h"

namespace trainscope::analysis {
namespace {

using model::TrainingRecord;

double QuantileOfSorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

// A window of finite values kept in ascending order as values enter and
// leave it (a log's sliding judgements: the same order a sort of the window
// gives, at O(window) a record instead of a sort).
class SortedWindow {
 public:
  void Insert(double v) { values_.insert(std::upper_bound(values_.begin(), values_.end(), v), v); }
  // |v| must be in the window (the same double that was inserted).
  void Erase(double v) { values_.erase(std::lower_bound(values_.begin(), values_.end(), v)); }
  const std::vector<double>& values() const { return values_; }

 private:
  std::vector<double> values_;
};

// |sorted|'s absolute deviations from |median|, ascending, into |out|: the
// values below the median deviate more the further left they are, the rest
// more the further right, so the two runs are merged instead of sorted.
void DeviationsSorted(const std::vector<double>& sorted, double median, std::vector<double>* out) {
  out->clear();
  const auto split = std::lower_bound(sorted.begin(), sorted.end(), median);
  auto left = std::make_reverse_iterator(split);  // below the median, nearest first
  auto right = split;                             // at or above it, nearest first
  while (left != sorted.rend() || right != sorted.end()) {
    const bool take_left =
        right == sorted.end() ||
        (left != sorted.rend() && std::fabs(*left - median) < std::fabs(*right - median));
    out->push_back(std::fabs((take_left ? *left++ : *right++) - median));
  }
}

// QuantileOfSorted's median, selected rather than sorted (statistics.h
// Quantiles: the same interpolation, linear time).
double MedianOf(std::vector<double> v) { return Quantiles(v, {0.5}).front(); }

// The same median of the |n| values |for_each| visits, read a few times
// rather than copied (visited_quantiles.h): for the series of a log's
// millions of records, where a copy beside the series set the peak memory.
template <class ForEach>
double MedianOfVisited(ForEach&& for_each, size_t n) {
  return QuantilesOfVisited(std::forward<ForEach>(for_each), n, {0.5}).front();
}

struct Point {
  size_t record;
  double value;
};

// A metric's (record, value) points in record order. The values are held
// as such; the records only when the points skip one: a metric every record
// prints (the usual case) costs 8 bytes a point, not 16.
class Points {
 public:
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  void reserve(size_t n) { values_.reserve(n); }
  Point operator[](size_t i) const {
    return {records_.empty() ? first_ + i : records_[i], values_[i]};
  }
  Point front() const { return (*this)[0]; }
  Point back() const { return (*this)[size() - 1]; }
  void push_back(Point p) {
    if (values_.empty()) {
      first_ = p.record;
    } else if (records_.empty() && p.record != first_ + values_.size()) {
      records_.reserve(values_.capacity());
      for (size_t i = 0; i < values_.size(); ++i) records_.push_back(first_ + i);
    }
    if (!records_.empty()) records_.push_back(p.record);
    values_.push_back(p.value);
  }

  using const_iterator = IndexIterator<Points, Point>;
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  size_t first_ = 0;             // the first point's record
  std::vector<size_t> records_;  // empty while the points are consecutive records
  std::vector<double> values_;
};

// The median of the values of points [begin, end), read in place.
double MedianOfValues(const Points& points, size_t begin, size_t end) {
  return MedianOfVisited(
      [&points, begin, end](auto&& visit) {
        for (size_t i = begin; i < end; ++i) visit(points[i].value);
      },
      end - begin);
}

// |nonfinite| (optional): where the present NaN/Inf values are counted.
Points Series(const model::TrainingRecords& records, model::MaybeDouble TrainingRecord::*field,
              bool finite_only, int64_t* nonfinite = nullptr) {
  size_t present = 0;
  int64_t not_finite = 0;
  records.ForEachPresent(field, [&](size_t, double v) {
    const bool finite = std::isfinite(v);
    not_finite += finite ? 0 : 1;
    present += !finite_only || finite ? 1 : 0;
  });
  if (nonfinite != nullptr) *nonfinite = not_finite;
  Points out;
  out.reserve(present);  // one allocation: no doubling copy next to the old array
  records.ForEachPresent(field, [&](size_t i, double v) {
    if (!finite_only || std::isfinite(v)) out.push_back({i, v});
  });
  return out;
}

// The summary of the values |for_each| visits (finite or not) in record
// order, NaN/Inf counted apart; the quantiles of the finite ones without a
// copy of them.
template <class ForEach>
SeriesSummary SummariseVisited(ForEach&& for_each) {
  SeriesSummary s;
  double first = 0, last = 0, min = 0, max = 0;
  for_each([&](double v) {
    if (!std::isfinite(v)) {
      ++s.nonfinite;
      return;
    }
    if (s.count == 0) {
      first = min = max = v;
    }
    last = v;
    if (v < min) min = v;     // the first smallest, as std::minmax_element
    if (!(v < max)) max = v;  // the last largest, as std::minmax_element
    ++s.count;
  });
  if (s.count == 0) return s;
  s.first = first;
  s.last = last;
  s.min = min;
  s.max = max;
  const std::vector<double> q = QuantilesOfVisited(
      [&for_each](auto&& visit) {
        for_each([&visit](double v) {
          if (std::isfinite(v)) visit(v);
        });
      },
      static_cast<size_t>(s.count), {0.5, 0.9});
  s.median = q[0];
  s.p90 = q[1];
  return s;
}

// The summary of |points| in record order, with |nonfinite| more values
// left out of them (Series' count).
SeriesSummary Summarise(const Points& points, int64_t nonfinite = 0) {
  SeriesSummary s = SummariseVisited([&points](auto&& visit) {
    for (const Point& p : points) visit(p.value);
  });
  s.nonfinite += nonfinite;
  return s;
}

// The summary of a record field, straight from the records: at millions of
// records a series of it beside the others was the analysis' peak memory.
SeriesSummary SummariseField(const model::TrainingRecords& records,
                             model::MaybeDouble TrainingRecord::*field) {
  return SummariseVisited([&records, field](auto&& visit) {
    records.ForEachPresent(field, [&visit](size_t, double v) { visit(v); });
  });
}

// The median wall time between consecutive records; when the log prints no
// step time (|derive|), the step times from it: the wall time over the
// steps between two records.
void WallTimes(const model::TrainingLog& log, bool derive, RunHealth* h, Points* step_ms) {
  const model::TrainingRecords& records = log.records;
  std::vector<double> intervals;
  intervals.reserve(records.size());  // one allocation: no doubling copy next to the old array
  Points derived;
  model::MaybeInt a_wall =
      records.empty() ? model::MaybeInt() : records.get(0, &TrainingRecord::wall_ns);
  for (size_t i = 1; i < records.size(); ++i) {
    const model::MaybeInt b_wall = records.get(i, &TrainingRecord::wall_ns);
    const model::MaybeInt a = a_wall;
    a_wall = b_wall;
    if (!a || !b_wall || *b_wall < *a) continue;
    const double ms = static_cast<double>(*b_wall - *a) / 1e6;
    intervals.push_back(ms);
    const int64_t a_step = records.step(i - 1);
    const int64_t b_step = records.step(i);
    if (derive && b_step > a_step)
      derived.push_back({i, ms / static_cast<double>(b_step - a_step)});
  }
  if (!intervals.empty()) h->record_interval_ms = MedianOf(std::move(intervals));
  if (derive && !derived.empty()) {
    *step_ms = std::move(derived);
    h->step_ms_from_timestamps = true;
  }
}

// Medians of the first and last third of |points| (at least six points).
std::optional<std::pair<double, double>> Thirds(const Points& points) {
  if (points.size() < 6) return std::nullopt;
  const size_t third = points.size() / 3;
  return std::make_pair(MedianOfValues(points, 0, third),
                        MedianOfValues(points, points.size() - third, points.size()));
}

std::string NonFinite(const char* name, double v) {
  return std::string(name) + " " + (std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
}

void FindNanInf(const model::TrainingLog& log, RunHealth* h) {
  // The bad records of each column in turn (a column's values are read a
  // block at a time, not record by record), then the records any names.
  const model::TrainingRecords& records = log.records;
  std::vector<size_t> bad;
  auto note_nonfinite = [&bad](size_t i, double v) {
    if (!std::isfinite(v)) bad.push_back(i);
  };
  records.ForEachPresent(&TrainingRecord::loss, note_nonfinite);
  records.ForEachPresent(&TrainingRecord::grad_norm, note_nonfinite);
  records.ForEachPresent(&TrainingRecord::nan_iterations, [&bad](size_t i, int64_t n) {
    if (n > 0) bad.push_back(i);
  });
  if (bad.empty()) return;
  std::sort(bad.begin(), bad.end());
  const auto bad_records = static_cast<int64_t>(std::unique(bad.begin(), bad.end()) - bad.begin());
  const TrainingRecord first = records[bad.front()];
  Finding f;
  f.id = "nan-inf";
  f.occurrences = bad_records;
  f.evidence_values = {{"step", static_cast<double>(first.step)},
                       {"line", static_cast<double>(first.line)},
                       {"bad_records", static_cast<double>(bad_records)}};
  std::string what;
  auto add = [&](const std::string& part) { what += (what.empty() ? "" : ", ") + part; };
  if (first.loss && !std::isfinite(*first.loss)) add(NonFinite("loss", *first.loss));
  if (first.grad_norm && !std::isfinite(*first.grad_norm)) {
    add(NonFinite("grad norm", *first.grad_norm));
  }
  if (first.nan_iterations && *first.nan_iterations > 0) {
    add("nan iterations " + std::to_string(*first.nan_iterations));
  }
  f.text_labels = {{"what", what}};
  h->findings.push_back(std::move(f));
}

// A loss spike is a rise from one record to the next that stands out among
// the |window| rises before it: the robust (modified) z-score of Iglewicz
// and Hoaglin, 0.6745 (d - median) / MAD, on the first differences, so that
// the falling trend of a run does not hide a spike (on the losses
// themselves the window's spread is the trend); it must also rise by a share
// of the loss before it.
void FindLossSpikes(const Points& loss, const model::TrainingLog& log, const FindingThresholds& t,
                    RunHealth* h) {
  const size_t window = static_cast<size_t>(std::max(3.0, t.health_window));
  int64_t spikes = 0;
  Finding f;
  auto rise = [&loss](size_t j) { return loss[j].value - loss[j - 1].value; };
  // The rises before record i (j in [i - window, i)), kept sorted as the
  // window slides: one leaves and one enters per record, where sorting the
  // window again for each record was the loss side's largest cost on a log
  // of millions of records.
  SortedWindow w;
  for (size_t j = 1; j <= window && j < loss.size(); ++j) w.Insert(rise(j));
  std::vector<double> dev;
  for (size_t i = window + 1; i < loss.size(); ++i) {
    if (i > window + 1) {
      w.Erase(rise(i - window - 1));
      w.Insert(rise(i - 1));
    }
    const double previous = loss[i - 1].value;
    const double x = loss[i].value;
    // The rise's share first: a falling loss (most records) needs no score.
    if (x - previous < t.loss_spike_min_rise * std::fabs(previous)) continue;
    const double median = QuantileOfSorted(w.values(), 0.5);
    DeviationsSorted(w.values(), median, &dev);
    // Identical rises (MAD 0) are floored so the score stays finite.
    const double mad =
        std::max(QuantileOfSorted(dev, 0.5), 1e-9 * std::max(1.0, std::fabs(previous)));
    const double z = 0.6745 * ((x - previous) - median) / mad;
    if (z < t.loss_spike_z) continue;
    if (spikes++ > 0) continue;
    const TrainingRecord& r = log.records[loss[i].record];
    f.id = "loss-spike";
    f.evidence_values = {{"step", static_cast<double>(r.step)},
                         {"line", static_cast<double>(r.line)},
                         {"loss", x},
                         {"previous_loss", previous},
                         {"robust_z", z}};
  }
  if (spikes == 0) return;
  f.occurrences = spikes;
  f.evidence_values.push_back({"spikes", static_cast<double>(spikes)});
  h->findings.push_back(std::move(f));
}

// Before the spike window fills (the first health_window records of a
// series), a loss judged against the running minimum of the losses before
// it: a rise of loss_early_rise_share over it is an early spike. A starting
// run's loss falls; too few rises exist yet to score one robustly.
void FindEarlyLossSpikes(const Points& loss, const model::TrainingLog& log,
                         const FindingThresholds& t, RunHealth* h) {
  const size_t window = static_cast<size_t>(std::max(3.0, t.health_window));
  const size_t end = std::min(loss.size(), window + 1);
  if (end < 2 || !(t.loss_early_rise_share > 0)) return;
  int64_t spikes = 0;
  Finding f;
  double running_min = loss[0].value;
  for (size_t i = 1; i < end; ++i) {
    const double x = loss[i].value;
    const double floor = running_min;
    running_min = std::min(running_min, x);
    if (!(floor > 0) || x <= floor * (1 + t.loss_early_rise_share)) continue;
    // A run that has already fallen far (a fine-tune from 1.28 to 0.08)
    // wobbles by large shares of a small loss: a spike must also undo the
    // same share of the fall from the first loss (none when nothing fell
    // yet: TorchTitan's 10.86 -> 14.45 at step 2).
    if (x - floor <= t.loss_early_rise_share * (loss[0].value - floor)) continue;
    if (spikes++ > 0) continue;
    const TrainingRecord& r = log.records[loss[i].record];
    f.id = "early-loss-spike";
    f.evidence_values = {{"step", static_cast<double>(r.step)},
                         {"line", static_cast<double>(r.line)},
                         {"loss", x},
                         {"running_min", floor},
                         {"first_loss", loss[0].value},
                         {"rise_pct", (x / floor - 1) * 100}};
  }
  if (spikes == 0) return;
  f.occurrences = spikes;
  f.evidence_values.push_back({"spikes", static_cast<double>(spikes)});
  h->findings.push_back(std::move(f));
}

// The loss trend rising: the series in consecutive windows of
// min(health_window, n / 3) records (at least 3), each window's median
// against the lowest median of the windows before it.
void FindLossDivergence(const Points& loss, const model::TrainingLog& log,
                        const FindingThresholds& t, RunHealth* h) {
  const size_t width = std::max<size_t>(
      3, std::min(static_cast<size_t>(std::max(3.0, t.health_window)), loss.size() / 3));
  if (loss.size() < 2 * width || !(t.loss_divergence_share > 0)) return;
  std::optional<double> lowest;
  size_t lowest_at = 0;
  std::vector<double> w;
  // Consecutive windows, and the last |width| records when the windows do
  // not end with the series: a climb in its last records is judged too.
  std::vector<size_t> begins;
  for (size_t begin = 0; begin + width <= loss.size(); begin += width) begins.push_back(begin);
  if (begins.back() + width < loss.size()) begins.push_back(loss.size() - width);
  for (const size_t begin : begins) {
    w.clear();
    for (size_t i = begin; i < begin + width; ++i) w.push_back(loss[i].value);
    const double median = MedianOf(w);
    if (lowest && *lowest > 0 && median > *lowest * (1 + t.loss_divergence_share)) {
      const TrainingRecord& r = log.records[loss[begin].record];
      Finding f;
      f.id = "loss-divergence";
      f.evidence_values = {
          {"step", static_cast<double>(r.step)},
          {"line", static_cast<double>(r.line)},
          {"from_step", static_cast<double>(log.records[loss[lowest_at].record].step)},
          {"window_median", median},
          {"lowest_median", *lowest},
          {"rise_pct", (median / *lowest - 1) * 100},
          {"windows", static_cast<double>(width)}};
      h->findings.push_back(std::move(f));
      return;
    }
    if (!lowest || median < *lowest) {
      lowest = median;
      lowest_at = begin;
    }
  }
}

// Steps skipped on fp16 overflow (DeepSpeed's loss scaler lines, Megatron's
// skipped iterations) again and again: more than the scaler's search for its
// scale at the start, and a share of the steps the series spans.
void FindOverflowSkips(const model::TrainingLog& log, const FindingThresholds& t, RunHealth* h) {
  if (h->skipped_iterations <= 0 || log.records.empty() || log.records.front().step_is_ordinal) {
    return;
  }
  const int64_t steps = log.records.back().step - log.records.front().step + 1;
  if (steps <= 0) return;
  const double share = static_cast<double>(h->skipped_iterations) / static_cast<double>(steps);
  if (static_cast<double>(h->skipped_iterations) <= t.overflow_min_skips ||
      !(share > t.overflow_skip_share)) {
    return;
  }
  std::optional<TrainingRecord> first;
  for (size_t i = 0; i < log.records.size(); ++i) {
    if (log.records.get(i, &TrainingRecord::skipped_iterations).value_or(0) > 0) {
      first = log.records[i];
      break;
    }
  }
  if (!first) return;
  Finding f;
  f.id = "fp16-overflows";
  f.evidence_values = {{"step", static_cast<double>(first->step)},
                       {"line", static_cast<double>(first->line)},
                       {"skipped", static_cast<double>(h->skipped_iterations)},
                       {"steps", static_cast<double>(steps)},
                       {"share_pct", share * 100}};
  h->findings.push_back(std::move(f));
}

// Grad norm over the median of the |window| finite grad norms before it
// (from the fourth record: the median of all before it while the window
// fills).
void FindGradExplosion(const Points& grad, const model::TrainingLog& log,
                       const FindingThresholds& t, RunHealth* h) {
  const size_t window = static_cast<size_t>(std::max(3.0, t.health_window));
  int64_t count = 0;
  Finding f;
  // The grad norms [from, i) before record i, kept sorted as they slide.
  SortedWindow sorted;
  size_t from = 0;
  for (size_t k = 0; k < 3 && k < grad.size(); ++k) sorted.Insert(grad[k].value);
  for (size_t i = 3; i < grad.size(); ++i) {
    if (i > 3) sorted.Insert(grad[i - 1].value);
    for (; from < (i > window ? i - window : 0); ++from) sorted.Erase(grad[from].value);
    const std::vector<double>& w = sorted.values();
    const double median = QuantileOfSorted(w, 0.5);
    if (median <= 0 || grad[i].value < t.grad_explosion_ratio * median) continue;
    if (count++ > 0) continue;
    const TrainingRecord& r = log.records[grad[i].record];
    f.id = "grad-explosion";
    f.evidence_values = {
        {"step", static_cast<double>(r.step)}, {"line", static_cast<double>(r.line)},
        {"grad_norm", grad[i].value},          {"median_grad_norm", median},
        {"ratio", grad[i].value / median},     {"prior_values", static_cast<double>(w.size())}};
  }
  if (count == 0) return;
  f.occurrences = count;
  f.evidence_values.push_back({"explosions", static_cast<double>(count)});
  h->findings.push_back(std::move(f));
}

// The largest silence between timestamped lines after the first record,
// against the median wall time between records (or the step time).
void FindHang(const model::TrainingLog& log, const FindingThresholds& t, RunHealth* h) {
  const std::optional<double> baseline_ms =
      h->record_interval_ms ? h->record_interval_ms : h->step_ms.median;
  if (!baseline_ms || *baseline_ms <= 0 || log.largest_gaps.empty()) return;
  const model::LogGap& g = log.largest_gaps.front();  // largest first
  const double gap_ms = static_cast<double>(g.gap_ns) / 1e6;
  if (gap_ms < t.hang_ratio * *baseline_ms) return;
  int64_t count = 0;
  for (const model::LogGap& other : log.largest_gaps) {
    count += static_cast<double>(other.gap_ns) / 1e6 >= t.hang_ratio * *baseline_ms ? 1 : 0;
  }
  Finding f;
  f.id = "hang";
  f.occurrences = count;
  f.evidence_values = {{"gap_s", gap_ms / 1e3},
                       {"baseline_ms", *baseline_ms},
                       {"ratio", gap_ms / *baseline_ms},
                       {"line", static_cast<double>(g.line_before)},
                       {"gaps", static_cast<double>(count)}};
  if (g.last_step) f.evidence_values.push_back({"step", static_cast<double>(*g.last_step)});
  f.text_labels = {{"line_text", g.text_before}};
  h->findings.push_back(std::move(f));
}

// Tokens/s (or, when the log prints none, the step time) of the last third
// of the run against the first third.
void FindThroughputDrop(const Points& tps, const Points& step_ms, const model::TrainingLog& log,
                        const FindingThresholds& t, RunHealth* h) {
  const bool use_tps = tps.size() >= 6;
  const Points& series = use_tps ? tps : step_ms;
  const std::optional<std::pair<double, double>> thirds = Thirds(series);
  if (!thirds || thirds->first <= 0 || thirds->second <= 0) return;
  // Worsening as a share: tokens/s falls, step time rises.
  const double worse =
      use_tps ? 1 - thirds->second / thirds->first : 1 - thirds->first / thirds->second;
  if (worse < t.throughput_drop_share) return;
  Finding f;
  f.id = "throughput-drop";
  const size_t from = series.size() - series.size() / 3;
  f.evidence_values = {{"first_third", thirds->first},
                       {"last_third", thirds->second},
                       {"drop_pct", worse * 100},
                       {"step", static_cast<double>(log.records[series[from].record].step)}};
  f.text_labels = {{"metric", use_tps ? "tokens/s" : "step time (ms)"}};
  h->findings.push_back(std::move(f));
}

void FindErrorLines(const model::TrainingLog& log, RunHealth* h) {
  for (int k = 0; k < model::kLogErrorKinds; ++k) {
    const auto kind = static_cast<model::LogErrorKind>(k);
    if (log.error_counts[k] == 0) continue;
    const auto first = std::find_if(log.errors.begin(), log.errors.end(),
                                    [&](const model::LogErrorLine& e) { return e.kind == kind; });
    if (first == log.errors.end()) continue;
    Finding f;
    f.id = std::string(model::LogErrorKindName(kind));
    f.occurrences = log.error_counts[k];
    f.evidence_values = {{"lines", static_cast<double>(log.error_counts[k])},
                         {"line", static_cast<double>(first->line)}};
    if (first->last_step) {
      f.evidence_values.push_back({"last_step", static_cast<double>(*first->last_step)});
    }
    f.text_labels = {{"line_text", first->text}};
    h->findings.push_back(std::move(f));
  }
}

// Steps one record stands for: the steps since the record before (Megatron's
// per-iteration time is the interval's average); the first record counts
// its own step number, or 1.
double StepsOf(const model::TrainingLog& log, size_t record) {
  const model::TrainingRecords& records = log.records;
  if (records.step_is_ordinal(record)) return 1;
  const int64_t step = records.step(record);
  if (record == 0) return step > 0 ? static_cast<double>(step) : 1;
  const int64_t d = step - records.step(record - 1);
  return d > 0 ? static_cast<double>(d) : 1;
}

// Leading records slow_warmup_share above the steady state (the median of
// the second half); the count, and a finding from slow_warmup_min_records.
size_t FindSlowWarmup(const Points& ms, const model::TrainingLog& log, const FindingThresholds& t,
                      RunHealth* h) {
  if (ms.size() < 6) return 0;
  const double steady = MedianOfValues(ms, ms.size() / 2, ms.size());
  if (steady <= 0) return 0;
  size_t n = 0;
  while (n < ms.size() / 2 && ms[n].value > steady * (1 + t.slow_warmup_share)) ++n;
  h->warmup_records = static_cast<int64_t>(n);
  if (n == 0) return 0;
  const TrainingRecord& last = log.records[ms[n - 1].record];
  h->warmup_until_step = last.step;
  if (static_cast<double>(n) < t.slow_warmup_min_records) return n;
  double extra_ms = 0;
  for (size_t i = 0; i < n; ++i) {
    extra_ms +=
        (ms[i].value - steady) * (h->step_ms_from_timestamps ? 1 : StepsOf(log, ms[i].record));
  }
  Finding f;
  f.id = "slow-warmup";
  f.evidence_values = {{"records", static_cast<double>(n)},
                       {"until_step", static_cast<double>(last.step)},
                       {"first_ms", ms.front().value},
                       {"steady_ms", steady},
                       {"ratio", ms.front().value / steady},
                       {"extra_s", extra_ms / 1e3},
                       {"extra_steps", extra_ms / steady},
                       {"step", static_cast<double>(log.records[ms.front().record].step)}};
  h->findings.push_back(std::move(f));
  return n;
}

// Theil-Sen slope (the median of the pairwise slopes) through the medians
// of up to 64 buckets of the step times after warm-up: robust to single
// stalls and to the hang's one long interval. |median_ms|: the median of
// ms[from, end).
void FindStepTimeDrift(const Points& ms, size_t from, double median_ms,
                       const model::TrainingLog& log, const FindingThresholds& t, RunHealth* h) {
  if (ms.size() < from + 12) return;
  const size_t m = ms.size() - from;
  const size_t buckets = std::min<size_t>(64, m);
  std::vector<double> xs, ys;
  for (size_t b = 0; b < buckets; ++b) {
    std::vector<double> x, y;
    for (size_t i = from + b * m / buckets; i < from + (b + 1) * m / buckets; ++i) {
      x.push_back(static_cast<double>(log.records.step(ms[i].record)));
      y.push_back(ms[i].value);
    }
    xs.push_back(MedianOf(std::move(x)));
    ys.push_back(MedianOf(std::move(y)));
  }
  std::vector<double> slopes;
  for (size_t i = 0; i < buckets; ++i) {
    for (size_t j = i + 1; j < buckets; ++j) {
      if (xs[j] > xs[i]) slopes.push_back((ys[j] - ys[i]) / (xs[j] - xs[i]));
    }
  }
  if (slopes.empty() || median_ms <= 0) return;
  const double slope = MedianOf(std::move(slopes));
  std::vector<double> intercepts;
  for (size_t i = 0; i < buckets; ++i) intercepts.push_back(ys[i] - slope * xs[i]);
  const double intercept = MedianOf(std::move(intercepts));
  const double x0 = static_cast<double>(log.records.step(ms[from].record));
  const double x1 = static_cast<double>(log.records.step(ms.back().record));
  const double drift = slope * (x1 - x0) / median_ms;
  h->step_ms_drift_pct = drift * 100;
  if (drift < t.step_time_drift_share) return;
  Finding f;
  f.id = "step-time-drift";
  f.evidence_values = {{"drift_pct", drift * 100},
                       {"start_ms", intercept + slope * x0},
                       {"end_ms", intercept + slope * x1},
                       {"median_ms", median_ms},
                       {"slope_ms_per_1k_steps", slope * 1000},
                       {"from_step", x0},
                       {"to_step", x1},
                       {"step", x0}};
  h->findings.push_back(std::move(f));
}

// Stalls periodic_spike_share above the median step at a regular spacing
// (checkpoint saves, garbage collection every K steps): a saw-tooth.
// |median_ms|: the median of ms[from, end).
void FindPeriodicStalls(const Points& ms, size_t from, double median_ms,
                        const model::TrainingLog& log, const FindingThresholds& t, RunHealth* h) {
  if (ms.size() < from + 12 || median_ms <= 0) return;
  std::vector<size_t> spikes;
  for (size_t i = from; i < ms.size(); ++i) {
    if (ms[i].value > median_ms * (1 + t.periodic_spike_share)) spikes.push_back(i);
  }
  if (static_cast<double>(spikes.size()) < std::max(3.0, t.periodic_min_spikes)) return;
  std::vector<double> spacing;
  for (size_t k = 1; k < spikes.size(); ++k) {
    spacing.push_back(static_cast<double>(log.records.step(ms[spikes[k]].record) -
                                          log.records.step(ms[spikes[k - 1]].record)));
  }
  const double period = MedianOf(spacing);
  const double record_gap = MedianOfVisited(
      [&ms, &log, from](auto&& visit) {
        for (size_t i = from + 1; i < ms.size(); ++i) {
          visit(static_cast<double>(log.records.step(ms[i].record) -
                                    log.records.step(ms[i - 1].record)));
        }
      },
      ms.size() - from - 1);
  const double interval = std::max(1.0, record_gap);
  if (period < 2 * interval) return;  // every other record: noise, not a period
  const double tolerance = std::max(interval, 0.1 * period);
  size_t regular = 0;
  for (double d : spacing) regular += std::fabs(d - period) <= tolerance ? 1 : 0;
  if (3 * regular < 2 * spacing.size()) return;  // two thirds at the period
  double lost = 0;
  double total = 0;
  std::vector<double> spike_ms;
  for (size_t i = from; i < ms.size(); ++i) {
    const double w = h->step_ms_from_timestamps ? 1 : StepsOf(log, ms[i].record);
    total += ms[i].value * w;
  }
  for (size_t i : spikes) {
    const double w = h->step_ms_from_timestamps ? 1 : StepsOf(log, ms[i].record);
    lost += (ms[i].value - median_ms) * w;
    spike_ms.push_back(ms[i].value);
  }
  h->period_steps = static_cast<int64_t>(std::llround(period));
  h->period_spikes = static_cast<int64_t>(spikes.size());
  Finding f;
  f.id = "periodic-stall";
  f.occurrences = static_cast<int64_t>(spikes.size());
  f.evidence_values = {{"period_steps", period},
                       {"spikes", static_cast<double>(spikes.size())},
                       {"median_ms", median_ms},
                       {"spike_ms", MedianOf(std::move(spike_ms))},
                       {"lost_pct", total > 0 ? lost / total * 100 : 0},
                       {"step", static_cast<double>(log.records[ms[spikes.front()].record].step)}};
  h->findings.push_back(std::move(f));
}

// The model's FLOPs per token and the achieved TGS / TFLOP/s / MFU per
// record (docs/health.md, "MFU from --model").
// N and the FLOPs per token from the spec: N given, or 12 L h^2 + V h.
void ModelFlops(const ModelSpec& spec, ModelThroughput* out) {
  ModelThroughput& m = *out;
  const bool shape = spec.layers && spec.hidden;
  if (spec.params) {
    m.params = spec.params;
  } else if (shape && spec.vocab) {
    // Kaplan et al. (2020): 12 L h^2 per layer's attention and MLP (MLP 4h),
    // plus the V h of the output layer (Megatron's logit term).
    m.params = 12 * *spec.layers * *spec.hidden * *spec.hidden + *spec.vocab * *spec.hidden;
  } else {
    m.missing.emplace_back("params (or layers, hidden and vocab)");
  }
  if (m.params) {
    m.flops_per_token = 6 * *m.params;
    if (shape && spec.seq) {
      *m.flops_per_token += 12 * *spec.layers * *spec.hidden * *spec.seq;
      m.attention_term = true;
    } else {
      m.missing.emplace_back("layers, hidden and seq for the attention term 12 L h s");
    }
  }
}

// The peak: --peak-tflops, else the device table's row.
void ModelPeak(const ModelSpec& spec, ModelThroughput* m) {
  if (spec.peak_tflops) {
    m->peak_tflops = spec.peak_tflops;
    m->peak_source = "--peak-tflops";
  } else if (!spec.device.empty()) {
    if (auto peak = DeviceBf16Peak(spec.device)) {
      m->peak_tflops = peak->first;
      m->peak_source = peak->second;
    } else {
      m->missing.push_back("a peak for device '" + spec.device + "' (give --peak-tflops)");
    }
  } else {
    m->missing.emplace_back("device or --peak-tflops");
  }
}

ModelThroughput ModelNumbers(const ModelSpec& spec, const Points& step_ms, const Points& tps,
                             Points* mfu_out, Points* tgs_out) {
  ModelThroughput m;
  ModelFlops(spec, &m);
  ModelPeak(spec, &m);
  m.tokens_per_step = spec.tokens_per_step;
  if (!m.tokens_per_step && spec.batch && spec.seq) m.tokens_per_step = *spec.batch * *spec.seq;
  m.devices = spec.devices;
  std::vector<double> tgs, tflops, mfu;
  if (m.tokens_per_step && m.devices && *m.devices > 0 && !step_ms.empty()) {
    m.tgs_source = "model";
    for (const Point& p : step_ms) {
      if (p.value <= 0) continue;
      tgs.push_back(*m.tokens_per_step / (p.value / 1e3) / *m.devices);
      tgs_out->push_back({p.record, tgs.back()});
    }
  } else if (!tps.empty()) {
    m.tgs_source = "log";
    for (const Point& p : tps) {
      tgs.push_back(p.value);
      tgs_out->push_back(p);
    }
  } else {
    m.missing.emplace_back(
        "tokens per step (tokens= or batch= and seq=) and devices=, or tokens/s in the log");
  }
  const bool have_tgs = !tgs.empty();
  if (have_tgs) m.tgs = MedianOf(std::move(tgs));
  if (m.flops_per_token && have_tgs) {
    for (const Point& p : *tgs_out) {
      tflops.push_back(*m.flops_per_token * p.value / 1e12);
      if (m.peak_tflops && *m.peak_tflops > 0) {
        mfu.push_back(tflops.back() / *m.peak_tflops * 100);
        mfu_out->push_back({p.record, mfu.back()});
      }
    }
    m.tflops_per_device = MedianOf(std::move(tflops));
    if (!mfu.empty()) m.mfu_pct = MedianOf(std::move(mfu));
    if (m.mfu_pct && *m.mfu_pct > 100) {
      m.missing.emplace_back(
          "values that fit the run: an MFU above 100% of the peak is impossible (check params, "
          "batch / tokens, devices and the peak)");
    }
  }
  return m;
}

// The log's own MFU (else TFLOP/s) against the model's.
void FindMfuMismatch(const RunHealth& h, const FindingThresholds& t, std::vector<Finding>* out) {
  if (!h.model) return;
  const ModelThroughput& m = *h.model;
  std::optional<double> logged, modelled;
  std::string metric;
  if (h.mfu_pct.median && m.mfu_pct) {
    logged = h.mfu_pct.median;
    modelled = m.mfu_pct;
    metric = "MFU (%)";
  } else if (h.tflops.median && m.tflops_per_device) {
    logged = h.tflops.median;
    modelled = m.tflops_per_device;
    metric = "TFLOP/s per device";
  }
  if (!logged || !modelled || *modelled <= 0) return;
  const double diff = std::fabs(*logged - *modelled) / *modelled;
  if (diff <= t.mfu_mismatch_share) return;
  Finding f;
  f.id = "mfu-mismatch";
  f.evidence_values = {
      {"log_value", *logged}, {"model_value", *modelled}, {"diff_pct", diff * 100}};
  f.text_labels = {{"metric", metric}};
  out->push_back(std::move(f));
}

// At most kCurveMaxPoints from finite |points|: per bucket the smallest
// and the largest value, in step order.
std::vector<CurvePoint> Curve(const Points& points, const model::TrainingLog& log) {
  std::vector<CurvePoint> out;
  const size_t half = kCurveMaxPoints / 2;
  const size_t per = std::max<size_t>(1, (points.size() + half - 1) / half);
  for (size_t b = 0; b < points.size(); b += per) {
    const size_t e = std::min(points.size(), b + per);
    size_t lo = b;
    size_t hi = b;
    for (size_t i = b; i < e; ++i) {
      if (points[i].value < points[lo].value) lo = i;
      if (points[i].value > points[hi].value) hi = i;
    }
    const size_t first = std::min(lo, hi);
    const size_t second = std::max(lo, hi);
    out.push_back({log.records.step(points[first].record), points[first].value});
    if (second != first)
      out.push_back({log.records.step(points[second].record), points[second].value});
  }
  return out;
}

}  // namespace

std::optional<std::pair<double, std::string>> DeviceBf16Peak(std::string_view device) {
  std::optional<DevicePeak> peak = FindDevicePeak(device);
  if (!peak) {
    // A product name ("A100", "h100"): the SXM part when several match.
    const std::string want = AsciiLower(device);
    for (const DevicePeak& row : AllDevicePeaks()) {
      const std::string product = AsciiLower(row.device);
      if (want.empty() || product.find(want) == std::string::npos) continue;
      if (!peak || product.find("sxm") != std::string::npos) peak = row;
    }
  }
  if (!peak) return std::nullopt;
  const std::optional<double> bf16 = PeakTflopsFor(*peak, "bf16");
  if (!bf16) return std::nullopt;
  return std::make_pair(*bf16, std::string(peak->device));
}

namespace {

// The loss and grad-norm side of a log's health: their summaries, the
// NaN/Inf, loss and grad-norm findings and their curves, into |h|.
void JudgeLossAndGradNorm(const model::TrainingLog& log, const FindingThresholds& t, RunHealth* h) {
  FindNanInf(log, h);
  // One series at a time: at millions of records each is tens of MB. Each
  // series' summary from it (four reads of the doubles, not of the packed
  // records).
  {
    int64_t nonfinite = 0;
    const Points loss_all = Series(log.records, &TrainingRecord::loss, true, &nonfinite);
    h->loss = Summarise(loss_all, nonfinite);
    // The loss rules are ratios to earlier losses: they judge a loss that is
    // a positive objective (cross-entropy), not one that crosses 0 (a PPO
    // actor's surrogate loss).
    const bool positive_loss =
        std::all_of(loss_all.begin(), loss_all.end(), [](const Point& p) { return p.value > 0; });
    if (positive_loss) {
      FindEarlyLossSpikes(loss_all, log, t, h);
      FindLossSpikes(loss_all, log, t, h);
      FindLossDivergence(loss_all, log, t, h);
    }
    h->curves.loss = Curve(loss_all, log);
  }
  int64_t nonfinite = 0;
  const Points grad = Series(log.records, &TrainingRecord::grad_norm, true, &nonfinite);
  h->grad_norm = Summarise(grad, nonfinite);
  FindGradExplosion(grad, log, t, h);
  h->curves.grad_norm = Curve(grad, log);
}

// The step-time side: step time, throughput, MFU, skipped and NaN
// iterations, hangs, error lines, warm-up, drift, stalls and the model's
// numbers, into |h|.
void JudgeStepsAndThroughput(const model::TrainingLog& log, const FindingThresholds& t,
                             const ModelSpec* spec, RunHealth* h) {
  // The intervals between records before the step times are read: at
  // millions of records each is tens of MB, and one series at a time is
  // this side's share of the peak.
  bool logs_step_ms = false;
  log.records.ForEachPresent(&TrainingRecord::step_time_ms, [&](size_t, double v) {
    logs_step_ms = logs_step_ms || std::isfinite(v);
  });
  Points step_ms;
  WallTimes(log, !logs_step_ms, h, &step_ms);
  if (logs_step_ms) step_ms = Series(log.records, &TrainingRecord::step_time_ms, true);
  h->step_ms = Summarise(step_ms);
  if (const auto thirds = Thirds(step_ms); thirds && thirds->first > 0) {
    h->step_ms_trend_pct = (thirds->second / thirds->first - 1) * 100;
  }
  const Points tps = Series(log.records, &TrainingRecord::tokens_per_s, true);
  h->tokens_per_s = Summarise(tps);
  h->tflops = SummariseField(log.records, &TrainingRecord::tflops);
  h->mfu_pct = SummariseField(log.records, &TrainingRecord::mfu_pct);
  log.records.ForEachPresent(&TrainingRecord::skipped_iterations,
                             [&](size_t, int64_t n) { h->skipped_iterations += n; });
  log.records.ForEachPresent(&TrainingRecord::nan_iterations,
                             [&](size_t, int64_t n) { h->nan_iterations += n; });
  FindOverflowSkips(log, t, h);
  FindHang(log, t, h);
  FindThroughputDrop(tps, step_ms, log, t, h);
  FindErrorLines(log, h);
  const size_t warmup = FindSlowWarmup(step_ms, log, t, h);
  // The steady step time both judge against, read once.
  const double steady_ms = MedianOfValues(step_ms, warmup, step_ms.size());
  FindStepTimeDrift(step_ms, warmup, steady_ms, log, t, h);
  FindPeriodicStalls(step_ms, warmup, steady_ms, log, t, h);
  Points model_mfu, model_tgs;
  if (spec != nullptr) {
    h->model = ModelNumbers(*spec, step_ms, tps, &model_mfu, &model_tgs);
    FindMfuMismatch(*h, t, &h->findings);
  }
  h->curves.step_ms = Curve(step_ms, log);
  h->curves.tokens_per_s = Curve(model_tgs.empty() ? tps : model_tgs, log);
  h->curves.mfu_pct = Curve(
      model_mfu.empty() ? Series(log.records, &TrainingRecord::mfu_pct, true) : model_mfu, log);
}

}  // namespace

RunHealth AnalyzeTrainingLog(const model::TrainingLog& log, const FindingThresholds& t,
                             const ModelSpec* spec, unsigned threads) {
  RunHealth h;
  h.path = log.path;
  h.format = log.format;
  h.records = static_cast<int64_t>(log.records.size());
  if (!log.records.empty()) {
    h.first_step = log.records.front().step;
    h.last_step = log.records.back().step;
    h.steps_ordinal = log.records.front().step_is_ordinal;
  }
  // The two sides read the records and write fields of their own: on a
  // log of a million records they run side by side.
  RunHealth loss_side;
  ParallelFor(2, log.records.size() >= kSideBySideRecords ? threads : 1, [&](size_t side) {
    if (side == 0) {
      JudgeLossAndGradNorm(log, t, &loss_side);
    } else {
      JudgeStepsAndThroughput(log, t, spec, &h);
    }
  });
  h.loss = loss_side.loss;
  h.grad_norm = loss_side.grad_norm;
  h.curves.loss = std::move(loss_side.curves.loss);
  h.curves.grad_norm = std::move(loss_side.curves.grad_norm);
  // The loss side's findings first, as when one thread judged both.
  loss_side.findings.insert(loss_side.findings.end(), std::make_move_iterator(h.findings.begin()),
                            std::make_move_iterator(h.findings.end()));
  h.findings = std::move(loss_side.findings);
  return h;
}

namespace {

// One metric of the ranks of a run: each rank's median against the median
// of the ranks' medians.
void FindRankOutlierOf(const std::vector<RunHealth*>& ranks, const FindingThresholds& t,
                       const SeriesSummary RunHealth::*metric, std::string_view name) {
  std::vector<std::pair<RunHealth*, double>> medians;
  for (RunHealth* r : ranks) {
    const SeriesSummary& s = r->*metric;
    if (s.count >= kRankOutlierMinRecords && s.median) medians.emplace_back(r, *s.median);
  }
  if (medians.size() < 3) return;  // with two, which one is off is unknown
  std::vector<double> values;
  values.reserve(medians.size());
  for (const auto& m : medians) values.push_back(m.second);
  const double center = MedianOf(values);
  if (!(std::fabs(center) > 0)) return;
  for (const auto& [run, median] : medians) {
    const double diff = (median - center) / std::fabs(center);
    if (!(std::fabs(diff) > t.rank_outlier_share)) continue;
    Finding f;
    f.id = "rank-outlier";
    f.evidence_values = {{"rank", static_cast<double>(run->rank.value_or(-1))},
                         {"rank_median", median},
                         {"ranks_median", center},
                         {"diff_pct", diff * 100},
                         {"ranks", static_cast<double>(medians.size())},
                         {"records", static_cast<double>((run->*metric).count)}};
    f.text_labels = {{"metric", std::string(name)}};
    run->findings.push_back(std::move(f));
  }
}

}  // namespace

void FindRankOutliers(const std::vector<RunHealth*>& ranks, const FindingThresholds& t) {
  if (!(t.rank_outlier_share > 0)) return;
  FindRankOutlierOf(ranks, t, &RunHealth::step_ms, "step time (ms)");
  FindRankOutlierOf(ranks, t, &RunHealth::loss, "loss");
}

}  // namespace trainscope::analysis
