#include "model/kernel_table.h"

#include <algorithm>
#include <numeric>

namespace trainscope::model {

void KernelTable::Reserve(size_t rows) {
  KernelColumns::Reserve(rows);
  all_rows_.reserve(rows);
}

void KernelTable::Append(const KernelRow& row) {
  const auto index = static_cast<uint32_t>(size());
  all_rows_.push_back(index);
  rows_by_step_[row.step].push_back(index);
  KernelColumns::Append(row);
}

void KernelTable::SortByStart() {
  if (std::is_sorted(start_ns.begin(), start_ns.end())) return;
  std::vector<uint32_t> order(size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return start_ns[a] < start_ns[b]; });
  KernelColumns::Permute(order);
  IndexSteps();
}

void KernelTable::IndexSteps() {
  rows_by_step_.clear();
  for (size_t i = 0; i < step.size(); ++i)
    rows_by_step_[step[i]].push_back(static_cast<uint32_t>(i));
}

std::span<const uint32_t> KernelTable::RowsOf(int32_t step_number) const {
  if (step_number == kNoStep) return all_rows_;
  auto it = rows_by_step_.find(step_number);
  if (it == rows_by_step_.end()) return {};
  return it->second;
}

}  // namespace trainscope::model
