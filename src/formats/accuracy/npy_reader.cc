#include "formats/accuracy/npy_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace trainscope::formats {
namespace {

using model::ElementType;

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kPrefixV1 = 10;  // magic, 2 version bytes, uint16 length
constexpr size_t kPrefixV2 = 12;  // ... uint32 length

uint32_t ReadLe(std::string_view bytes, size_t at, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

uint64_t ReadLe64(std::string_view bytes, size_t at) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

Status HeaderError(const std::string& name, size_t offset, std::string_view what) {
  return InvalidInput(
      fmt::format("{}: byte {}: {}\nhint: not a NumPy .npy file (np.save writes "
                  "one); docs/accuracy.md lists what is read",
                  name, offset, what));
}

// A tiny reader of the header's Python dict literal:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class DictScanner {
 public:
  explicit DictScanner(std::string_view text) : text_(text) {}
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Quoted(std::string* out) {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return false;
    *out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  bool Word(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool Shape(std::vector<int64_t>* shape) {
    if (!Eat('(')) return false;
    while (true) {
      if (Eat(')')) return true;
      SkipSpace();
      int64_t value = 0;
      size_t digits = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) return false;
        value = value * 10 + (text_[pos_++] - '0');
        ++digits;
      }
      (void)Word("L");  // Python 2 longs
      if (digits == 0) return false;
      shape->push_back(value);
      if (!Eat(',') && !Eat(')')) return false;
      if (pos_ > 0 && text_[pos_ - 1] == ')') return true;
    }
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

ElementType TypeOfDescr(std::string_view descr, bool uint16_as_bf16, bool* big_endian) {
  *big_endian = false;
  if (descr == "bfloat16") return ElementType::kBf16;
  if (descr.size() < 2) return ElementType::kUnknown;
  const char order = descr[0];
  if (order == '>') *big_endian = true;
  if (order != '<' && order != '>' && order != '|' && order != '=') return ElementType::kUnknown;
  const std::string_view code = descr.substr(1);
  if (code == "f4") return ElementType::kF32;
  if (code == "f8") return ElementType::kF64;
  if (code == "f2") return ElementType::kF16;
  if (code == "V2") return ElementType::kBf16;  // ml_dtypes' bfloat16 saved by np.save
  if (code == "u2") return uint16_as_bf16 ? ElementType::kBf16 : ElementType::kU16;
  if (code == "i1") return ElementType::kI8;
  if (code == "u1") return ElementType::kU8;
  if (code == "i2") return ElementType::kI16;
  if (code == "i4") return ElementType::kI32;
  if (code == "u4") return ElementType::kU32;
  if (code == "i8") return ElementType::kI64;
  if (code == "u8") return ElementType::kU64;
  if (code == "b1") return ElementType::kBool;
  return ElementType::kUnknown;
}

}  // namespace

Result<NpyHeader> ParseNpyHeaderOnly(std::string_view bytes, const std::string& name,
                                     bool uint16_as_bf16) {
  if (bytes.size() < kPrefixV1 || bytes.substr(0, kMagic.size()) != kMagic) {
    return HeaderError(name, 0, "no \\x93NUMPY magic");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) {
    return HeaderError(name, 6, fmt::format("format version {} (1, 2 and 3 are read)", major));
  }
  const size_t prefix = major == 1 ? kPrefixV1 : kPrefixV2;
  if (bytes.size() < prefix) return HeaderError(name, 8, "truncated: the header length is cut off");
  const uint64_t header_len = ReadLe(bytes, 8, major == 1 ? 2 : 4);
  if (prefix + header_len > bytes.size()) {
    return HeaderError(name, 8,
                       fmt::format("truncated: header length {} runs past the end ({} bytes)",
                                   header_len, bytes.size()));
  }
  NpyHeader header;
  header.data_offset = prefix + header_len;
  DictScanner dict(bytes.substr(prefix, header_len));
  if (!dict.Eat('{')) return HeaderError(name, prefix, "header is not a dict");
  bool have_descr = false, have_shape = false;
  while (!dict.Eat('}')) {
    std::string key;
    if (!dict.Quoted(&key) || !dict.Eat(':')) {
      return HeaderError(name, prefix + dict.pos(), "expected 'key': in the header dict");
    }
    if (key == "descr") {
      if (!dict.Quoted(&header.descr)) {
        return HeaderError(name, prefix + dict.pos(),
                           "descr is not a string (structured arrays are not read)");
      }
      have_descr = true;
    } else if (key == "fortran_order") {
      if (dict.Word("True")) {
        header.fortran_order = true;
      } else if (!dict.Word("False")) {
        return HeaderError(name, prefix + dict.pos(), "fortran_order is not True/False");
      }
    } else if (key == "shape") {
      if (!dict.Shape(&header.shape)) {
        return HeaderError(name, prefix + dict.pos(), "shape is not a tuple of integers");
      }
      have_shape = true;
    } else {
      return HeaderError(name, prefix + dict.pos(), fmt::format("unknown header key '{}'", key));
    }
    dict.Eat(',');
  }
  if (!have_descr || !have_shape) return HeaderError(name, prefix, "descr or shape missing");
  header.type = TypeOfDescr(header.descr, uint16_as_bf16, &header.big_endian);
  if (header.type == model::ElementType::kUnknown) {
    return InvalidInput(fmt::format("{}: unsupported dtype '{}' (floats, ints and bool are read)",
                                    name, header.descr));
  }
  uint64_t count = 1;
  for (const int64_t dim : header.shape) {
    if (dim != 0 &&
        count > std::numeric_limits<uint64_t>::max() / 16 / static_cast<uint64_t>(dim)) {
      return HeaderError(name, prefix, "shape overflows 64 bits");
    }
    count *= static_cast<uint64_t>(dim);
  }
  header.data_bytes = count * model::ElementBytes(header.type);
  return header;
}

Result<NpyHeader> ParseNpyHeader(std::string_view bytes, const std::string& name,
                                 bool uint16_as_bf16) {
  Result<NpyHeader> parsed = ParseNpyHeaderOnly(bytes, name, uint16_as_bf16);
  if (!parsed.ok()) return parsed;
  const NpyHeader& header = *parsed;
  if (header.data_offset + header.data_bytes > bytes.size()) {
    return InvalidInput(fmt::format(
        "{}: byte {}: truncated: shape ({}) of {} needs {} data bytes, the file has {}\nhint: "
        "the file was cut off while being written; dump it again",
        name, header.data_offset, fmt::join(header.shape, ", "), header.descr, header.data_bytes,
        bytes.size() - header.data_offset));
  }
  return header;
}

namespace {

constexpr uint32_t kEocdSignature = 0x06054b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint32_t kZip64EocdSignature = 0x06064b50;
constexpr uint32_t kCentralSignature = 0x02014b50;
constexpr uint32_t kLocalSignature = 0x04034b50;
constexpr uint64_t kMaxMembers = 1 << 20;

Status ZipError(const std::string& name, uint64_t offset, std::string_view what) {
  return InvalidInput(
      fmt::format("{}: byte {}: {}\nhint: not a zip archive as np.savez writes "
                  "one, or it was cut off",
                  name, offset, what));
}

struct Zip64Sizes {
  uint64_t uncompressed, compressed, local_offset;
};

// Applies the zip64 extra field (id 1) to the sizes that were 0xFFFFFFFF.
void ApplyZip64(std::string_view extra, Zip64Sizes* sizes) {
  size_t at = 0;
  while (at + 4 <= extra.size()) {
    const uint32_t id = ReadLe(extra, at, 2);
    const uint32_t len = ReadLe(extra, at + 2, 2);
    if (at + 4 + len > extra.size()) return;
    if (id == 1) {
      size_t field = at + 4;
      for (uint64_t* value : {&sizes->uncompressed, &sizes->compressed, &sizes->local_offset}) {
        if (*value != 0xFFFFFFFFu) continue;
        if (field + 8 > at + 4 + len) return;
        *value = ReadLe64(extra, field);
        field += 8;
      }
      return;
    }
    at += 4 + len;
  }
}

// Inflates |expected| bytes of the raw deflate stream |in|. With |prefix_only|
// the stream may go on past them (the first bytes of a member, to read its
// header before trusting its declared size).
std::string Inflate(std::string_view in, uint64_t expected, uint64_t max_bytes, std::string* error,
                    bool prefix_only = false) {
  if (expected > max_bytes) {
    *error = fmt::format("inflated size {} over the limit {}", expected, max_bytes);
    return {};
  }
  std::string out(expected, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) {
    *error = "zlib init failed";
    return {};
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  uint64_t in_left = in.size(), out_left = expected;
  int rc = Z_OK;
  while (rc == Z_OK) {
    const uInt in_chunk = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
    const uInt out_chunk = static_cast<uInt>(std::min<uint64_t>(out_left, 1u << 30));
    zs.avail_in = in_chunk;
    zs.avail_out = out_chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    in_left -= in_chunk - zs.avail_in;
    out_left -= out_chunk - zs.avail_out;
    if (rc == Z_OK && in_chunk == zs.avail_in && out_chunk == zs.avail_out) break;  // no progress
  }
  inflateEnd(&zs);
  if (prefix_only && out_left == 0 && (rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR)) {
    return out;
  }
  if (rc != Z_STREAM_END || out_left != 0) {
    *error = fmt::format("deflate stream damaged or short ({} of {} bytes inflated)",
                         expected - out_left, expected);
    return {};
  }
  return out;
}

// Two central-directory entries whose data ranges overlap (a zip made to
// repeat one member many times): the later ones are refused, so each byte
// of the archive is read as one member at most.
void RefuseSharedMembers(std::vector<NpzMember>* members) {
  std::vector<size_t> order;
  for (size_t i = 0; i < members->size(); ++i) {
    if ((*members)[i].error.empty()) order.push_back(i);
  }
  auto span = [&](size_t i) {
    const NpzMember& m = (*members)[i];
    return std::pair<uint64_t, uint64_t>{m.offset,
                                         m.offset + (m.deflated ? m.deflated_size : m.size)};
  };
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return span(a) != span(b) ? span(a) < span(b) : a < b; });
  std::optional<size_t> reach_owner;
  uint64_t reach = 0;
  for (const size_t i : order) {
    const auto [start, end] = span(i);
    if (reach_owner && start < reach) {
      (*members)[i].error = fmt::format("byte {}: shares its bytes with member '{}'", start,
                                        (*members)[*reach_owner].name.substr(0, 80));
      continue;
    }
    if (end > reach || !reach_owner) {
      reach = std::max(reach, end);
      reach_owner = i;
    }
  }
}

// A deflated member: its .npy header first (the first bytes only), then the
// whole member, which must be exactly the size the header describes: a
// member declaring 1 GB behind a header of 8 elements is refused before
// anything is inflated, and no member inflates past its declared size.
void InflateMember(std::string_view bytes, uint64_t max_inflated, NpzMember* member) {
  const std::string_view in = bytes.substr(member->offset, member->deflated_size);
  constexpr uint64_t kHeadBytes = uint64_t{1} << 16;
  std::string error;
  const bool small = member->size <= kHeadBytes;
  std::string head = Inflate(in, small ? member->size : kHeadBytes, max_inflated, &error,
                             /*prefix_only=*/!small);
  if (!error.empty()) {
    member->error = fmt::format("byte {}: {}", member->offset, error);
    return;
  }
  Result<NpyHeader> header = ParseNpyHeaderOnly(head, member->name, false);
  if (!header.ok() || small) {
    // A bad header is reported by the caller from these bytes; a small member is whole.
    if (header.ok() && header->data_offset + header->data_bytes != member->size) {
      member->error =
          fmt::format("byte {}: the member declares {} bytes, its .npy header describes {}",
                      member->offset, member->size, header->data_offset + header->data_bytes);
      return;
    }
    member->inflated = std::make_shared<const std::string>(std::move(head));
    return;
  }
  const uint64_t described = header->data_offset + header->data_bytes;
  if (described != member->size) {
    member->error =
        fmt::format("byte {}: the member declares {} bytes, its .npy header describes {}",
                    member->offset, member->size, described);
    return;
  }
  std::string out = Inflate(in, member->size, max_inflated, &error);
  if (!error.empty()) {
    member->error = fmt::format("byte {}: {}", member->offset, error);
    return;
  }
  member->inflated = std::make_shared<const std::string>(std::move(out));
}

}  // namespace

Result<std::vector<NpzMember>> ReadNpzMembers(std::string_view bytes, const std::string& name,
                                              uint64_t max_inflated) {
  constexpr size_t kEocdSize = 22;
  if (bytes.size() < kEocdSize) return ZipError(name, 0, "too short for a zip archive");
  size_t eocd = std::string_view::npos;
  const size_t lowest = bytes.size() > kEocdSize + 65535 ? bytes.size() - kEocdSize - 65535 : 0;
  for (size_t at = bytes.size() - kEocdSize + 1; at-- > lowest;) {
    if (ReadLe(bytes, at, 4) == kEocdSignature) {
      eocd = at;
      break;
    }
  }
  if (eocd == std::string_view::npos) {
    return ZipError(name, bytes.size(), "no end-of-central-directory record");
  }
  uint64_t entries = ReadLe(bytes, eocd + 10, 2);
  uint64_t dir_offset = ReadLe(bytes, eocd + 16, 4);
  if ((entries == 0xFFFF || dir_offset == 0xFFFFFFFFu) && eocd >= 20 &&
      ReadLe(bytes, eocd - 20, 4) == kZip64LocatorSignature) {
    const uint64_t z64 = ReadLe64(bytes, eocd - 20 + 8);
    if (z64 + 56 > bytes.size() || ReadLe(bytes, z64, 4) != kZip64EocdSignature) {
      return ZipError(name, eocd - 20, "zip64 locator points outside the file");
    }
    entries = ReadLe64(bytes, z64 + 32);
    dir_offset = ReadLe64(bytes, z64 + 48);
  }
  if (entries > kMaxMembers) return ZipError(name, eocd, "implausible member count");
  std::vector<NpzMember> members;
  uint64_t at = dir_offset;
  for (uint64_t i = 0; i < entries; ++i) {
    if (at + 46 > bytes.size() || ReadLe(bytes, at, 4) != kCentralSignature) {
      return ZipError(name, at, fmt::format("central directory entry {} is damaged", i));
    }
    const uint32_t method = ReadLe(bytes, at + 10, 2);
    Zip64Sizes sizes{ReadLe(bytes, at + 24, 4), ReadLe(bytes, at + 20, 4),
                     ReadLe(bytes, at + 42, 4)};
    const uint64_t name_len = ReadLe(bytes, at + 28, 2);
    const uint64_t extra_len = ReadLe(bytes, at + 30, 2);
    const uint64_t comment_len = ReadLe(bytes, at + 32, 2);
    if (at + 46 + name_len + extra_len + comment_len > bytes.size()) {
      return ZipError(name, at, fmt::format("central directory entry {} runs past the end", i));
    }
    NpzMember member;
    member.name = std::string(bytes.substr(at + 46, name_len));
    ApplyZip64(bytes.substr(at + 46 + name_len, extra_len), &sizes);
    at += 46 + name_len + extra_len + comment_len;
    member.size = sizes.uncompressed;
    const uint64_t local = sizes.local_offset;
    if (local + 30 > bytes.size() || ReadLe(bytes, local, 4) != kLocalSignature) {
      member.error = fmt::format("byte {}: local header damaged", local);
      members.push_back(std::move(member));
      continue;
    }
    const uint64_t data = local + 30 + ReadLe(bytes, local + 26, 2) + ReadLe(bytes, local + 28, 2);
    const uint32_t local_method = ReadLe(bytes, local + 8, 2);
    if (local_method != method) {
      member.error = fmt::format(
          "byte {}: compression method {} in the local header, {} in the central directory", local,
          local_method, method);
    } else if (data > bytes.size() || sizes.compressed > bytes.size() - data) {
      member.error = fmt::format("byte {}: member data runs past the end of the archive", local);
    } else if (method == 0) {
      if (sizes.compressed != sizes.uncompressed) {
        member.error = fmt::format("byte {}: stored member with two sizes", local);
      }
      member.offset = data;
    } else if (method == 8) {
      member.offset = data;
      member.deflated_size = sizes.compressed;
      member.deflated = true;
    } else {
      member.error = fmt::format("byte {}: compression method {} (stored and deflate are read)",
                                 local, method);
    }
    members.push_back(std::move(member));
  }
  RefuseSharedMembers(&members);
  for (NpzMember& member : members) {
    if (member.deflated && member.error.empty()) InflateMember(bytes, max_inflated, &member);
    member.deflated = false;
  }
  return members;
}

}  // namespace trainscope::formats
