#include "core/byte_reader.h"

#include <cstring>
#include <string>

namespace trainscope {

void ByteReader::FailAt(size_t offset, std::string_view what) {
  if (!error_.empty()) return;
  error_ = "byte " + std::to_string(offset) + " of " + std::to_string(bytes_.size()) + ": ";
  error_.append(what);
  pos_ = bytes_.size();  // nothing more is read
}

uint8_t ByteReader::Byte() {
  if (left() < 1) {
    Fail("truncated: expected 1 more byte");
    return 0;
  }
  return static_cast<uint8_t>(bytes_[pos_++]);
}

uint64_t ByteReader::Varint() {
  const size_t start = pos_;
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (left() < 1) {
      Fail("truncated inside a varint");
      return 0;
    }
    const uint8_t byte = static_cast<uint8_t>(bytes_[pos_++]);
    const uint64_t bits = byte & 0x7f;
    if (shift == 63 && bits > 1) {
      FailAt(start, "varint exceeds 64 bits");
      return 0;
    }
    value |= bits << shift;
    if ((byte & 0x80) == 0) {
      // The shortest form only, so that every value has one encoding and a
      // buffer re-serialises to itself.
      if (byte == 0 && shift > 0) {
        FailAt(start, "overlong varint (not in its shortest form)");
        return 0;
      }
      return value;
    }
  }
  FailAt(start, "varint longer than 10 bytes");
  return 0;
}

int64_t ByteReader::SignedVarint() {
  const uint64_t zigzag = Varint();
  return static_cast<int64_t>((zigzag >> 1) ^ (~(zigzag & 1) + 1));
}

double ByteReader::Double() {
  if (left() < 8) {
    Fail("truncated: a double needs 8 bytes, " + std::to_string(left()) + " left");
    return 0;
  }
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) {
    bits |= uint64_t{static_cast<uint8_t>(bytes_[pos_ + i])} << (8 * i);
  }
  pos_ += 8;
  double value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::string_view ByteReader::Raw(size_t n, std::string_view what) {
  if (n > left()) {
    Fail(std::string(what) + " of " + std::to_string(n) + " bytes runs past the end (" +
         std::to_string(left()) + " left)");
    return {};
  }
  std::string_view out = bytes_.substr(pos_, n);
  pos_ += n;
  return out;
}

std::string_view ByteReader::String() {
  const size_t start = pos_;
  const uint64_t length = Varint();
  if (!ok()) return {};
  if (length > left()) {
    FailAt(start, "string length " + std::to_string(length) + " exceeds the " +
                      std::to_string(left()) + " bytes left");
    return {};
  }
  return Raw(static_cast<size_t>(length), "string");
}

uint64_t ByteReader::Count(size_t min_bytes_each, std::string_view what) {
  const size_t start = pos_;
  const uint64_t count = Varint();
  if (!ok()) return 0;
  if (min_bytes_each == 0) min_bytes_each = 1;
  if (count > left() / min_bytes_each) {
    FailAt(start, std::string(what) + " count " + std::to_string(count) + " cannot fit in the " +
                      std::to_string(left()) + " bytes left");
    return 0;
  }
  return count;
}

}  // namespace trainscope
