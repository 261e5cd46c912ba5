#include "model/device_events.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace trainscope::model {

DeviceEvents::DeviceEvents(DeviceEventColumns columns) : DeviceEventColumns(std::move(columns)) {
  all_rows_.resize(size());
  std::iota(all_rows_.begin(), all_rows_.end(), 0u);
  IndexSteps();
}

void DeviceEvents::Reserve(size_t rows) {
  DeviceEventColumns::Reserve(rows);
  all_rows_.reserve(rows);
}

void DeviceEvents::AppendEvent(const DeviceEvent& row) {
  const auto index = static_cast<uint32_t>(size());
  all_rows_.push_back(index);
  rows_by_step_[row.step].push_back(index);
  Extend(row.step, row.start_ns, row.start_ns + row.duration_ns);
  DeviceEventColumns::Append(row);
}

void DeviceEvents::Extend(int32_t step_number, int64_t start, int64_t end) {
  auto grow = [start, end](StepExtent* extent) {
    if (extent->events == 0) {
      *extent = StepExtent{start, end, 0};
    } else {
      extent->first_start_ns = std::min(extent->first_start_ns, start);
      extent->last_end_ns = std::max(extent->last_end_ns, end);
    }
    ++extent->events;
  };
  grow(&extent_by_step_[step_number]);
  if (!extent_of_all_) extent_of_all_ = StepExtent{};
  grow(&*extent_of_all_);
}

void DeviceEvents::Append(const DeviceEvent& row) {
  AppendEvent(row);
  if (has_pmu()) pmu_.Append(PmuMetrics{});
}

void DeviceEvents::Append(const DeviceEvent& row, const PmuMetrics& metrics) {
  while (pmu_.size() < size()) pmu_.Append(PmuMetrics{});
  AppendEvent(row);
  pmu_.Append(metrics);
}

void DeviceEvents::SortByStart() {
  if (std::is_sorted(start_ns.begin(), start_ns.end())) return;
  std::vector<uint32_t> order(size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return start_ns[a] < start_ns[b]; });
  DeviceEventColumns::Permute(order);
  if (has_pmu()) pmu_.Permute(order);
  IndexSteps();
}

void DeviceEvents::AssignSteps(std::vector<int32_t> steps) {
  steps.resize(size(), kNoStep);
  step = std::move(steps);
  IndexSteps();
}

void DeviceEvents::IndexSteps() {
  rows_by_step_.clear();
  extent_by_step_.clear();
  extent_of_all_.reset();
  for (size_t i = 0; i < step.size(); ++i) {
    rows_by_step_[step[i]].push_back(static_cast<uint32_t>(i));
    Extend(step[i], start_ns[i], end_ns(i));
  }
}

std::span<const uint32_t> DeviceEvents::RowsOf(int32_t step_number) const {
  if (step_number == kNoStep) return all_rows_;
  auto it = rows_by_step_.find(step_number);
  if (it == rows_by_step_.end()) return {};
  return it->second;
}

std::optional<StepExtent> DeviceEvents::ExtentOf(int32_t step_number) const {
  if (step_number == kNoStep) return extent_of_all_;
  auto it = extent_by_step_.find(step_number);
  if (it == extent_by_step_.end()) return std::nullopt;
  return it->second;
}

std::vector<int32_t> DeviceEvents::Steps() const {
  std::vector<int32_t> out;
  for (const auto& [number, rows] : rows_by_step_) {
    if (number != kNoStep && !rows.empty()) out.push_back(number);
  }
  return out;
}

}  // namespace trainscope::model
