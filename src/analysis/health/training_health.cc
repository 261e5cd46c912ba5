#include "analysis/health/training_health.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace trainscope::analysis {
namespace {

using model::TrainingRecord;

double QuantileOfSorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return QuantileOfSorted(v, 0.5);
}

// |values| in record order, NaN/Inf included.
SeriesSummary Summarise(const std::vector<double>& values) {
  SeriesSummary s;
  std::vector<double> finite;
  finite.reserve(values.size());
  for (double v : values) {
    if (std::isfinite(v)) {
      finite.push_back(v);
    } else {
      ++s.nonfinite;
    }
  }
  s.count = static_cast<int64_t>(finite.size());
  if (finite.empty()) return s;
  s.first = finite.front();
  s.last = finite.back();
  std::sort(finite.begin(), finite.end());
  s.min = finite.front();
  s.max = finite.back();
  s.median = QuantileOfSorted(finite, 0.5);
  s.p90 = QuantileOfSorted(finite, 0.9);
  return s;
}

struct Point {
  size_t record;
  double value;
};

std::vector<Point> Series(const std::vector<TrainingRecord>& records,
                          model::MaybeDouble TrainingRecord::*field, bool finite_only) {
  std::vector<Point> out;
  for (size_t i = 0; i < records.size(); ++i) {
    const model::MaybeDouble& v = records[i].*field;
    if (v && (!finite_only || std::isfinite(*v))) out.push_back({i, *v});
  }
  return out;
}

std::vector<double> Values(const std::vector<Point>& points) {
  std::vector<double> out;
  out.reserve(points.size());
  for (const Point& p : points) out.push_back(p.value);
  return out;
}

// Medians of the first and last third of |points| (at least six points).
std::optional<std::pair<double, double>> Thirds(const std::vector<Point>& points) {
  if (points.size() < 6) return std::nullopt;
  const size_t third = points.size() / 3;
  std::vector<double> first, last;
  for (size_t i = 0; i < third; ++i) first.push_back(points[i].value);
  for (size_t i = points.size() - third; i < points.size(); ++i) last.push_back(points[i].value);
  return std::make_pair(MedianOf(first), MedianOf(last));
}

std::string NonFinite(const char* name, double v) {
  return std::string(name) + " " + (std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
}

void FindNanInf(const model::TrainingLog& log, RunHealth* h) {
  int64_t bad_records = 0;
  const TrainingRecord* first = nullptr;
  for (const TrainingRecord& r : log.records) {
    const bool bad = (r.loss && !std::isfinite(*r.loss)) ||
                     (r.grad_norm && !std::isfinite(*r.grad_norm)) ||
                     (r.nan_iterations && *r.nan_iterations > 0);
    if (!bad) continue;
    ++bad_records;
    if (first == nullptr) first = &r;
  }
  if (first == nullptr) return;
  Finding f;
  f.id = "nan-inf";
  f.occurrences = bad_records;
  f.evidence_values = {{"step", static_cast<double>(first->step)},
                       {"line", static_cast<double>(first->line)},
                       {"bad_records", static_cast<double>(bad_records)}};
  std::string what;
  auto add = [&](const std::string& part) { what += (what.empty() ? "" : ", ") + part; };
  if (first->loss && !std::isfinite(*first->loss)) add(NonFinite("loss", *first->loss));
  if (first->grad_norm && !std::isfinite(*first->grad_norm)) {
    add(NonFinite("grad norm", *first->grad_norm));
  }
  if (first->nan_iterations && *first->nan_iterations > 0) {
    add("nan iterations " + std::to_string(*first->nan_iterations));
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
void FindLossSpikes(const std::vector<Point>& loss, const model::TrainingLog& log,
                    const FindingThresholds& t, RunHealth* h) {
  const size_t window = static_cast<size_t>(std::max(3.0, t.health_window));
  int64_t spikes = 0;
  Finding f;
  std::vector<double> w(window);
  std::vector<double> dev(window);
  for (size_t i = window + 1; i < loss.size(); ++i) {
    for (size_t k = 0; k < window; ++k) {
      const size_t j = i - window + k;
      w[k] = loss[j].value - loss[j - 1].value;
    }
    std::sort(w.begin(), w.end());
    const double median = QuantileOfSorted(w, 0.5);
    for (size_t k = 0; k < window; ++k) dev[k] = std::fabs(w[k] - median);
    std::sort(dev.begin(), dev.end());
    const double previous = loss[i - 1].value;
    // Identical rises (MAD 0) are floored so the score stays finite.
    const double mad =
        std::max(QuantileOfSorted(dev, 0.5), 1e-9 * std::max(1.0, std::fabs(previous)));
    const double x = loss[i].value;
    const double z = 0.6745 * ((x - previous) - median) / mad;
    if (z < t.loss_spike_z || x - previous < t.loss_spike_min_rise * std::fabs(previous)) continue;
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

// Grad norm over the median of the |window| finite grad norms before it.
void FindGradExplosion(const std::vector<Point>& grad, const model::TrainingLog& log,
                       const FindingThresholds& t, RunHealth* h) {
  const size_t window = static_cast<size_t>(std::max(3.0, t.health_window));
  int64_t count = 0;
  Finding f;
  std::vector<double> w(window);
  for (size_t i = window; i < grad.size(); ++i) {
    for (size_t k = 0; k < window; ++k) w[k] = grad[i - window + k].value;
    std::sort(w.begin(), w.end());
    const double median = QuantileOfSorted(w, 0.5);
    if (median <= 0 || grad[i].value < t.grad_explosion_ratio * median) continue;
    if (count++ > 0) continue;
    const TrainingRecord& r = log.records[grad[i].record];
    f.id = "grad-explosion";
    f.evidence_values = {{"step", static_cast<double>(r.step)},
                         {"line", static_cast<double>(r.line)},
                         {"grad_norm", grad[i].value},
                         {"median_grad_norm", median},
                         {"ratio", grad[i].value / median}};
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
void FindThroughputDrop(const std::vector<Point>& tps, const std::vector<Point>& step_ms,
                        const model::TrainingLog& log, const FindingThresholds& t, RunHealth* h) {
  const bool use_tps = tps.size() >= 6;
  const std::vector<Point>& series = use_tps ? tps : step_ms;
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
  for (int k = 0; k < 3; ++k) {
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

}  // namespace

RunHealth AnalyzeTrainingLog(const model::TrainingLog& log, const FindingThresholds& t) {
  RunHealth h;
  h.path = log.path;
  h.format = log.format;
  h.records = static_cast<int64_t>(log.records.size());
  if (!log.records.empty()) {
    h.first_step = log.records.front().step;
    h.last_step = log.records.back().step;
    h.steps_ordinal = log.records.front().step_is_ordinal;
  }
  std::vector<Point> step_ms = Series(log.records, &TrainingRecord::step_time_ms, true);
  std::vector<double> intervals;
  std::vector<Point> derived;
  for (size_t i = 1; i < log.records.size(); ++i) {
    const TrainingRecord& a = log.records[i - 1];
    const TrainingRecord& b = log.records[i];
    if (!a.wall_ns || !b.wall_ns || *b.wall_ns < *a.wall_ns) continue;
    const double ms = static_cast<double>(*b.wall_ns - *a.wall_ns) / 1e6;
    intervals.push_back(ms);
    if (b.step > a.step) derived.push_back({i, ms / static_cast<double>(b.step - a.step)});
  }
  if (!intervals.empty()) h.record_interval_ms = MedianOf(intervals);
  if (step_ms.empty() && !derived.empty()) {
    step_ms = std::move(derived);
    h.step_ms_from_timestamps = true;
  }
  h.step_ms = Summarise(Values(step_ms));
  if (const auto thirds = Thirds(step_ms); thirds && thirds->first > 0) {
    h.step_ms_trend_pct = (thirds->second / thirds->first - 1) * 100;
  }
  const std::vector<Point> tps = Series(log.records, &TrainingRecord::tokens_per_s, true);
  h.tokens_per_s = Summarise(Values(tps));
  h.tflops = Summarise(Values(Series(log.records, &TrainingRecord::tflops, false)));
  h.mfu_pct = Summarise(Values(Series(log.records, &TrainingRecord::mfu_pct, false)));
  h.loss = Summarise(Values(Series(log.records, &TrainingRecord::loss, false)));
  h.grad_norm = Summarise(Values(Series(log.records, &TrainingRecord::grad_norm, false)));
  for (const TrainingRecord& r : log.records) {
    h.skipped_iterations += r.skipped_iterations.value_or(0);
    h.nan_iterations += r.nan_iterations.value_or(0);
  }

  FindNanInf(log, &h);
  FindLossSpikes(Series(log.records, &TrainingRecord::loss, true), log, t, &h);
  FindGradExplosion(Series(log.records, &TrainingRecord::grad_norm, true), log, t, &h);
  FindHang(log, t, &h);
  FindThroughputDrop(tps, step_ms, log, t, &h);
  FindErrorLines(log, &h);
  return h;
}

}  // namespace trainscope::analysis
