#include "analysis/accuracy/accuracy_thresholds.h"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>

#include "core/rule_file.h"

namespace trainscope::embedded {
extern const unsigned char kBuiltinAccuracyThresholdsTsv[];
}  // namespace trainscope::embedded

namespace trainscope::analysis {
namespace {

std::optional<double> Number(std::string_view text) {
  if (text == "-") return std::nullopt;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str() || *end != '\0') return std::nullopt;
  return value;
}

}  // namespace

const AccuracyThresholds& AccuracyThresholds::Builtin() {
  static const AccuracyThresholds builtin = [] {
    AccuracyThresholds t;
    const Status ok =
        t.Override(reinterpret_cast<const char*>(embedded::kBuiltinAccuracyThresholdsTsv),
                   "data/accuracy_thresholds.tsv");
    if (!ok.ok()) std::abort();  // the compiled-in table is checked by tests
    return t;
  }();
  return builtin;
}

Status AccuracyThresholds::Override(std::string_view text, const std::string& label) {
  return ForEachRuleLine(
      text,
      [&](size_t line, std::string_view, const std::vector<std::string_view>& cols) -> Status {
        if (cols.size() < 4) {
          return InvalidInput(
              fmt::format("{}:{}: want key, min_cosine, max_abs, stat_rel[, origin]", label, line));
        }
        const std::optional<double> stat_rel = Number(cols[3]);
        if (!stat_rel || *stat_rel < 0) {
          return InvalidInput(fmt::format("{}:{}: stat_rel is not a number >= 0", label, line));
        }
        const std::string origin = cols.size() > 4 ? std::string(cols[4]) : "--thresholds " + label;
        if (cols[0] == "loss-curve") {
          loss_tolerance_ = *stat_rel;
          return Status::Ok();
        }
        const std::optional<double> cosine = Number(cols[1]);
        const std::optional<double> max_abs = Number(cols[2]);
        if (!cosine || !max_abs || *cosine > 1 || *max_abs < 0) {
          return InvalidInput(fmt::format(
              "{}:{}: min_cosine must be <= 1 and max_abs >= 0\nhint: numbers like 0.999 "
              "and 1e-3",
              label, line));
        }
        rows_[std::string(cols[0])] = AccuracyLimits{*cosine, *max_abs, *stat_rel, origin};
        return Status::Ok();
      });
}

const AccuracyLimits& AccuracyThresholds::For(model::ElementType type) const {
  static const AccuracyLimits kNone{0.999, 1e-3, 1e-3, "no row"};
  auto it = rows_.find(model::IsFloating(type) ? model::ElementTypeName(type) : "other");
  if (it == rows_.end()) it = rows_.find("other");
  return it == rows_.end() ? kNone : it->second;
}

const AccuracyLimits& AccuracyThresholds::ForPair(model::ElementType a,
                                                  model::ElementType b) const {
  const AccuracyLimits& x = For(a);
  const AccuracyLimits& y = For(b);
  return y.max_abs > x.max_abs ? y : x;
}

void AccuracyThresholds::SetEverywhere(std::optional<double> min_cosine,
                                       std::optional<double> max_abs) {
  for (auto& [key, row] : rows_) {
    if (min_cosine) row.min_cosine = *min_cosine;
    if (max_abs) row.max_abs = *max_abs;
    if (min_cosine || max_abs) row.origin = "command line";
  }
}

}  // namespace trainscope::analysis
