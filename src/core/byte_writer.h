// Appends values to a byte string in a small, fixed, portable encoding: the
// writing half of ByteReader (byte_reader.h), which documents the encoding.
// Used for data that crosses a process boundary (a RankResult gathered from
// another process), never for user-facing files.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace trainscope {

class ByteWriter {
 public:
  void Byte(uint8_t value) { out_.push_back(static_cast<char>(value)); }

  // LEB128: 7 bits per byte, low bits first, the high bit set on every byte
  // but the last; the shortest form (ByteReader refuses longer ones).
  void Varint(uint64_t value) {
    while (value >= 0x80) {
      Byte(static_cast<uint8_t>(value | 0x80));
      value >>= 7;
    }
    Byte(static_cast<uint8_t>(value));
  }

  // Zigzag (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...) so small negatives stay short.
  void SignedVarint(int64_t value) {
    Varint((static_cast<uint64_t>(value) << 1) ^ (value < 0 ? ~uint64_t{0} : uint64_t{0}));
  }

  // The IEEE-754 bit pattern, 8 bytes little-endian: NaN payloads, -0.0 and
  // infinities come back bit for bit.
  void Double(double value) {
    uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(bits >> (8 * i)));
  }

  void Raw(std::string_view bytes) { out_.append(bytes); }

  // Length (varint), then the bytes.
  void String(std::string_view text) {
    Varint(text.size());
    Raw(text);
  }

  size_t size() const { return out_.size(); }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace trainscope
