// Line-oriented rule files (data/families.tsv, --families, --activity-rules):
// one rule per line, '#' starts a comment line, blank lines are skipped, and
// columns are separated by a TAB or by a run of two or more spaces, so the
// table can be aligned for reading while names keep their single spaces.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace trainscope {

std::string_view TrimRuleText(std::string_view text);
std::vector<std::string_view> SplitRuleColumns(std::string_view line);
std::string AsciiLower(std::string_view text);

// Calls fn(line_number, line, columns) for every rule line (line trimmed);
// stops at the first error fn returns.
template <typename Fn>
Status ForEachRuleLine(std::string_view text, Fn&& fn) {
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = TrimRuleText(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    TS_RETURN_IF_ERROR(fn(line_number, line, SplitRuleColumns(line)));
  }
  return Status::Ok();
}

}  // namespace trainscope
