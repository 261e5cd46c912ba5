// One table of an enum's values and their names, read both ways: Name(e)
// for output and FromName(s) for parsing, so the spelling a value is
// written with and the spelling it is read back from cannot drift apart.
//
//   constexpr EnumNames<Platform, 2> kPlatformKeys{{{
//       {Platform::kAscend, "ascend"}, {Platform::kCuda, "cuda"}}}, "unknown"};
//   kPlatformKeys.Name(Platform::kCuda);     // "cuda"
//   kPlatformKeys.FromName("ascend");        // Platform::kAscend
//   kPlatformKeys.FromName("tpu");           // std::nullopt
//
// A value the table leaves out (an "unknown" member) is named |fallback|
// and is never parsed. Lookups are linear: these tables have a handful of
// rows.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace trainscope {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

template <typename E, size_t N>
class EnumNames {
 public:
  constexpr EnumNames(const std::array<EnumName<E>, N>& rows, std::string_view fallback)
      : rows_(rows), fallback_(fallback) {}

  // |value|'s name; |fallback| for a value the table lacks.
  constexpr std::string_view Name(E value) const {
    for (const EnumName<E>& row : rows_) {
      if (row.value == value) return row.name;
    }
    return fallback_;
  }

  // The value named exactly |name| (case and spelling as in the table).
  constexpr std::optional<E> FromName(std::string_view name) const {
    for (const EnumName<E>& row : rows_) {
      if (row.name == name) return row.value;
    }
    return std::nullopt;
  }

  // The names in table order, joined by |separator| and |last| ("a, b or
  // c"): for a hint listing what is accepted.
  std::string Choices(std::string_view separator = ", ", std::string_view last = " or ") const {
    std::string out;
    for (size_t i = 0; i < N; ++i) {
      if (i > 0) out.append(i + 1 == N ? last : separator);
      out.append(rows_[i].name);
    }
    return out;
  }

  constexpr const std::array<EnumName<E>, N>& rows() const { return rows_; }

 private:
  std::array<EnumName<E>, N> rows_;
  std::string_view fallback_;
};

}  // namespace trainscope
