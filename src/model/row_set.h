// The rows of a device table that a step holds: a contiguous range of the
// table, or a list of row numbers.
//
// Why a range: the table is kept in start order and a step is a window of
// time, so nearly every step's rows are one run of the table. A list of
// them was 4 bytes a row held for the profile's life (12 MB of a 1 GB
// kernel_details.csv, at the analysis's peak memory), and the list of every
// row another 4. A step whose rows interleave with another's (kernels that
// overlap a step's boundary, rows outside every step) keeps a list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/index_iterator.h"

namespace trainscope::model {

class RowSet {
 public:
  // Row numbers in order; reading one gives the row (a value, not a
  // reference: a range holds no list to point into).
  using Iterator = IndexIterator<RowSet, uint32_t>;

  RowSet() = default;
  // The rows of |list| (which outlives the set).
  RowSet(std::span<const uint32_t> list)  // NOLINT(google-explicit-constructor): a list is a set
      : list_(list.data()), size_(list.size()) {}
  RowSet(const std::vector<uint32_t>& list)  // NOLINT(google-explicit-constructor)
      : RowSet(std::span<const uint32_t>(list)) {}
  RowSet(std::vector<uint32_t>&& list) = delete;  // would outlive its list
  // Rows [first, first + count).
  static RowSet Range(size_t first, size_t count) {
    RowSet rows;
    rows.first_ = first;
    rows.size_ = count;
    return rows;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint32_t operator[](size_t k) const {
    return list_ != nullptr ? list_[k] : static_cast<uint32_t>(first_ + k);
  }
  uint32_t front() const { return (*this)[0]; }
  uint32_t back() const { return (*this)[size_ - 1]; }
  // Iterators read the set they came from: it outlives them.
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size_); }
  // Whether the set is a range (no list behind it).
  bool is_range() const { return list_ == nullptr; }

 private:
  const uint32_t* list_ = nullptr;
  size_t first_ = 0;  // a range's first row
  size_t size_ = 0;
};

}  // namespace trainscope::model
