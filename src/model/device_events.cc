#include "model/device_events.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace trainscope::model {

DeviceEvents::DeviceEvents(DeviceEventColumns columns) : DeviceEventColumns(std::move(columns)) {
  IndexSteps();
}

DeviceEvents::DeviceEvents(DeviceEventColumns columns, PmuColumns pmu,
                           TensorDescriptions descriptions)
    : DeviceEvents(std::move(columns)) {
  tensor_descriptions_ = std::move(descriptions);
  if (pmu.size() > 0) {
    pmu_ = std::move(pmu);
    while (pmu_.size() < size()) pmu_.Append(PmuMetrics{});
  }
}

void DeviceEvents::AppendEvent(const DeviceEvent& row) {
  const auto index = static_cast<uint32_t>(size());
  rows_by_step_[row.step].AddRun(index, index + 1);
  Extend(row.step, row.start_ns, row.start_ns + row.duration_ns);
  DeviceEventColumns::Append(row);
}

void DeviceEvents::Extend(int32_t step_number, int64_t start, int64_t end) {
  ExtendBy(step_number, StepExtent{start, end, 1});
}

void DeviceEvents::ExtendBy(int32_t step_number, const StepExtent& more) {
  auto grow = [&more](StepExtent* extent) {
    if (extent->events == 0) {
      *extent = more;
      return;
    }
    extent->first_start_ns = std::min(extent->first_start_ns, more.first_start_ns);
    extent->last_end_ns = std::max(extent->last_end_ns, more.last_end_ns);
    extent->events += more.events;
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

void DeviceEvents::AppendColumns(const DeviceEventColumns& rows, const PmuColumns* pmu) {
  const size_t first = size();
  const size_t count = rows.size();
  if (pmu != nullptr) {
    while (pmu_.size() < first) pmu_.Append(PmuMetrics{});
  }
// Column names are declarators: they cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TS_DEVICE_EVENTS_APPEND_RANGE_(type, name, init) columnar::Extend(&name, rows.name);
  TS_DEVICE_EVENT_COLUMNS(TS_DEVICE_EVENTS_APPEND_RANGE_)
#undef TS_DEVICE_EVENTS_APPEND_RANGE_
  if (pmu != nullptr) {
#define TS_PMU_APPEND_RANGE_(type, name, init) \
  pmu_.name.insert(pmu_.name.end(), pmu->name.begin(), pmu->name.end());
    TS_PMU_COLUMNS(TS_PMU_APPEND_RANGE_)
#undef TS_PMU_APPEND_RANGE_
    // NOLINTEND(bugprone-macro-parentheses)
  } else if (has_pmu()) {
    for (size_t i = 0; i < count; ++i) pmu_.Append(PmuMetrics{});
  }
  IndexRows(first, first + count);
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

void DeviceEvents::Truncate(size_t rows) {
  if (rows >= size()) return;
  ForEachColumn([rows](auto& column) { column.resize(rows); });
  if (pmu_.size() > rows) pmu_.ForEachColumn([rows](auto& column) { column.resize(rows); });
  IndexSteps();
}

void DeviceEvents::StepRows::AddRun(size_t begin, size_t end) {
  if (list.empty() && (count == 0 || begin == first + count)) {
    if (count == 0) first = begin;
    count += end - begin;
    return;
  }
  // At least doubling when it grows: appends of a few rows at a time stay
  // linear (a big step's list is megabytes).
  if (list.capacity() < count + (end - begin)) {
    list.reserve(std::max(count + (end - begin), 2 * list.capacity()));
  }
  if (list.empty()) {
    for (size_t r = first; r < first + count; ++r) list.push_back(static_cast<uint32_t>(r));
  }
  for (size_t r = begin; r < end; ++r) list.push_back(static_cast<uint32_t>(r));
  count += end - begin;
}

void DeviceEvents::IndexSteps() {
  rows_by_step_.clear();
  extent_by_step_.clear();
  extent_of_all_.reset();
  IndexRows(0, size());
}

void DeviceEvents::IndexRows(size_t first, size_t end) {
  // Rows come in runs of one step: each run looks its step up once.
  for (size_t i = first; i < end;) {
    size_t stop = i + 1;
    while (stop < end && step[stop] == step[i]) ++stop;
    StepExtent run{start_ns[i], end_ns(i), 0};
    for (size_t r = i; r < stop; ++r) {
      run.first_start_ns = std::min(run.first_start_ns, start_ns[r]);
      run.last_end_ns = std::max(run.last_end_ns, end_ns(r));
      ++run.events;
    }
    rows_by_step_[step[i]].AddRun(i, stop);
    ExtendBy(step[i], run);
    i = stop;
  }
}

RowSet DeviceEvents::RowsOf(int32_t step_number) const {
  if (step_number == kNoStep) return RowSet::Range(0, size());
  auto it = rows_by_step_.find(step_number);
  if (it == rows_by_step_.end()) return {};
  return it->second.View();
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
    if (number != kNoStep && rows.count > 0) out.push_back(number);
  }
  return out;
}

}  // namespace trainscope::model
