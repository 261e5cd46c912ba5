// Reads what ByteWriter wrote, from an untrusted buffer: every read is
// bounded by the bytes left, and the first problem (truncation, an overlong
// or too-large varint, a length beyond the end) stops the reader and is
// kept with its byte offset. Later reads then return zeros and empty
// strings, so a decoder can read a whole structure and check ok() once.
//
// Encoding (little-endian throughout): Byte = 1 byte; Varint = LEB128 in
// its shortest form, at most 10 bytes, value < 2^64; SignedVarint = zigzag
// Varint; Double = 8-byte IEEE-754 bit pattern; String = Varint length +
// bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trainscope {

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  // The reader views its bytes: a temporary string would dangle (ASan found
  // one in a test).
  explicit ByteReader(std::string&&) = delete;

  bool ok() const { return error_.empty(); }
  // "" while ok(); else "byte N of M: what went wrong".
  const std::string& error() const { return error_; }
  size_t offset() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }
  size_t size() const { return bytes_.size(); }

  uint8_t Byte();
  uint64_t Varint();
  int64_t SignedVarint();
  double Double();
  // |n| bytes; fails (and returns "") when fewer are left.
  std::string_view Raw(size_t n, std::string_view what);
  std::string_view String();
  // A count of items that take at least |min_bytes_each| bytes each: fails
  // when they cannot fit in the bytes left, so a corrupt count can never
  // make the caller allocate more than the buffer could hold.
  uint64_t Count(size_t min_bytes_each, std::string_view what);

  // Records |what| at |offset| (the first failure wins) and stops reading.
  void FailAt(size_t offset, std::string_view what);
  void Fail(std::string_view what) { FailAt(pos_, what); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace trainscope
