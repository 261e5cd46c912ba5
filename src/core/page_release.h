// Giving memory pages back to the system without freeing the block they are
// in: the pages of a file mapping a reader is done with, the spare capacity
// of a column sized for more rows than it got.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

namespace trainscope {

// Drops the pages wholly inside [data, data + bytes) from the process
// (madvise MADV_DONTNEED); the pages at either end that the range shares
// with its neighbours stay. A file mapping's dropped pages read back from
// the file, private anonymous memory's as zeros. No-op where the system
// has no madvise.
void DropPagesWithin(const void* data, size_t bytes);

// Gives the pages past |column|'s last element back (its capacity beyond its
// size), keeping the block: a column sized for an estimate of its rows and
// cut down to the rows it got holds the difference resident otherwise, and
// shrink_to_fit would copy the whole column to free it. The bytes past the
// end are no objects for trivially copyable elements, so the vector neither
// reads them nor notices.
template <typename T>
void DropSpareCapacity(std::vector<T>* column) {
  static_assert(std::is_trivially_copyable_v<T>);
  DropPagesWithin(column->data() + column->size(),
                  (column->capacity() - column->size()) * sizeof(T));
}

}  // namespace trainscope
