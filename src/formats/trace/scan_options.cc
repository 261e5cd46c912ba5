#include "formats/trace/scan_options.h"

#include <cstdlib>
#include <string_view>

namespace trainscope::formats::trace {
namespace {

// "64M" -> 64 MiB; 0 for anything that is not a positive size.
size_t ParseSize(const char* text) {
  if (text == nullptr) return 0;
  std::string_view s(text);
  size_t value = 0, i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (value > (size_t{1} << 50)) return 0;
    value = value * 10 + static_cast<size_t>(s[i] - '0');
  }
  if (i == 0) return 0;
  if (i < s.size()) {
    const char unit = s[i];
    const int shift = unit == 'K' || unit == 'k'   ? 10
                      : unit == 'M' || unit == 'm' ? 20
                      : unit == 'G' || unit == 'g' ? 30
                                                   : -1;
    if (shift < 0 || i + 1 != s.size() || value > (size_t{1} << 30)) return 0;
    value <<= shift;
  }
  return value;
}

size_t FromEnv(const char* name, size_t fallback) {
  const size_t v = ParseSize(std::getenv(name));
  return v > 0 ? v : fallback;
}

}  // namespace

size_t DefaultMaxEventBytes() {
  static const size_t bytes = FromEnv("TRAINSCOPE_MAX_EVENT_BYTES", size_t{16} << 20);
  return bytes;
}

size_t DefaultMaxInflatedBytes() {
  static const size_t bytes = FromEnv("TRAINSCOPE_MAX_INFLATED_BYTES", size_t{128} << 20);
  return bytes;
}

}  // namespace trainscope::formats::trace
