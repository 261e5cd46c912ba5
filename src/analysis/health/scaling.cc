#include "analysis/health/scaling.h"

#include <algorithm>
#include <functional>

namespace trainscope::analysis {
namespace {

std::optional<double> MedianOrNone(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

using Metric = std::function<std::optional<double>(const RunHealth&)>;

// The median over a run's logs of |metric|; nullopt when no log has it.
std::optional<double> RunMedian(const ScalingRunInput& run, const Metric& metric) {
  std::vector<double> values;
  for (const RunHealth* h : run.logs) {
    if (const std::optional<double> v = metric(*h)) values.push_back(*v);
  }
  return MedianOrNone(values);
}

}  // namespace

ScalingTable ComputeScaling(std::vector<ScalingRunInput> runs) {
  std::stable_sort(
      runs.begin(), runs.end(),
      [](const ScalingRunInput& a, const ScalingRunInput& b) { return a.devices < b.devices; });
  const std::pair<const char*, Metric> metrics[] = {
      {"tokens/s per device", [](const RunHealth& h) { return h.tokens_per_s.median; }},
      {"TFLOP/s per device", [](const RunHealth& h) { return h.tflops.median; }},
      {"TGS (tokens/s per device, --model)",
       [](const RunHealth& h) { return h.model ? h.model->tgs : std::nullopt; }},
  };
  ScalingTable t;
  const Metric* chosen = nullptr;
  for (const auto& candidate : metrics) {
    const Metric& metric = candidate.second;
    const bool all = !runs.empty() && std::all_of(runs.begin(), runs.end(), [&](const auto& r) {
      return RunMedian(r, metric).has_value();
    });
    if (all) {
      t.metric = candidate.first;
      chosen = &metric;
      break;
    }
  }
  const Metric step_ms = [](const RunHealth& h) { return h.step_ms.median; };
  for (const ScalingRunInput& r : runs) {
    ScalingRow row;
    row.name = r.name;
    row.devices = r.devices;
    row.logs = static_cast<int64_t>(r.logs.size());
    row.step_ms = RunMedian(r, step_ms);
    if (chosen != nullptr) row.per_device = RunMedian(r, *chosen);
    if (row.per_device && r.devices > 0)
      row.total = *row.per_device * static_cast<double>(r.devices);
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) return t;
  const ScalingRow& base = t.rows.front();
  t.baseline = base.name;
  for (ScalingRow& row : t.rows) {
    if (row.per_device && base.per_device && *base.per_device > 0) {
      row.efficiency_pct = *row.per_device / *base.per_device * 100;
    }
    if (row.total && base.total && *base.total > 0) row.speedup = *row.total / *base.total;
  }
  return t;
}

}  // namespace trainscope::analysis
