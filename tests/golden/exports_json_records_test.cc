// The exported records (export/records.h) and the analysis JSON carry the
// same numbers: for every record whose rows the JSON also has (its
// JsonView), each SQLite row and each CSV row is found in the JSON by its
// key columns, and each of its columns equals its JSON field after the unit
// conversion the declarations name (a column's unit; the JSON field's
// suffix: _us, _ms, _ns, _pct); the schema of the JSON declares every such
// field. The JSON fields come from the declarations: a column's own name (a
// time column's _ns / _us as _us), else the JsonField declared beside the
// record. On a synth job, without the corpus.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "export/records.h"
#include "golden/cli_test_util.h"
#include "golden/export_test_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

using exports::Column;
using exports::ColumnType;
using exports::JsonField;
using exports::JsonView;
using exports::Record;

// One JSON row and the rows enclosing it, outermost first, each with its
// position in its array (0 for an object that is no array's element).
struct JsonLevel {
  simdjson::dom::element value;
  size_t index = 0;
};
using JsonRow = std::vector<JsonLevel>;

// Every row of |view|'s path below |doc|.
void CollectRows(std::string_view path, JsonRow row, std::vector<JsonRow>* out) {
  if (path.empty()) {
    out->push_back(row);
    return;
  }
  const size_t dot = path.find('.');
  std::string_view segment = path.substr(0, dot);
  const std::string_view rest = dot == std::string_view::npos ? "" : path.substr(dot + 1);
  const bool array = segment.ends_with("[]");
  if (array) segment.remove_suffix(2);
  simdjson::dom::element value;
  if (row.back().value[segment].get(value) != simdjson::SUCCESS || value.is_null()) return;
  if (!array) {  // one object per enclosing row, a level of its own
    row.push_back({value, 0});
    CollectRows(rest, row, out);
    return;
  }
  simdjson::dom::array items;
  if (value.get(items) != simdjson::SUCCESS) return;
  size_t i = 0;
  for (simdjson::dom::element item : items) {
    JsonRow next = row;
    next.push_back({item, i++});
    CollectRows(rest, next, out);
  }
}

// A column's JSON field, by the rule or as declared beside the record;
// nullopt when declared absent.
std::optional<std::string_view> JsonPathOf(const JsonView& view, const Column& column,
                                           std::string* derived) {
  for (const JsonField& f : view.fields) {
    if (f.column == column.name) {
      if (f.json.empty()) return std::nullopt;
      return f.json;
    }
  }
  *derived = std::string(column.name);
  if (derived->ends_with("_ns")) derived->replace(derived->size() - 3, 3, "_us");
  return *derived;
}

// The value at |path| in |row|: nullopt when the JSON has no such field; a
// null element along the way is the value (an unknown object's field).
struct ResolvedField {
  bool found = false;
  bool null = false;
  bool is_index = false;
  size_t index = 0;
  simdjson::dom::element value;
};

ResolvedField ResolveJsonField(const JsonRow& row, std::string_view path) {
  ResolvedField r;
  size_t level = row.size() - 1;
  while (path.starts_with("../")) {
    if (level == 0) return r;
    --level;
    path.remove_prefix(3);
  }
  if (path == "#0" || path == "#1") {
    r.found = true;
    r.is_index = true;
    r.index = row[level].index + (path == "#1" ? 1 : 0);
    return r;
  }
  simdjson::dom::element at = row[level].value;
  while (!path.empty()) {
    if (at.is_null()) {
      r.found = true;
      r.null = true;
      return r;
    }
    const size_t dot = path.find('.');
    const std::string_view key = path.substr(0, dot);
    path = dot == std::string_view::npos ? "" : path.substr(dot + 1);
    if (at[key].get(at) != simdjson::SUCCESS) return r;
  }
  r.found = true;
  r.null = at.is_null();
  r.value = at;
  return r;
}

// The unit a JSON field's name says; else the column's.
std::string_view JsonFieldUnit(std::string_view path, std::string_view column_unit) {
  const size_t dot = path.rfind('.');
  const std::string_view name = dot == std::string_view::npos ? path : path.substr(dot + 1);
  if (name.ends_with("_us")) return "us";
  if (name.ends_with("_ms")) return "ms";
  if (name.ends_with("_ns")) return "ns";
  if (name.ends_with("_pct")) return "pct";
  return column_unit;
}

std::optional<double> MicrosecondsPerUnit(std::string_view unit) {
  if (unit == "ns") return 1e-3;
  if (unit == "us") return 1.0;
  if (unit == "ms") return 1e3;
  return std::nullopt;
}

// The factor that takes a value in |from| to |to|; nullopt when the units
// do not convert.
std::optional<double> UnitConversion(std::string_view from, std::string_view to) {
  if (from == to) return 1.0;
  if (MicrosecondsPerUnit(from) && MicrosecondsPerUnit(to))
    return *MicrosecondsPerUnit(from) / *MicrosecondsPerUnit(to);
  if (from == "fraction" && to == "pct") return 100.0;
  if (from == "pct" && to == "fraction") return 0.01;
  return std::nullopt;
}

// The larger rounding of the two outputs, in the JSON's unit: the JSON
// writes shares with six decimals, percentages with two, evidence values
// with four and everything else with three, the CSV times with three.
double RecordTolerance(std::string_view json_unit, double value) {
  double abs = 1.001e-3;
  if (json_unit == "fraction") abs = 1.001e-6;
  if (json_unit == "pct") abs = 5.001e-3;
  return abs + 1e-9 * std::fabs(value);
}

// "k=v; k=v" (CSV) or a JSON object (SQLite) against the JSON's object.
std::string CompareEvidence(const std::string& text, simdjson::dom::object json) {
  std::vector<std::pair<std::string, std::string>> pairs;
  simdjson::dom::parser parser;
  if (text.starts_with("{")) {
    simdjson::dom::element doc;
    if (parser.parse(text).get(doc) != simdjson::SUCCESS) return "evidence does not parse";
    simdjson::dom::object object;
    if (doc.get(object) != simdjson::SUCCESS) return "evidence is no object";
    for (auto [key, value] : object)
      pairs.emplace_back(std::string(key), simdjson::to_string(value));
  } else {
    size_t at = 0;
    while (at < text.size()) {
      size_t end = text.find("; ", at);
      if (end == std::string::npos) end = text.size();
      const std::string item = text.substr(at, end - at);
      const size_t eq = item.find('=');
      if (eq == std::string::npos) return "evidence item without '=': " + item;
      pairs.emplace_back(item.substr(0, eq), item.substr(eq + 1));
      at = end + 2;
    }
  }
  if (pairs.size() != json.size())
    return fmt::format("{} evidence values, the JSON has {}", pairs.size(), json.size());
  for (const auto& [key, value] : pairs) {
    simdjson::dom::element j;
    if (json[key].get(j) != simdjson::SUCCESS) return "evidence value not in the JSON: " + key;
    double expected = 0;
    if (j.get(expected) != simdjson::SUCCESS) continue;  // a list: compared as text elsewhere
    const double got = std::stod(value);
    if (std::fabs(got - expected) > 5.001e-5 + 1e-9 * std::fabs(expected))
      return fmt::format("evidence {}: {} against the JSON's {}", key, value, expected);
  }
  return "";
}

// "" when the export's |cell| (|null|: NULL or an empty CSV cell) and the
// JSON's |json| are the same value of |column|, else why not.
std::string CompareRecordCell(const Column& column, const std::string& cell, bool null,
                              std::string_view path, const ResolvedField& json) {
  if (!json.found) return "no such JSON field";
  if (json.is_index) {
    return !null && std::stoll(cell) == static_cast<int64_t>(json.index)
               ? ""
               : fmt::format("{} against the row's position {}", cell, json.index);
  }
  const auto type = json.null ? simdjson::dom::element_type::NULL_VALUE : json.value.type();
  if (column.type == ColumnType::kText) {
    // A NULL, an empty CSV cell, a JSON null and "" all say "not known".
    std::string_view text;
    if (type == simdjson::dom::element_type::STRING && json.value.get(text) == simdjson::SUCCESS) {
      if (null || cell.empty()) return text.empty() ? "" : fmt::format("NULL against \"{}\"", text);
      return text == cell ? "" : fmt::format("\"{}\" against \"{}\"", cell, text);
    }
    if (type == simdjson::dom::element_type::NULL_VALUE)
      return null || cell.empty() ? "" : fmt::format("\"{}\" against null", cell);
    if (type == simdjson::dom::element_type::ARRAY) {  // ranks: space-separated
      std::string joined;
      for (simdjson::dom::element e : json.value.get_array()) {
        if (!joined.empty()) joined += ' ';
        joined += simdjson::to_string(e);
      }
      return joined == cell ? "" : fmt::format("\"{}\" against [{}]", cell, joined);
    }
    if (type == simdjson::dom::element_type::OBJECT) {
      if (null) return json.value.get_object().size() == 0 ? "" : "NULL against values";
      return CompareEvidence(cell, json.value.get_object());
    }
    return "a text column against a JSON " + simdjson::to_string(json.value);
  }
  if (type == simdjson::dom::element_type::NULL_VALUE)
    return null ? "" : fmt::format("{} against null", cell);
  if (null) return "NULL against " + simdjson::to_string(json.value);
  double expected = 0;
  if (type == simdjson::dom::element_type::BOOL) {
    expected = json.value.get_bool().value() ? 1 : 0;
  } else if (json.value.get(expected) != simdjson::SUCCESS) {
    int64_t i = 0;
    uint64_t u = 0;
    if (json.value.get(i) == simdjson::SUCCESS) {
      expected = static_cast<double>(i);
    } else if (json.value.get(u) == simdjson::SUCCESS) {
      expected = static_cast<double>(u);
    } else {
      return "a number against " + simdjson::to_string(json.value);
    }
  }
  const std::string_view json_unit = JsonFieldUnit(path, column.unit);
  const std::optional<double> factor = UnitConversion(column.unit, json_unit);
  if (!factor)
    return fmt::format("unit {} does not convert to the JSON field's {}", column.unit, json_unit);
  const double got = std::stod(cell) * *factor;
  return std::fabs(got - expected) <= RecordTolerance(json_unit, expected)
             ? ""
             : fmt::format("{} {} is {} {}, the JSON has {}", cell, column.unit, got, json_unit,
                           expected);
}

// The schema's node of the JSON path |path| (dotted, "[]" for an array's
// items), starting at |node|; false when the schema does not declare it.
bool SchemaNode(simdjson::dom::element node, std::string_view path, simdjson::dom::element* out) {
  while (!path.empty()) {
    const size_t dot = path.find('.');
    std::string_view segment = path.substr(0, dot);
    path = dot == std::string_view::npos ? "" : path.substr(dot + 1);
    const bool array = segment.ends_with("[]");
    if (array) segment.remove_suffix(2);
    if (node["properties"][segment].get(node) != simdjson::SUCCESS) return false;
    if (array && node["items"].get(node) != simdjson::SUCCESS) return false;
  }
  *out = node;
  return true;
}

// The rows path of the level |ups| above the row (0: the row's own): each
// dotted segment of the rows path is one level.
std::string RowsPathAbove(std::string_view rows, size_t ups) {
  std::vector<std::string_view> segments;
  for (size_t at = 0; at <= rows.size();) {
    size_t end = rows.find('.', at);
    if (end == std::string_view::npos) end = rows.size();
    segments.push_back(rows.substr(at, end - at));
    at = end + 1;
  }
  std::string out;
  for (size_t i = 0; i + ups < segments.size(); ++i) {
    if (!out.empty()) out += '.';
    out += segments[i];
  }
  return out;
}

struct RecordOutputs {
  std::string json;
  std::string db;
  std::string csv_dir;
};

RecordOutputs AnalyzeIntoRecords(const std::string& input, const std::string& dir) {
  RecordOutputs o{dir + "/job.json", dir + "/job.db", dir + "/tables"};
  const CommandResult r = RunTrainscope(
      {"analyze", input, "--json", o.json, "--sqlite", o.db, "--csv", o.csv_dir, "--threads", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return o;
}

RecordOutputs AnalyzeSynthIntoRecords(const std::string& tag,
                                      const std::vector<std::string>& synth_args) {
  const std::string dir = MakeTempDir(tag);
  std::vector<std::string> synth = {"synth", "--out", dir + "/job"};
  synth.insert(synth.end(), synth_args.begin(), synth_args.end());
  const CommandResult s = RunTrainscope(synth);
  EXPECT_EQ(s.exit_code, 0) << s.err;
  return AnalyzeIntoRecords(dir + "/job", dir);
}

std::vector<Record> RecordsWithJson(bool csv) {
  std::vector<Record> out;
  if (csv) {
    out.assign(std::begin(exports::kCsvFiles), std::end(exports::kCsvFiles));
  } else {
    out.assign(std::begin(exports::kSqliteTables), std::end(exports::kSqliteTables));
    out.push_back(exports::kFindingRowsView);
  }
  return out;
}

// Checks every row of |record| (|rows|: its cells in declared order) against
// the JSON; returns the rows checked.
size_t ExpectRecordMatchesJson(const Record& record, bool csv,
                               const std::vector<std::vector<std::string>>& rows,
                               simdjson::dom::element doc) {
  const JsonView& view = *record.json;
  std::vector<JsonRow> json_rows;
  CollectRows(view.rows, JsonRow{{doc, 0}}, &json_rows);
  std::vector<std::string> derived(record.columns.size());
  std::vector<std::optional<std::string_view>> paths;
  for (size_t c = 0; c < record.columns.size(); ++c)
    paths.push_back(JsonPathOf(view, record.columns[c], &derived[c]));
  std::vector<size_t> keys;
  for (std::string_view key : view.keys) {
    for (size_t c = 0; c < record.columns.size(); ++c) {
      if (record.columns[c].name == key) keys.push_back(c);
    }
  }
  EXPECT_EQ(keys.size(), view.keys.size()) << record.name << ": a key is no column";
  auto is_null = [csv](const std::string& cell) { return csv ? cell.empty() : cell == "NULL"; };
  size_t elsewhere = record.columns.size();
  for (size_t c = 0; c < record.columns.size(); ++c) {
    if (!view.elsewhere_column.empty() && record.columns[c].name == view.elsewhere_column)
      elsewhere = c;
  }
  EXPECT_EQ(elsewhere == record.columns.size(), view.elsewhere_column.empty()) << record.name;
  size_t checked = 0;
  for (const std::vector<std::string>& row : rows) {
    if (row.size() != record.columns.size()) {
      ADD_FAILURE() << record.name << ": a row of " << row.size() << " cells";
      continue;
    }
    if (elsewhere < row.size() &&
        (view.elsewhere_value == "NULL" ? is_null(row[elsewhere])
                                        : row[elsewhere] == view.elsewhere_value)) {
      continue;  // not among these JSON rows (elsewhere_why)
    }
    const JsonRow* match = nullptr;
    for (const JsonRow& candidate : json_rows) {
      bool all = true;
      for (size_t k : keys) {
        all = all && paths[k] &&
              CompareRecordCell(record.columns[k], row[k], is_null(row[k]), *paths[k],
                                ResolveJsonField(candidate, *paths[k]))
                  .empty();
      }
      if (all) {
        match = &candidate;
        break;
      }
    }
    std::string key_text;
    for (size_t k : keys) key_text += fmt::format(" {}={}", record.columns[k].name, row[k]);
    if (match == nullptr) {
      ADD_FAILURE() << record.name << (csv ? ".csv" : "") << ": no JSON row at " << view.rows
                    << " with" << key_text;
      continue;
    }
    ++checked;
    for (size_t c = 0; c < record.columns.size(); ++c) {
      if (!paths[c]) continue;
      const std::string why = CompareRecordCell(record.columns[c], row[c], is_null(row[c]),
                                                *paths[c], ResolveJsonField(*match, *paths[c]));
      EXPECT_EQ(why, "") << record.name << (csv ? ".csv" : "") << "." << record.columns[c].name
                         << " (JSON " << view.rows << " " << *paths[c] << ") at" << key_text;
    }
  }
  return checked;
}

void ExpectExportsMatchJson(const RecordOutputs& o, size_t* rows_checked) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(o.json).get(doc), simdjson::SUCCESS);
  for (bool csv : {false, true}) {
    for (const Record& record : RecordsWithJson(csv)) {
      if (record.json == nullptr) continue;
      SCOPED_TRACE(fmt::format("{}{}", record.name, csv ? ".csv" : ""));
      std::vector<std::vector<std::string>> rows;
      if (csv) {
        rows = ReadExportCsv(o.csv_dir + "/" + std::string(record.name) + ".csv");
        ASSERT_FALSE(rows.empty());
        rows.erase(rows.begin());  // the header (ExportRecords checks it)
      } else {
        rows = SqliteRows(o.db, fmt::format("SELECT * FROM {}", record.name));
      }
      rows_checked[csv ? 1 : 0] += ExpectRecordMatchesJson(record, csv, rows, doc);
    }
  }
}

TEST(ExportRecordsJson, EveryExportedRowHasTheJsonValues) {
  const RecordOutputs o = AnalyzeSynthIntoRecords("records-json", {"--ranks", "2"});
  size_t rows[2] = {0, 0};
  ExpectExportsMatchJson(o, rows);
  EXPECT_GT(rows[0], 0u);
  EXPECT_GT(rows[1], 0u);
}

// Set-aside timelines: what the JSON has as null (the timeline's span and
// lanes) is NULL and an empty cell, not 0.
TEST(ExportRecordsJson, ACorpusAscendJobWithSetAsideTimelinesHasTheJsonValues) {
  const std::string job = "ascend/msinsight-server-testdata-gpt3-2rank-oldformat";
  TS_REQUIRE_CORPUS(job);
  const RecordOutputs o =
      AnalyzeIntoRecords(corpus_path + "/" + job, MakeTempDir("records-json-aside"));
  size_t rows[2] = {0, 0};
  ExpectExportsMatchJson(o, rows);
  EXPECT_GT(rows[0], 0u);
  EXPECT_GT(rows[1], 0u);
}

// Every JSON field a declaration names (by the rule or beside the record)
// is in the analysis schema, at the record's rows.
TEST(ExportRecordsJson, TheSchemaDeclaresEveryMappedField) {
  simdjson::dom::parser parser;
  simdjson::dom::element schema;
  ASSERT_EQ(parser.load(SourceDir() + "/docs/schema/trainscope.analysis.schema.json").get(schema),
            simdjson::SUCCESS);
  std::vector<std::string> unchecked;
  for (bool csv : {false, true}) {
    for (const Record& record : RecordsWithJson(csv)) {
      const std::string name = fmt::format("{}{}", record.name, csv ? ".csv" : "");
      if (record.json == nullptr) {
        unchecked.push_back(name + " (not in the analysis JSON)");
        continue;
      }
      const JsonView& view = *record.json;
      if (!view.elsewhere_why.empty())
        unchecked.push_back(fmt::format("{} rows where {} is {} ({})", name, view.elsewhere_column,
                                        view.elsewhere_value, view.elsewhere_why));
      simdjson::dom::element rows_node;
      ASSERT_TRUE(SchemaNode(schema, view.rows, &rows_node)) << name << ": " << view.rows;
      for (const Column& column : record.columns) {
        std::string derived;
        const std::optional<std::string_view> path = JsonPathOf(view, column, &derived);
        if (!path) {
          unchecked.push_back(fmt::format("{}.{}", name, column.name));
          continue;
        }
        if (*path == "#0" || *path == "#1" || path->ends_with("/#0") || path->ends_with("/#1"))
          continue;
        std::string_view field = *path;
        size_t ups = 0;
        while (field.starts_with("../")) {
          field.remove_prefix(3);
          ++ups;
        }
        const std::string above = RowsPathAbove(view.rows, ups);
        const std::string full =
            above.empty() ? std::string(field) : above + "." + std::string(field);
        simdjson::dom::element node;
        EXPECT_TRUE(SchemaNode(schema, full, &node))
            << name << "." << column.name << ": " << full << " is not in the schema";
      }
    }
  }
  // What no test compares with the JSON: printed, for the record.
  std::string list;
  for (const std::string& u : unchecked) list += "\n  " + u;
  RecordProperty("unchecked", list);
  std::cout << "columns the analysis JSON does not carry:" << list << "\n";
}

}  // namespace
}  // namespace trainscope::testing
