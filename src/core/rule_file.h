// Line-oriented rule files, the one parser for all of them (data/families.tsv,
// --families, --activity-rules, data/findings.tsv, data/thresholds.tsv,
// --thresholds, data/fingerprints.tsv, --fingerprints): one rule per line,
// '#' starts a comment line, blank lines are skipped. Columns are either
// aligned (kAligned: a TAB or a run of two or more spaces separates them, so
// the table can be aligned for reading while names keep their single
// spaces) or tab-separated (kTabs: every TAB separates, empty columns kept;
// for tables whose columns are free text, like the fingerprints').
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace trainscope {

std::string_view TrimRuleText(std::string_view text);
std::vector<std::string_view> SplitRuleColumns(std::string_view line);
std::vector<std::string_view> SplitTabColumns(std::string_view line);
// |text| cut at every |separator| (empty pieces kept), e.g. a column's list.
std::vector<std::string_view> SplitOn(std::string_view text, char separator);
std::string AsciiLower(std::string_view text);

enum class RuleColumns { kAligned, kTabs };

// Calls fn(line_number, line, columns) for every rule line (line and
// columns trimmed); stops at the first error fn returns.
template <typename Fn>
Status ForEachRuleLine(std::string_view text, Fn&& fn,
                       RuleColumns columns = RuleColumns::kAligned) {
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = TrimRuleText(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    TS_RETURN_IF_ERROR(
        fn(line_number, line,
           columns == RuleColumns::kTabs ? SplitTabColumns(line) : SplitRuleColumns(line)));
  }
  return Status::Ok();
}

}  // namespace trainscope
