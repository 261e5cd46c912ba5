// Numbers as the accuracy and health reports print them, one definition for
// their text and HTML renderings (so the two cannot drift apart).
#pragma once

#include <optional>
#include <string>

namespace trainscope::report {

// Three significant digits; "NaN", "inf" and "-inf" spelled out (tensor
// statistics of a broken run are exactly those).
std::string ThreeSignificant(double x);

// |decimals| after the point, three significant digits below 0.01 (a loss
// of 0.004 must not print as 0.0) and from 1e15 up (1e308, not 309 digits);
// "n/a" when unknown.
std::string FixedOrNa(const std::optional<double>& value, int decimals = 1);

}  // namespace trainscope::report
