#include "model/kernel_table.h"

#include <algorithm>
#include <numeric>

namespace trainscope::model {

void KernelTable::Reserve(size_t rows) {
  step.reserve(rows);
  all_rows_.reserve(rows);
  name.reserve(rows);
  op_type.reserve(rows);
  accelerator.reserve(rows);
  stream.reserve(rows);
  start_ns.reserve(rows);
  duration_ns.reserve(rows);
  wait_ns.reserve(rows);
  block_dim.reserve(rows);
  kind.reserve(rows);
  op_type_derived.reserve(rows);
  aic_mac_ratio.reserve(rows);
  aic_mte2_ratio.reserve(rows);
  aiv_vec_ratio.reserve(rows);
}

void KernelTable::Append(const KernelRow& row) {
  const auto index = static_cast<uint32_t>(step.size());
  all_rows_.push_back(index);
  rows_by_step_[row.step].push_back(index);
  step.push_back(row.step);
  name.push_back(row.name);
  op_type.push_back(row.op_type);
  accelerator.push_back(row.accelerator);
  stream.push_back(row.stream);
  start_ns.push_back(row.start_ns);
  duration_ns.push_back(row.duration_ns);
  wait_ns.push_back(row.wait_ns);
  block_dim.push_back(row.block_dim);
  kind.push_back(row.kind);
  op_type_derived.push_back(row.op_type_derived ? 1 : 0);
  aic_mac_ratio.push_back(row.aic_mac_ratio);
  aic_mte2_ratio.push_back(row.aic_mte2_ratio);
  aiv_vec_ratio.push_back(row.aiv_vec_ratio);
}

KernelRow KernelTable::Row(size_t i) const {
  KernelRow row;
  row.step = step[i];
  row.name = name[i];
  row.op_type = op_type[i];
  row.accelerator = accelerator[i];
  row.stream = stream[i];
  row.start_ns = start_ns[i];
  row.duration_ns = duration_ns[i];
  row.wait_ns = wait_ns[i];
  row.block_dim = block_dim[i];
  row.kind = kind[i];
  row.op_type_derived = op_type_derived[i] != 0;
  row.aic_mac_ratio = aic_mac_ratio[i];
  row.aic_mte2_ratio = aic_mte2_ratio[i];
  row.aiv_vec_ratio = aiv_vec_ratio[i];
  return row;
}

namespace {
template <typename T>
void Permute(std::vector<T>& column, const std::vector<uint32_t>& order) {
  std::vector<T> sorted;
  sorted.reserve(column.size());
  for (uint32_t index : order) sorted.push_back(column[index]);
  column.swap(sorted);
}
}  // namespace

void KernelTable::SortByStart() {
  if (std::is_sorted(start_ns.begin(), start_ns.end())) return;
  std::vector<uint32_t> order(size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return start_ns[a] < start_ns[b]; });
  Permute(step, order);
  Permute(name, order);
  Permute(op_type, order);
  Permute(accelerator, order);
  Permute(stream, order);
  Permute(start_ns, order);
  Permute(duration_ns, order);
  Permute(wait_ns, order);
  Permute(block_dim, order);
  Permute(kind, order);
  Permute(op_type_derived, order);
  Permute(aic_mac_ratio, order);
  Permute(aic_mte2_ratio, order);
  Permute(aiv_vec_ratio, order);
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
