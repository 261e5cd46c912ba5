#include "report/number_text.h"

#include <fmt/format.h>

#include <cmath>

namespace trainscope::report {

std::string ThreeSignificant(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.3g}", x);
}

std::string FixedOrNa(const std::optional<double>& value, int decimals) {
  if (!value) return "n/a";
  if (*value != 0 && std::fabs(*value) < 1e-2) return fmt::format("{:.3g}", *value);
  // Huge values (damaged input, 1e308) in scientific notation, not 300 digits.
  if (std::fabs(*value) >= 1e15) return fmt::format("{:.3g}", *value);
  return fmt::format("{:.{}f}", *value, decimals);
}

}  // namespace trainscope::report
