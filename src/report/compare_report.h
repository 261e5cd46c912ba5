// `trainscope compare` reports: the terminal summary, the JSON document
// (schema trainscope.compare/2, docs/json-schema.md) and the HTML page.
#pragma once

#include <optional>
#include <string>

#include "analysis/compare/run_comparison.h"

namespace trainscope::report {

inline constexpr const char* kCompareJsonSchema = "trainscope.compare/2";

struct CompareTextOptions {
  bool color = false;
  size_t operators = 12;      // rows of the operator table
  size_t framework_ops = 10;  // rows of the framework op and module tables
};

// One compared number as the reports show it: "n/a" when unknown, counts
// with thousands separators, percents with one decimal, else three decimals
// (|unit_suffix|: append the unit, as the terminal does).
std::string FormatComparedValue(std::optional<double> value, const std::string& unit,
                                bool unit_suffix);

// The unit as people read it: "µs" for the machine unit "us" (the JSON's
// `unit`), the others as they are.
std::string DisplayUnit(const std::string& unit);

std::string RenderCompareText(const analysis::RunComparison& c, const CompareTextOptions& options);
std::string RenderCompareJson(const analysis::RunComparison& c, const std::string& tool_version);
std::string RenderCompareHtml(const analysis::RunComparison& c, const std::string& tool_version);

}  // namespace trainscope::report
