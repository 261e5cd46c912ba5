#include "formats/csv/csv_header.h"

#include "core/numbers.h"

namespace trainscope::formats {

CsvHeader::CsvHeader(const std::vector<std::string_view>& fields) {
  names_.reserve(fields.size());
  normalized_.reserve(fields.size());
  for (std::string_view field : fields) {
    names_.emplace_back(TrimField(field));
    normalized_.push_back(Normalize(field));
  }
}

std::string CsvHeader::Normalize(std::string_view name) {
  name = TrimField(name);
  std::string key;
  key.reserve(name.size());
  for (char c : name) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '"') continue;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    key.push_back(c);
  }
  return key;
}

int CsvHeader::Find(std::initializer_list<std::string_view> aliases) const {
  for (std::string_view alias : aliases) {
    const std::string key = Normalize(alias);
    for (size_t i = 0; i < normalized_.size(); ++i) {
      if (normalized_[i] == key) return static_cast<int>(i);
    }
  }
  return kAbsent;
}

std::string CsvHeader::Joined() const {
  std::string joined;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (i > 0) joined += ", ";
    joined += names_[i];
  }
  return joined;
}

}  // namespace trainscope::formats
