// A random-access iterator over a container read by index whose operator[]
// returns a value, not a reference: the column-stored training records
// decode a record on each access, the health analysis' points build one, a
// step's rows (model/row_set.h) are a range or a list. One template, so
// range-for and <algorithm> (binary searches included) work on all of them
// the same way.
#pragma once

#include <compare>
#include <cstddef>
#include <iterator>

namespace trainscope {

template <typename Container, typename Value>
class IndexIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Value;
  IndexIterator() = default;
  IndexIterator(const Container* container, size_t i) : container_(container), i_(i) {}
  Value operator*() const { return (*container_)[i_]; }
  Value operator[](difference_type k) const { return *(*this + k); }
  IndexIterator& operator++() {
    ++i_;
    return *this;
  }
  IndexIterator operator++(int) {
    IndexIterator before = *this;
    ++i_;
    return before;
  }
  IndexIterator& operator--() {
    --i_;
    return *this;
  }
  IndexIterator operator--(int) {
    IndexIterator before = *this;
    --i_;
    return before;
  }
  IndexIterator& operator+=(difference_type k) {
    i_ = static_cast<size_t>(static_cast<difference_type>(i_) + k);
    return *this;
  }
  IndexIterator& operator-=(difference_type k) { return *this += -k; }
  friend IndexIterator operator+(IndexIterator it, difference_type k) { return it += k; }
  friend IndexIterator operator+(difference_type k, IndexIterator it) { return it += k; }
  friend IndexIterator operator-(IndexIterator it, difference_type k) { return it -= k; }
  friend difference_type operator-(const IndexIterator& a, const IndexIterator& b) {
    return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
  }
  bool operator==(const IndexIterator& o) const { return i_ == o.i_; }
  auto operator<=>(const IndexIterator& o) const { return i_ <=> o.i_; }

 private:
  const Container* container_ = nullptr;
  size_t i_ = 0;
};

}  // namespace trainscope
