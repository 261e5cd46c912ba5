#include "analysis/accuracy/accuracy_mapping.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "analysis/accuracy/op_alignment.h"
#include "core/rule_file.h"

namespace trainscope::embedded {
extern const unsigned char kBuiltinAccuracyApiMappingTsv[];
}  // namespace trainscope::embedded

namespace trainscope::analysis {
namespace {

bool IsMappingPassSegment(std::string_view part) {
  return part == "forward" || part == "backward" || part == "parameters_grad";
}

std::vector<std::string_view> DotParts(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t dot = text.find('.', start);
    const size_t end = dot == std::string_view::npos ? text.size() : dot;
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string JoinDotParts(const std::vector<std::string_view>& parts, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < parts.size(); ++i) {
    if (i > from) out += '.';
    out += parts[i];
  }
  return out;
}

bool IsModuleCall(std::string_view name) {
  return name.starts_with("Module.") || name.starts_with("Cell.");
}

// "NPU.x.4.forward.input.0" -> "NPU.x.4.forward"; "Module.a.B.forward.0.input.0" ->
// "Module.a.B.forward.0"; a name with no pass segment is its own call.
std::string CallOfTensorName(std::string_view name) {
  const std::vector<std::string_view> parts = DotParts(name);
  for (size_t i = 1; i < parts.size(); ++i) {
    if (!IsMappingPassSegment(parts[i])) continue;
    size_t end = i + 1;
    if (IsModuleCall(name) && end < parts.size()) ++end;  // the module's counter follows
    return JoinDotParts(parts, 0, end);
  }
  return std::string(name);
}

// Lower case without '_': "LayerNorm", "layer_norm" and "__layer_norm__" are one name.
std::string CanonicalApiName(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string_view TrimMappingText(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::string_view UnquoteMappingText(std::string_view text) {
  text = TrimMappingText(text);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front()) {
    text = text.substr(1, text.size() - 2);
  }
  return text;
}

Status MappingLineError(const std::string& label, int64_t line, std::string_view text,
                        std::string_view what) {
  return InvalidInput(fmt::format(
      "{}:{}: {}: '{}'\nhint: a mapping file is msprobe compare's YAML: 'NEW name: BASE name' "
      "lines, or 'Class:' followed by indented 'child: renamed' lines (docs/accuracy.md)",
      label, line, what, text.substr(0, 60)));
}

// The module part of a Module/Cell call: "Cell.fc2.Dense.forward.0" -> "fc2.Dense".
std::pair<size_t, size_t> ModulePartRange(std::string_view call) {
  const size_t start = call.find('.') + 1;
  const std::vector<std::string_view> parts = DotParts(call);
  size_t offset = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 && IsMappingPassSegment(parts[i])) return {start, offset - 1};
    offset += parts[i].size() + 1;
  }
  return {start, call.size()};
}

std::string ApplyModuleRules(const AccuracyMapping& mapping, std::string name, std::string* rule) {
  const auto [start, end] = ModulePartRange(name);
  if (end <= start) return name;
  std::string part = name.substr(start, end - start);
  const MappingRule* used = nullptr;
  for (const MappingRule& r : mapping.rules) {
    if (r.kind == MappingKind::kModule && r.next == part) {
      part = r.base;
      used = &r;
      break;
    }
  }
  if (used == nullptr) {
    for (const MappingRule& r : mapping.rules) {
      const size_t at = r.kind == MappingKind::kSubstring ? part.find(r.next) : std::string::npos;
      if (at == std::string::npos) continue;
      part.replace(at, r.next.size(), r.base);
      used = &r;
      break;
    }
  }
  std::vector<std::string_view> segments = DotParts(part);
  std::vector<std::string> renamed(segments.begin(), segments.end());
  for (const MappingRule& r : mapping.rules) {
    if (r.kind != MappingKind::kLayer) continue;
    for (std::string& segment : renamed) {
      if (segment != r.next) continue;
      segment = r.base;
      used = used == nullptr ? &r : used;
    }
  }
  if (used == nullptr) return name;
  std::string joined;
  for (size_t i = 0; i < renamed.size(); ++i) joined += (i ? "." : "") + renamed[i];
  *rule = fmt::format("{}:{}", mapping.file, used->line);
  return name.substr(0, start) + joined + name.substr(end);
}

}  // namespace

const ApiNameTable& ApiNameTable::Builtin() {
  static const ApiNameTable builtin = [] {
    ApiNameTable t;
    const Status ok = t.Add(reinterpret_cast<const char*>(embedded::kBuiltinAccuracyApiMappingTsv),
                            "data/accuracy_api_mapping.tsv");
    if (!ok.ok()) std::abort();  // the compiled-in table is checked by tests
    return t;
  }();
  return builtin;
}

Status ApiNameTable::Add(std::string_view text, const std::string& label) {
  return ForEachRuleLine(
      text,
      [&](size_t line, std::string_view raw,
          const std::vector<std::string_view>& columns) -> Status {
        if (columns.size() < 2 || columns[0].find('.') == std::string_view::npos ||
            columns[1].find('.') == std::string_view::npos) {
          return InvalidInput(fmt::format(
              "{}:{}: expected 'MindSporeType.name  PyTorchType.name  [why]': '{}'\nhint: columns "
              "are separated by a TAB or two spaces (data/accuracy_api_mapping.tsv)",
              label, line, raw.substr(0, 60)));
        }
        ApiNameRow row{std::string(columns[0]), std::string(columns[1]), static_cast<int64_t>(line),
                       label};
        for (ApiNameRow& existing : rows_) {
          if (existing.mindspore == row.mindspore) {
            existing = std::move(row);
            return Status::Ok();
          }
        }
        rows_.push_back(std::move(row));
        return Status::Ok();
      });
}

const ApiNameRow* ApiNameTable::Find(std::string_view type_and_name) const {
  for (const ApiNameRow& row : rows_) {
    if (row.mindspore == type_and_name) return &row;
  }
  return nullptr;
}

Result<AccuracyMapping> ParseAccuracyMapping(std::string_view text, const std::string& label) {
  AccuracyMapping mapping;
  mapping.file = label;
  std::string layer_class;
  int64_t line_number = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_number;
    if (const size_t hash = line.find(" #"); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    const std::string_view content = TrimMappingText(line);
    if (content.empty() || content.front() == '#' || content == "---") continue;
    const bool indented = line.front() == ' ' || line.front() == '\t';
    size_t colon = content.find(": ");
    if (colon == std::string_view::npos && content.back() == ':') colon = content.size() - 1;
    if (colon == std::string_view::npos) {
      return MappingLineError(label, line_number, content, "expected 'name: name'");
    }
    const std::string key(UnquoteMappingText(content.substr(0, colon)));
    const std::string value(UnquoteMappingText(content.substr(colon + 1)));
    if (key.empty()) return MappingLineError(label, line_number, content, "empty name");
    if (value.empty()) {
      if (indented) return MappingLineError(label, line_number, content, "nested too deep");
      layer_class = key;
      continue;
    }
    MappingRule rule;
    rule.line = line_number;
    if (indented) {
      if (layer_class.empty()) {
        return MappingLineError(label, line_number, content, "indented line outside a class");
      }
      rule.kind = MappingKind::kLayer;
      rule.layer_class = layer_class;
      rule.next = key;
      rule.base = value;
    } else {
      layer_class.clear();
      const std::vector<std::string_view> parts = DotParts(key);
      if (std::any_of(parts.begin() + 1, parts.end(), IsMappingPassSegment)) {
        rule.kind = MappingKind::kCall;
        rule.next = CallOfTensorName(key);
        rule.base = CallOfTensorName(value);
      } else {
        rule.kind =
            key.find('.') == std::string::npos ? MappingKind::kSubstring : MappingKind::kModule;
        rule.next = key;
        rule.base = value;
      }
    }
    mapping.rules.push_back(std::move(rule));
  }
  if (mapping.rules.empty()) {
    return InvalidInput(
        fmt::format("{}: no mapping rules\nhint: see docs/accuracy.md, Mapping", label));
  }
  for (size_t i = 0; i < mapping.rules.size(); ++i) {
    if (mapping.rules[i].kind == MappingKind::kCall) {
      mapping.call_index.emplace(mapping.rules[i].next, i);
    }
  }
  return mapping;
}

CallKey MatchKeyOfCall(std::string_view op, bool cross_framework, const ApiNameTable& table,
                       const AccuracyMapping* mapping) {
  CallKey out;
  std::string name(op);
  if (mapping != nullptr) {
    if (auto it = mapping->call_index.find(name); it != mapping->call_index.end()) {
      const MappingRule& r = mapping->rules[it->second];
      name = r.base;
      out.rule = fmt::format("{}:{}", mapping->file, r.line);
    } else if (IsModuleCall(name)) {
      name = ApplyModuleRules(*mapping, std::move(name), &out.rule);
    }
  }
  out.key = NormalisedOpName(name);
  if (!cross_framework) return out;
  if (out.key.starts_with("Cell.")) {
    out.key = "Module." + out.key.substr(5);
    if (out.rule.empty()) out.rule = "Cell = Module";
    return out;
  }
  if (out.key.starts_with("Module.")) return out;
  const std::vector<std::string_view> parts = DotParts(out.key);
  if (parts.size() < 2) return out;
  std::string_view api = parts[1];
  const std::string type_and_name = JoinDotParts(parts, 0, 2);
  if (const ApiNameRow* row = table.Find(type_and_name)) {
    const std::vector<std::string_view> mapped = DotParts(row->pytorch);
    api = mapped.size() > 1 ? mapped[1] : mapped[0];
    if (out.rule.empty()) {
      out.rule = fmt::format("{}:{} {} = {}", row->file, row->line, row->mindspore, row->pytorch);
    }
  } else if (out.rule.empty()) {
    out.rule = "API name across frameworks";
  }
  out.key = "api." + CanonicalApiName(api) + "." + std::string(parts.back());
  return out;
}

}  // namespace trainscope::analysis
