// GrowableBytes: an array of bytes that grows without holding two copies.
//
// std::vector grows by allocating a new block, copying, then freeing the
// old one: at each doubling the old block and the copy are both resident,
// twice the list's bytes. A block past malloc's mmap threshold (4 MiB here,
// cli/malloc_tuning.cc) grows in place through realloc, which on Linux moves
// its pages (mremap) instead of copying them, so the list holds its own size
// and no more. The mining's candidate list is ~30 MB a step of a million
// kernels on a stream whose repeats keep splitting, two steps mined at once
// (docs/benchmarks.md, "The mining's candidates grown in place").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

namespace trainscope {

class GrowableBytes {
 public:
  GrowableBytes() = default;
  ~GrowableBytes() { std::free(data_); }
  GrowableBytes(GrowableBytes&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  GrowableBytes& operator=(GrowableBytes&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  GrowableBytes(const GrowableBytes&) = delete;
  GrowableBytes& operator=(const GrowableBytes&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // |size| bytes; bytes added are left unwritten (the caller writes them).
  // Throws std::bad_alloc like a vector when memory runs out.
  void resize(size_t size) {
    if (size > capacity_) Grow(size);
    size_ = size;
  }

 private:
  void Grow(size_t size) {
    size_t capacity = capacity_ < 4096 ? 4096 : capacity_;
    while (capacity < size) capacity *= 2;
    void* grown = std::realloc(data_, capacity);
    if (grown == nullptr) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(grown);
    capacity_ = capacity;
  }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace trainscope
