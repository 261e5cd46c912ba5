#include "analysis/accuracy/tensor_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/mapped_file.h"

namespace trainscope::analysis {
namespace {

using model::ElementType;

constexpr size_t kBlock = 4096;

template <typename T>
T Load(const unsigned char* p, bool big_endian) {
  std::array<unsigned char, sizeof(T)> bytes;
  std::memcpy(bytes.data(), p, sizeof(T));
  if (big_endian) std::reverse(bytes.begin(), bytes.end());
  return std::bit_cast<T>(bytes);
}

// Elements [first, first + n) of |data| as doubles into |out|.
void Convert(const unsigned char* data, ElementType type, bool big_endian, size_t first, size_t n,
             double* out) {
  const size_t width = model::ElementBytes(type);
  const unsigned char* p = data + first * width;
  switch (type) {
    case ElementType::kF32:
      if (!big_endian) {
        for (size_t i = 0; i < n; ++i) {
          float f;
          std::memcpy(&f, p + i * 4, 4);
          out[i] = f;
        }
        return;
      }
      for (size_t i = 0; i < n; ++i) out[i] = Load<float>(p + i * 4, true);
      return;
    case ElementType::kF64:
      for (size_t i = 0; i < n; ++i) out[i] = Load<double>(p + i * 8, big_endian);
      return;
    case ElementType::kF16:
      for (size_t i = 0; i < n; ++i) out[i] = HalfToFloat(Load<uint16_t>(p + i * 2, big_endian));
      return;
    case ElementType::kBf16:
      for (size_t i = 0; i < n; ++i) out[i] = Bf16ToFloat(Load<uint16_t>(p + i * 2, big_endian));
      return;
    case ElementType::kI8:
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(p[i]);
      return;
    case ElementType::kU8:
    case ElementType::kBool:
      for (size_t i = 0; i < n; ++i) out[i] = p[i];
      return;
    case ElementType::kI16:
      for (size_t i = 0; i < n; ++i) out[i] = Load<int16_t>(p + i * 2, big_endian);
      return;
    case ElementType::kU16:
      for (size_t i = 0; i < n; ++i) out[i] = Load<uint16_t>(p + i * 2, big_endian);
      return;
    case ElementType::kI32:
      for (size_t i = 0; i < n; ++i) out[i] = Load<int32_t>(p + i * 4, big_endian);
      return;
    case ElementType::kU32:
      for (size_t i = 0; i < n; ++i) out[i] = Load<uint32_t>(p + i * 4, big_endian);
      return;
    case ElementType::kI64:
      for (size_t i = 0; i < n; ++i)
        out[i] = static_cast<double>(Load<int64_t>(p + i * 8, big_endian));
      return;
    case ElementType::kU64:
      for (size_t i = 0; i < n; ++i)
        out[i] = static_cast<double>(Load<uint64_t>(p + i * 8, big_endian));
      return;
    case ElementType::kUnknown:
      std::fill(out, out + n, 0.0);
      return;
  }
}

struct Sums {
  double dot = 0, na = 0, nb = 0, d2 = 0, max_abs = 0, max_rel = 0;
  int64_t beyond = 0, finite = 0;
  int64_t rel_below_1e3 = 0, rel_below_5e3 = 0;  // msprobe's thousandth ratios
};

// x - x is 0 for a finite x and NaN for NaN and +-Inf: a finiteness test
// the compiler can vectorise.
inline bool Finite(double x) { return x - x == 0; }

// The hot loop: every element finite on both sides. No branches; four
// lanes of partial sums (kept apart, added at the end) so the compiler can
// vectorise without reordering any one sum.
void FiniteBlock(const double* a, const double* b, size_t n, double tolerance, Sums* s) {
  constexpr size_t kLanes = 4;
  std::array<double, kLanes> dot{}, na{}, nb{}, d2{}, max_abs{}, max_rel{};
  std::array<int64_t, kLanes> beyond{}, below1{}, below5{};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t l = 0; l < kLanes; ++l) {
      const double x = a[i + l], y = b[i + l], d = y - x, ad = std::fabs(d);
      dot[l] += x * y;
      na[l] += x * x;
      nb[l] += y * y;
      d2[l] += d * d;
      beyond[l] += ad > tolerance ? 1 : 0;
      const double rel = ad / std::max(std::fabs(x), kRelativeFloor);
      max_rel[l] = rel > max_rel[l] ? rel : max_rel[l];
      below1[l] += rel < 1e-3 ? 1 : 0;
      below5[l] += rel < 5e-3 ? 1 : 0;
      max_abs[l] = ad > max_abs[l] ? ad : max_abs[l];
    }
  }
  for (; i < n; ++i) {  // the tail, in lane 0
    const double x = a[i], y = b[i], d = y - x, ad = std::fabs(d);
    dot[0] += x * y;
    na[0] += x * x;
    nb[0] += y * y;
    d2[0] += d * d;
    beyond[0] += ad > tolerance ? 1 : 0;
    const double rel = ad / std::max(std::fabs(x), kRelativeFloor);
    max_rel[0] = std::max(max_rel[0], rel);
    below1[0] += rel < 1e-3 ? 1 : 0;
    below5[0] += rel < 5e-3 ? 1 : 0;
    max_abs[0] = std::max(max_abs[0], ad);
  }
  for (size_t l = 0; l < kLanes; ++l) {
    s->dot += dot[l];
    s->na += na[l];
    s->nb += nb[l];
    s->d2 += d2[l];
    s->beyond += beyond[l];
    s->rel_below_1e3 += below1[l];
    s->rel_below_5e3 += below5[l];
    s->max_rel = std::max(s->max_rel, max_rel[l]);
    s->max_abs = std::max(s->max_abs, max_abs[l]);
  }
  s->finite += static_cast<int64_t>(n);
}

int Class(double x) {  // 0 finite, 1 NaN, 2 +Inf, 3 -Inf
  if (std::isnan(x)) return 1;
  if (std::isinf(x)) return x > 0 ? 2 : 3;
  return 0;
}

void MixedBlock(const double* a, const double* b, size_t n, double tolerance, Sums* s,
                TensorMetrics* m) {
  for (size_t i = 0; i < n; ++i) {
    const int ca = Class(a[i]), cb = Class(b[i]);
    m->nan_base += ca == 1;
    m->nan_next += cb == 1;
    m->inf_base += ca >= 2;
    m->inf_next += cb >= 2;
    m->nonfinite_mismatch += ca != cb;
    if (ca == 0 && cb == 0) FiniteBlock(a + i, b + i, 1, tolerance, s);
  }
}

}  // namespace

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  uint32_t out = 0;
  if (exponent == 0) {
    if (mantissa == 0) {
      out = sign;
    } else {  // subnormal: normalise
      int shift = 0;
      while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        ++shift;
      }
      mantissa &= 0x3FFu;
      out = sign | static_cast<uint32_t>(127 - 15 - shift + 1) << 23 | mantissa << 13;
    }
  } else if (exponent == 0x1F) {
    out = sign | 0x7F800000u | mantissa << 13;
  } else {
    out = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  return std::bit_cast<float>(out);
}

float Bf16ToFloat(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

TensorMetrics CompareElements(const void* a, ElementType a_type, bool a_big_endian, const void* b,
                              ElementType b_type, bool b_big_endian, int64_t count,
                              double tolerance) {
  TensorMetrics m;
  m.elements = count;
  Sums s;
  std::vector<double> xa(kBlock), xb(kBlock);
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  for (int64_t first = 0; first < count; first += static_cast<int64_t>(kBlock)) {
    const size_t n = static_cast<size_t>(std::min<int64_t>(kBlock, count - first));
    Convert(pa, a_type, a_big_endian, static_cast<size_t>(first), n, xa.data());
    Convert(pb, b_type, b_big_endian, static_cast<size_t>(first), n, xb.data());
    size_t nonfinite = 0;
    for (size_t i = 0; i < n; ++i) nonfinite += (Finite(xa[i]) && Finite(xb[i])) ? 0 : 1;
    if (nonfinite == 0) {
      FiniteBlock(xa.data(), xb.data(), n, tolerance, &s);
    } else {
      MixedBlock(xa.data(), xb.data(), n, tolerance, &s, &m);
    }
  }
  m.finite_pairs = s.finite;
  m.max_abs = s.max_abs;
  m.max_rel = s.max_rel;
  m.beyond = s.beyond;
  m.rel_below_1e3 = s.rel_below_1e3;
  m.rel_below_5e3 = s.rel_below_5e3;
  m.euclidean = std::sqrt(s.d2);
  if (s.finite > 0) {
    m.rmse = std::sqrt(s.d2 / static_cast<double>(s.finite));
    m.base_rms = std::sqrt(s.na / static_cast<double>(s.finite));
  }
  if (s.na == 0 && s.nb == 0) {
    m.cosine = s.finite > 0 ? std::optional<double>(1.0) : std::nullopt;
  } else if (s.na > 0 && s.nb > 0) {
    m.cosine = std::clamp(s.dot / (std::sqrt(s.na) * std::sqrt(s.nb)), -1.0, 1.0);
  } else {
    m.cosine = 0.0;  // one side all zeros, the other not: no direction in common
  }
  return m;
}

Result<TensorMetrics> CompareTensorData(const model::TensorData& a, const model::TensorData& b,
                                        int64_t count, double tolerance) {
  struct Side {
    MappedFile mapped;
    const char* bytes = nullptr;
  };
  auto open = [&](const model::TensorData& d, Side* side) -> Status {
    const uint64_t need = static_cast<uint64_t>(count) * model::ElementBytes(d.stored);
    if (d.inflated) {
      if (d.offset + need > d.inflated->size()) {
        return InvalidInput(
            fmt::format("{}: inflated member shorter than its header says", d.file));
      }
      side->bytes = d.inflated->data() + d.offset;
      return Status::Ok();
    }
    Result<MappedFile> mapped = MappedFile::Open(d.file);
    if (!mapped.ok()) return mapped.status();
    if (d.offset + need > mapped->size()) {
      return InvalidInput(
          fmt::format("{}: byte {}: the file is shorter than when it was read "
                      "(changed while comparing?)",
                      d.file, d.offset));
    }
    side->mapped = std::move(*mapped);
    side->bytes = side->mapped.data().data() + d.offset;
    return Status::Ok();
  };
  Side sa, sb;
  TS_RETURN_IF_ERROR(open(a, &sa));
  TS_RETURN_IF_ERROR(open(b, &sb));
  return CompareElements(sa.bytes, a.stored, a.big_endian, sb.bytes, b.stored, b.big_endian, count,
                         tolerance);
}

}  // namespace trainscope::analysis
