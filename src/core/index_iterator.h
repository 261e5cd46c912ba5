// An input iterator over a container read by index whose operator[] returns
// a value, not a reference: the column-stored training records decode a
// record on each access, the health analysis' points build one. One
// template, so range-for and <algorithm> work on both the same way.
#pragma once

#include <cstddef>
#include <iterator>

namespace trainscope {

template <typename Container, typename Value>
class IndexIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Value;
  IndexIterator() = default;
  IndexIterator(const Container* container, size_t i) : container_(container), i_(i) {}
  Value operator*() const { return (*container_)[i_]; }
  IndexIterator& operator++() {
    ++i_;
    return *this;
  }
  IndexIterator operator++(int) {
    IndexIterator before = *this;
    ++i_;
    return before;
  }
  bool operator==(const IndexIterator& o) const { return i_ == o.i_; }

 private:
  const Container* container_ = nullptr;
  size_t i_ = 0;
};

}  // namespace trainscope
