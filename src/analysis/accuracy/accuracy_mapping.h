// Which call of a MindSpore dump is which call of a PyTorch one, and a
// user's mapping file (docs/accuracy.md, "Mapping"): the built-in API name
// table (data/accuracy_api_mapping.tsv), and msprobe compare's mapping files
// as one YAML subset (--mapping FILE): data mapping (a NEW tensor or call
// name: its BASE name), cell mapping by {module_name}.{class_name} or by a
// string in it, and layer mapping (a class: child renames). Each call's
// matching key says which rule made it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace trainscope::analysis {

struct ApiNameRow {
  std::string mindspore, pytorch;  // "Primitive.MatMul", "Functional.linear"
  int64_t line = 0;
  std::string file;  // the table it came from
};

class ApiNameTable {
 public:
  static const ApiNameTable& Builtin();
  // Rows of |text| (the data file's columns) are added; a row naming an API
  // already present replaces it.
  Status Add(std::string_view text, const std::string& label);
  const ApiNameRow* Find(std::string_view type_and_name) const;

 private:
  std::vector<ApiNameRow> rows_;
};

enum class MappingKind : uint8_t {
  kCall,       // "NPU.x.4.forward.input.0: NPU.x.4.forward.input.0" (msprobe -dm): the call
  kModule,     // "fc2.Dense: fc2.Linear" (msprobe -cm, by {module_name}.{class_name})
  kSubstring,  // "RowParallelLinear: TERowParallelLinear" (msprobe -cm, a string in it)
  kLayer,      // "Class:\n  child: renamed" (msprobe layer_mapping): a path segment
};

struct MappingRule {
  MappingKind kind = MappingKind::kCall;
  std::string next, base;   // NEW's text (the left side), BASE's (the right)
  std::string layer_class;  // kLayer: the class the renames are listed under
  int64_t line = 0;
};

struct AccuracyMapping {
  std::string file;
  std::vector<MappingRule> rules;
  std::unordered_map<std::string, size_t> call_index;  // kCall rules by NEW's call
};

// The YAML subset: "key: value" lines, '#' comments, keys and values plain
// or quoted, one level of nesting (a key with no value, then indented
// "child: renamed" lines). Anything else fails with the file and line.
Result<AccuracyMapping> ParseAccuracyMapping(std::string_view text, const std::string& label);

// A call's matching key and the rule that made it.
struct CallKey {
  std::string key;
  std::string rule;  // "" when the name itself (counters dropped) is the key
};

// |op| is a call name ("Mint.linear.3.forward"). |cross_framework|: the two
// dumps name different frameworks (API types dropped, Cell = Module, the
// table). |mapping| (NEW only, may be null) is applied first.
CallKey MatchKeyOfCall(std::string_view op, bool cross_framework, const ApiNameTable& table,
                       const AccuracyMapping* mapping);

}  // namespace trainscope::analysis
