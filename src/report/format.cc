// Helpers shared by the text and HTML reports: human number formats and
// the choice of the rank shown in depth.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {

std::string FormatDurationUs(double us) {
  if (!std::isfinite(us)) return "n/a";  // an unknown value, never "nan ns"
  double magnitude = std::fabs(us);
  if (magnitude < 1.0) return fmt::format("{:.0f} ns", us * 1000.0);
  if (magnitude < 10.0) return fmt::format("{:.2f} µs", us);
  if (magnitude < 1000.0) return fmt::format("{:.1f} µs", us);
  if (magnitude < 10'000.0) return fmt::format("{:.2f} ms", us / 1000.0);
  if (magnitude < 1'000'000.0) return fmt::format("{:.1f} ms", us / 1000.0);
  // Beyond a million seconds (damaged input, 1e308 ms): scientific notation,
  // never a 300-digit number.
  if (magnitude >= 1e12) return fmt::format("{:.3g} s", us / 1e6);
  return fmt::format("{:.2f} s", us / 1e6);
}

std::string FormatDurationNs(double ns) { return FormatDurationUs(Us(ns)); }

std::string NoKernelSource(const analysis::RankHeader& header) {
  for (const std::string& missing : header.missing_files) {
    if (missing.starts_with("kernel_details.csv")) return missing;
  }
  return header.missing_files.empty() ? std::string("no source of device events")
                                      : header.missing_files.front();
}

std::string StepName(int32_t step) {
  return step == model::kNoStep ? "the whole capture" : fmt::format("step {}", step);
}

std::string FormatCount(int64_t count) {
  // Unsigned magnitude: -INT64_MIN does not exist.
  const uint64_t magnitude =
      count < 0 ? uint64_t{0} - static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
  std::string digits = std::to_string(magnitude);
  std::string out;
  int group = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (group == 3) {
      out.push_back(',');
      group = 0;
    }
    out.push_back(*it);
    ++group;
  }
  if (count < 0) out.push_back('-');
  return std::string(out.rbegin(), out.rend());
}

const analysis::RankAnalysis* FocusRank(const analysis::JobAnalysis& job,
                                        std::optional<int32_t> requested) {
  if (job.ranks.empty()) return nullptr;
  if (requested) {
    for (const auto& rank : job.ranks) {
      if (rank.header.rank == *requested) return &rank;
    }
  }
  for (const auto& rank : job.ranks) {
    if (rank.selected() && rank.selected()->kernels.count > 0) return &rank;
  }
  return &job.ranks.front();
}

std::string FormatPercent(double fraction) {
  const double percent = fraction * 100.0;
  if (std::fabs(percent) >= 1e6) return fmt::format("{:.3g}%", percent);  // not 300 digits
  return fmt::format("{:.1f}%", percent);
}

}  // namespace trainscope::report
