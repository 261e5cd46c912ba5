#include "core/rule_file.h"

namespace trainscope {

std::string_view TrimRuleText(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitRuleColumns(std::string_view line) {
  std::vector<std::string_view> columns;
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == '\t' || line[pos] == ' ')) ++pos;
    if (pos >= line.size()) break;
    size_t end = pos;
    while (end < line.size()) {
      if (line[end] == '\t') break;
      if (line[end] == ' ' && end + 1 < line.size() && line[end + 1] == ' ') break;
      ++end;
    }
    columns.push_back(TrimRuleText(line.substr(pos, end - pos)));
    pos = end;
  }
  return columns;
}

std::vector<std::string_view> SplitOn(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  size_t begin = 0;
  while (true) {
    const size_t end = text.find(separator, begin);
    pieces.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) return pieces;
    begin = end + 1;
  }
}

std::vector<std::string_view> SplitTabColumns(std::string_view line) {
  std::vector<std::string_view> columns = SplitOn(line, '\t');
  for (std::string_view& column : columns) column = TrimRuleText(column);
  return columns;
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace trainscope
