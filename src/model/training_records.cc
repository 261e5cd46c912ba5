#include "model/training_records.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

namespace trainscope::model {
namespace {

enum Presence : uint8_t { kAll, kNone, kSome };
constexpr size_t kWords = TrainingRecords::kBlock / 64;
constexpr size_t kSlack = 8;  // a residual is read as 8 bytes

__extension__ using Int128 = __int128;  // GCC and Clang

// How a column's values (present records only) are packed.
struct PackedInts {
  uint64_t base = 0;
  uint64_t slope = 0;
  uint8_t width = 0;
};

// A straight line through the first and last value, the residuals from it
// in the fewest bytes that hold their range; all arithmetic mod 2^64, so
// the decoded value is exact whatever the values are. A range over 7 bytes
// stores the values themselves.
// The distinct values of |values|, ascending, into |distinct| when there
// are at most |most| of them; false (and no dictionary) past that, found at
// the first value over instead of after sorting the whole block (a float
// column of a training log is mostly all distinct).
bool FewDistinct(const std::vector<uint64_t>& values, size_t most,
                 std::vector<uint64_t>* distinct) {
  distinct->clear();
  for (const uint64_t v : values) {
    const auto it = std::lower_bound(distinct->begin(), distinct->end(), v);
    if (it != distinct->end() && *it == v) continue;
    if (distinct->size() == most) return false;
    distinct->insert(it, v);
  }
  return true;
}

PackedInts PackInts(const std::vector<uint64_t>& v, std::vector<uint8_t>* bytes) {
  PackedInts p;
  const size_t n = v.size();
  if (n == 0) return p;
  const Int128 first = static_cast<int64_t>(v.front());
  Int128 slope = 0;
  if (n > 1) {
    slope =
        (static_cast<Int128>(static_cast<int64_t>(v.back())) - first) / static_cast<Int128>(n - 1);
    if (slope > INT64_MAX || slope < INT64_MIN) slope = 0;
  }
  Int128 lo = 0;
  Int128 hi = 0;
  for (size_t k = 0; k < n; ++k) {
    const Int128 r = static_cast<int64_t>(v[k]) - first - slope * static_cast<Int128>(k);
    lo = k == 0 ? r : std::min(lo, r);
    hi = k == 0 ? r : std::max(hi, r);
  }
  const Int128 range = hi - lo;
  if (range >= (Int128{1} << 56)) {
    p.width = 8;
  } else {
    p.base = static_cast<uint64_t>(first + lo);
    p.slope = static_cast<uint64_t>(static_cast<int64_t>(slope));
    while (p.width < 8 && (range >> (8 * p.width)) != 0) ++p.width;
  }
  if (p.width == 0) return p;
  // Each residual written as 8 little-endian bytes at its place, the next
  // one overwriting the bytes past its width (a push_back per byte
  // rechecked the capacity each time).
  const size_t at = bytes->size();
  bytes->resize(at + n * p.width + sizeof(uint64_t));
  uint8_t* out = bytes->data() + at;
  for (size_t k = 0; k < n; ++k, out += p.width) {
    const uint64_t u = v[k] - p.base - p.slope * k;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(out, &u, sizeof(u));
    } else {
      for (uint8_t byte = 0; byte < p.width; ++byte)
        out[byte] = static_cast<uint8_t>(u >> (8 * byte));
    }
  }
  bytes->resize(at + n * p.width);
  return p;
}

uint64_t ReadResidual(const uint8_t* at, uint8_t width) {
  if (width == 0) return 0;
  uint64_t u = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&u, at, sizeof(u));
  } else {
    for (size_t byte = 0; byte < sizeof(u); ++byte)
      u |= static_cast<uint64_t>(at[byte]) << (8 * byte);
  }
  return width == 8 ? u : u & ((uint64_t{1} << (8 * width)) - 1);
}

constexpr MaybeDouble TrainingRecord::*kDoubleFields[] = {
    &TrainingRecord::loss,         &TrainingRecord::grad_norm, &TrainingRecord::step_time_ms,
    &TrainingRecord::tokens_per_s, &TrainingRecord::tflops,    &TrainingRecord::mfu_pct,
    &TrainingRecord::learning_rate};
constexpr MaybeInt TrainingRecord::*kIntFields[] = {
    &TrainingRecord::skipped_iterations, &TrainingRecord::nan_iterations, &TrainingRecord::wall_ns};
constexpr auto kFirstDouble = TrainingRecords::kLoss;
constexpr auto kFirstInt = TrainingRecords::kSkipped;

}  // namespace

TrainingRecords::Column TrainingRecords::ColumnOf(MaybeDouble TrainingRecord::*field) {
  for (size_t i = 0; i < std::size(kDoubleFields); ++i) {
    if (kDoubleFields[i] == field) return static_cast<TrainingRecords::Column>(kFirstDouble + i);
  }
  return TrainingRecords::kLoss;
}

TrainingRecords::Column TrainingRecords::WholeColumnOf(int64_t TrainingRecord::*field) {
  if (field == &TrainingRecord::step) return kStep;
  return field == &TrainingRecord::offset ? kOffset : kLine;
}

TrainingRecords::Column TrainingRecords::ColumnOf(MaybeInt TrainingRecord::*field) {
  for (size_t i = 0; i < std::size(kIntFields); ++i) {
    if (kIntFields[i] == field) return static_cast<TrainingRecords::Column>(kFirstInt + i);
  }
  return TrainingRecords::kSkipped;
}

size_t TrainingRecords::DecodeColumn(size_t b, Column c, uint32_t* at, uint64_t* bits) const {
  const Block& block = blocks_[b];
  const Packed& p = block.columns[c];
  if (p.presence == kNone) return 0;
  size_t n = 0;
  if (p.presence == kAll) {
    for (size_t k = 0; k < block.count; ++k) at[n++] = static_cast<uint32_t>(k);
  } else {
    for (size_t w = 0; w * 64 < block.count; ++w) {
      for (uint64_t word = block.bits[p.bits + w]; word != 0; word &= word - 1) {
        at[n++] = static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(word)));
      }
    }
  }
  DecodeValues(block, c, n, bits);
  return n;
}

void TrainingRecords::DecodeValues(const Block& b, Column c, size_t n, uint64_t* out) {
  // Value() for [0, n), its branches on the width and the dictionary taken
  // once: the column reads of `health` on a long log are this loop.
  const Packed& p = b.columns[c];
  if (p.width == 0) {
    for (size_t k = 0; k < n; ++k) out[k] = p.base + p.slope * k;
  } else if constexpr (std::endian::native == std::endian::little) {
    const uint8_t* at = b.bytes.data() + p.at;
    const uint64_t mask = p.width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * p.width)) - 1;
    for (size_t k = 0; k < n; ++k, at += p.width) {
      uint64_t u = 0;
      std::memcpy(&u, at, sizeof(u));  // the block's bytes end in kSlack spare bytes
      out[k] = p.base + p.slope * k + (u & mask);
    }
  } else {
    for (size_t k = 0; k < n; ++k) out[k] = Value(b, c, k);
    return;
  }
  if (p.dict_size > 0) {
    const double* dict = b.dict.data() + p.dict;
    for (size_t k = 0; k < n; ++k) out[k] = std::bit_cast<uint64_t>(dict[out[k]]);
  }
}

void TrainingRecords::clear() {
  blocks_.clear();
  blocks_.shrink_to_fit();
  sealed_ = 0;
  open_.clear();
  open_.shrink_to_fit();
}

void TrainingRecords::push_back(const TrainingRecord& r) {
  if (open_.size() == kBlock + kAmendable) Seal();
  if (open_.capacity() == 0) open_.reserve(std::min<size_t>(kBlock, 16));
  // Past a block, the open records grow to their bound, not to twice a block.
  if (open_.size() == open_.capacity() && open_.size() >= kBlock) {
    open_.reserve(kBlock + kAmendable);
  }
  open_.push_back(r);
}

void TrainingRecords::Seal() {
  // The first kBlock open records are packed; the last kAmendable stay open.
  Block b;
  b.count = kBlock;
  const size_t n = b.count;
  std::vector<uint64_t> values;
  values.reserve(n);
  // One column: the present values gathered (|value| returns false for an
  // absent one), presence recorded, the values packed.
  auto column = [&](Column c, bool numbers, auto&& value) {
    Packed& p = b.columns[c];
    values.clear();
    uint64_t words[kWords] = {};
    for (size_t k = 0; k < n; ++k) {
      uint64_t v = 0;
      if (!value(open_[k], &v)) continue;
      words[k / 64] |= uint64_t{1} << (k % 64);
      values.push_back(v);
    }
    if (values.empty()) {
      p.presence = kNone;
      return;
    }
    p.presence = values.size() == n ? kAll : kSome;
    if (p.presence == kSome) {
      p.bits = static_cast<uint32_t>(b.bits.size());
      uint16_t before = 0;
      for (size_t w = 0; w < (n + 63) / 64; ++w) {
        b.bits.push_back(words[w]);
        b.ranks.push_back(before);
        before = static_cast<uint16_t>(before + std::popcount(words[w]));
      }
    }
    if (numbers) {
      std::vector<uint64_t> distinct;
      if (FewDistinct(values, 255, &distinct)) {
        p.dict = static_cast<uint32_t>(b.dict.size());
        p.dict_size = static_cast<uint16_t>(distinct.size());
        for (const uint64_t d : distinct) b.dict.push_back(std::bit_cast<double>(d));
        for (uint64_t& v : values) {
          v = static_cast<uint64_t>(std::lower_bound(distinct.begin(), distinct.end(), v) -
                                    distinct.begin());
        }
      }
    }
    p.at = static_cast<uint32_t>(b.bytes.size());
    const PackedInts packed = PackInts(values, &b.bytes);
    p.base = packed.base;
    p.slope = packed.slope;
    p.width = packed.width;
  };
  auto always = [](int64_t TrainingRecord::*field) {
    return [field](const TrainingRecord& r, uint64_t* v) {
      *v = static_cast<uint64_t>(r.*field);
      return true;
    };
  };
  column(kStep, false, always(&TrainingRecord::step));
  column(kOrdinal, false, [](const TrainingRecord& r, uint64_t* v) {
    *v = r.step_is_ordinal ? 1 : 0;
    return true;
  });
  column(kRank, false, [](const TrainingRecord& r, uint64_t* v) {
    *v = static_cast<uint64_t>(static_cast<int64_t>(r.rank));
    return true;
  });
  column(kEngine, false, [](const TrainingRecord& r, uint64_t* v) {
    *v = r.engine;
    return true;
  });
  for (size_t i = 0; i < std::size(kDoubleFields); ++i) {
    const auto field = kDoubleFields[i];
    column(static_cast<Column>(kFirstDouble + i), true,
           [field](const TrainingRecord& r, uint64_t* v) {
             if (!(r.*field)) return false;
             *v = std::bit_cast<uint64_t>(*(r.*field));
             return true;
           });
  }
  for (size_t i = 0; i < std::size(kIntFields); ++i) {
    const auto field = kIntFields[i];
    column(static_cast<Column>(kFirstInt + i), false,
           [field](const TrainingRecord& r, uint64_t* v) {
             if (!(r.*field)) return false;
             *v = static_cast<uint64_t>(*(r.*field));
             return true;
           });
  }
  column(kOffset, false, always(&TrainingRecord::offset));
  column(kLine, false, always(&TrainingRecord::line));
  b.bytes.resize(b.bytes.size() + kSlack, 0);
  b.bytes.shrink_to_fit();
  b.bits.shrink_to_fit();
  b.ranks.shrink_to_fit();
  b.dict.shrink_to_fit();
  blocks_.push_back(std::move(b));
  sealed_ += n;
  open_.erase(open_.begin(), open_.begin() + static_cast<std::ptrdiff_t>(n));
}

bool TrainingRecords::Present(const Block& b, Column c, size_t k, size_t* index) {
  const Packed& p = b.columns[c];
  if (p.presence == kAll) {
    *index = k;
    return true;
  }
  if (p.presence == kNone) return false;
  const uint64_t word = b.bits[p.bits + k / 64];
  const uint64_t bit = uint64_t{1} << (k % 64);
  if ((word & bit) == 0) return false;
  *index = b.ranks[p.bits + k / 64] + static_cast<size_t>(std::popcount(word & (bit - 1)));
  return true;
}

uint64_t TrainingRecords::Value(const Block& b, Column c, size_t index) {
  const Packed& p = b.columns[c];
  const uint64_t u = ReadResidual(b.bytes.data() + p.at + index * p.width, p.width);
  const uint64_t v = p.base + p.slope * index + u;
  if (p.dict_size > 0) return std::bit_cast<uint64_t>(b.dict[p.dict + v]);
  return v;
}

template <typename T>
T TrainingRecords::Whole(size_t i, T TrainingRecord::*field) const {
  if (i >= sealed_) return open_[i - sealed_].*field;
  return FromBits<T>(Value(blocks_[i / kBlock], WholeColumnOf(field), i % kBlock));
}

TrainingRecord TrainingRecords::Decode(const Block& b, size_t k) {
  TrainingRecord r;
  r.step = FromBits<int64_t>(Value(b, kStep, k));
  r.step_is_ordinal = FromBits<bool>(Value(b, kOrdinal, k));
  r.rank = FromBits<int32_t>(Value(b, kRank, k));
  r.engine = FromBits<uint8_t>(Value(b, kEngine, k));
  size_t index = 0;
  for (size_t i = 0; i < std::size(kDoubleFields); ++i) {
    const auto c = static_cast<Column>(kFirstDouble + i);
    if (Present(b, c, k, &index)) r.*kDoubleFields[i] = std::bit_cast<double>(Value(b, c, index));
  }
  for (size_t i = 0; i < std::size(kIntFields); ++i) {
    const auto c = static_cast<Column>(kFirstInt + i);
    if (Present(b, c, k, &index)) r.*kIntFields[i] = FromBits<int64_t>(Value(b, c, index));
  }
  r.offset = FromBits<int64_t>(Value(b, kOffset, k));
  r.line = FromBits<int64_t>(Value(b, kLine, k));
  return r;
}

TrainingRecord TrainingRecords::operator[](size_t i) const {
  if (i >= sealed_) return open_[i - sealed_];
  return Decode(blocks_[i / kBlock], i % kBlock);
}

int64_t TrainingRecords::step(size_t i) const { return Whole(i, &TrainingRecord::step); }

int64_t TrainingRecords::line(size_t i) const { return Whole(i, &TrainingRecord::line); }

bool TrainingRecords::step_is_ordinal(size_t i) const {
  return Whole(i, &TrainingRecord::step_is_ordinal);
}

int32_t TrainingRecords::rank(size_t i) const { return Whole(i, &TrainingRecord::rank); }

uint8_t TrainingRecords::engine(size_t i) const { return Whole(i, &TrainingRecord::engine); }

MaybeDouble TrainingRecords::get(size_t i, MaybeDouble TrainingRecord::*field) const {
  if (i >= sealed_) return open_[i - sealed_].*field;
  const Block& b = blocks_[i / kBlock];
  const Column c = ColumnOf(field);
  size_t index = 0;
  if (!Present(b, c, i % kBlock, &index)) return std::nullopt;
  return std::bit_cast<double>(Value(b, c, index));
}

MaybeInt TrainingRecords::get(size_t i, MaybeInt TrainingRecord::*field) const {
  if (i >= sealed_) return open_[i - sealed_].*field;
  const Block& b = blocks_[i / kBlock];
  const Column c = ColumnOf(field);
  size_t index = 0;
  if (!Present(b, c, i % kBlock, &index)) return std::nullopt;
  return FromBits<int64_t>(Value(b, c, index));
}

size_t TrainingRecords::MemoryBytes() const {
  size_t bytes = blocks_.capacity() * sizeof(Block) + open_.capacity() * sizeof(TrainingRecord);
  for (const Block& b : blocks_) {
    bytes += b.bytes.capacity() + b.bits.capacity() * sizeof(uint64_t) +
             b.ranks.capacity() * sizeof(uint16_t) + b.dict.capacity() * sizeof(double);
  }
  return bytes;
}

}  // namespace trainscope::model
