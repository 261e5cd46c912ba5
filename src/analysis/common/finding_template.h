// The text templates of the findings catalogue (data/findings.tsv): plain
// text with placeholders filled from a finding's values.
//
//   {name}        a text value as is, or a number in its shortest form
//   {name:f1}     a number with 0-3 decimals (f0 f1 f2 f3)
//   {name:pct0}   a fraction as a percentage: x100, 0-2 decimals (pct0 pct1 pct2)
//   {name:int}    a number rounded to an integer
//   [[ ... ]]     an optional part: left out when a placeholder inside has no value
//
// Placeholders are checked when the catalogue loads (CheckTemplate), so an
// unknown name or format is an error there, not a hole in a report.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace trainscope::analysis {

struct Placeholder {
  std::string name;
  std::string format;  // "" | f0..f3 | pct0..pct2 | int
};

// Parses |tmpl| and appends its placeholders to |out|. Errors: an unclosed
// '{' or '[[', a '}' or ']]' without its opener, nested optional parts, an
// empty name, an unknown format.
Status CheckTemplate(std::string_view tmpl, std::vector<Placeholder>* out);

// A placeholder's value: a number, or text (is_text).
struct TemplateValue {
  double number = 0;
  std::string text;
  bool is_text = false;
};

// Returns false when |name| has no value.
using TemplateLookup = std::function<bool(std::string_view name, TemplateValue* value)>;

// Renders a template that CheckTemplate accepted. A placeholder without a
// value (or text given a numeric format) outside an optional part stays in
// the output as written and its name is appended to |missing| (if given).
std::string RenderTemplate(std::string_view tmpl, const TemplateLookup& lookup,
                           std::vector<std::string>* missing = nullptr);

}  // namespace trainscope::analysis
