// CsvHeader: column lookup by name, tolerant of the header drift between
// profiler versions.
//
// Names are compared after lower-casing and removing all whitespace, so
// "Step Id" == "Step ID" and "Start Time(us)" == "start time (us)". A lookup
// takes a list of aliases (e.g. "Block Dim" | "Block Num") and returns the
// first that is present.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::formats {

class CsvHeader {
 public:
  static constexpr int kAbsent = -1;

  CsvHeader() = default;
  explicit CsvHeader(const std::vector<std::string_view>& fields);

  // Index of the first alias present in the header, or kAbsent.
  int Find(std::initializer_list<std::string_view> aliases) const;
  int Find(std::string_view name) const { return Find({name}); }
  bool Has(std::initializer_list<std::string_view> aliases) const {
    return Find(aliases) != kAbsent;
  }

  size_t size() const { return names_.size(); }
  // The header as found, for error messages: "Step Id, Name, Type, ...".
  std::string Joined() const;

  // Lower-case, whitespace-free, quotes stripped: the comparison key.
  static std::string Normalize(std::string_view name);

 private:
  std::vector<std::string> names_;       // as written (trimmed)
  std::vector<std::string> normalized_;  // comparison keys
};

}  // namespace trainscope::formats
