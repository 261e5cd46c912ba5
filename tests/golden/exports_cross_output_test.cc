// One analysis, five outputs: the text summary, --json, --html, --sqlite and
// --csv of the same run give every number they share the same value, after
// the unit each output's rule names (docs/exports.md, "Units and names"):
// the selected step's kernel counts, span and budget per rank, each rank's
// timeline span, every finding's gain and occurrences and each rank's own
// values of it, the collective table, the family shares. For the synth job,
// a corpus Ascend job (two of its ranks have no kernel_details.csv) and a
// corpus Kineto trace.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "corpus/corpus_inputs.h"
#include "golden/cli_test_util.h"
#include "golden/export_test_util.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

using CsvRow = std::map<std::string, std::string>;

// A JSON number with three decimals (report/json_writer.h) against the
// exact value: half a unit of the last decimal, and a double's error.
constexpr double kJsonRounding = 5e-4 + 1e-9;

// The rows of a CSV export, each by its header's names.
std::vector<CsvRow> ReadCrossCsv(const std::string& path) {
  const std::vector<std::vector<std::string>> lines = ReadExportCsv(path);
  std::vector<CsvRow> rows;
  for (size_t l = 1; l < lines.size(); ++l) {
    CsvRow row;
    for (size_t k = 0; k < lines[0].size() && k < lines[l].size(); ++k)
      row[lines[0][k]] = lines[l][k];
    rows.push_back(row);
  }
  return rows;
}

struct Outputs {
  std::string text, json, html, db, csv;
};

Outputs AnalyzeIntoEveryOutput(const std::string& input, const std::string& tag) {
  const std::string dir = MakeTempDir(tag);
  Outputs o;
  o.db = dir + "/job.db";
  o.csv = dir + "/tables";
  const CommandResult r =
      RunTrainscope({"analyze", input, "--json", dir + "/job.json", "--html", dir + "/job.html",
                     "--sqlite", o.db, "--csv", o.csv, "--threads", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  o.text = r.out;
  o.json = ReadFileBytes(dir + "/job.json");
  o.html = ReadFileBytes(dir + "/job.html");
  return o;
}

// A JSON number or null.
std::optional<double> Num(simdjson::dom::element e) {
  double d = 0;
  if (e.get(d) == simdjson::SUCCESS) return d;
  int64_t i = 0;
  if (e.get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  return std::nullopt;
}

std::optional<double> Cell(const CsvRow& row, const std::string& key) {
  const auto it = row.find(key);
  if (it == row.end() || it->second.empty()) return std::nullopt;
  return std::stod(it->second);
}

std::optional<double> SqlCell(const std::string& value) {
  if (value == "NULL") return std::nullopt;
  return std::stod(value);
}

// |a| and |b| both unknown, or both known within |tolerance| (the coarser
// output's rounding).
void ExpectSame(const std::optional<double>& a, const std::optional<double>& b, double tolerance,
                const std::string& what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (a) {
    EXPECT_NEAR(*a, *b, tolerance) << what;
  }
}

std::string StepText(const std::optional<double>& step) {
  return step ? fmt::format("{}", static_cast<int64_t>(*step)) : std::string("all");
}

const CsvRow* FindRow(const std::vector<CsvRow>& rows,
                      const std::vector<std::pair<std::string, std::string>>& keys) {
  for (const CsvRow& row : rows) {
    bool all = true;
    for (const auto& [k, v] : keys) all = all && row.count(k) && row.at(k) == v;
    if (all) return &row;
  }
  return nullptr;
}

void ExpectRanksAgree(const Outputs& o, simdjson::dom::element doc) {
  const std::vector<CsvRow> steps_csv = ReadCrossCsv(o.csv + "/steps.csv");
  const std::vector<CsvRow> budgets_csv = ReadCrossCsv(o.csv + "/budgets.csv");
  const std::vector<CsvRow> families_csv = ReadCrossCsv(o.csv + "/families.csv");
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["ranks"].get(ranks), simdjson::SUCCESS);
  const bool multi = ranks.size() > 1;
  for (simdjson::dom::element rank : ranks) {
    int64_t r = -1;
    ASSERT_EQ(rank["rank"].get(r), simdjson::SUCCESS);
    const std::optional<double> selected = Num(rank["selected_step"]);
    const std::string what = fmt::format("rank {} step {}", r, StepText(selected));
    SCOPED_TRACE(what);
    simdjson::dom::array steps;
    ASSERT_EQ(rank["steps"].get(steps), simdjson::SUCCESS);
    std::optional<simdjson::dom::element> step;
    for (simdjson::dom::element s : steps) {
      if (Num(s["step"]) == selected) step = s;
    }
    ASSERT_TRUE(step.has_value());
    const simdjson::dom::element k = (*step)["kernels"];
    // null (not 0) for a rank without any source of device events.
    const std::optional<double> count_known = Num(k["count"]);
    const int64_t count = count_known ? static_cast<int64_t>(*count_known) : 0;
    const std::optional<double> span_us = Num(k["span_us"]);

    // SQLite: ns; CSV: µs with three decimals; JSON: µs.
    const auto sql = SqliteRows(
        o.db, fmt::format("SELECT kernels, compute_kernels, communication_kernels, span_ns, "
                          "computation_ns, exposed_communication_ns, free_ns FROM steps WHERE "
                          "selected=1 AND rank={}",
                          r));
    ASSERT_EQ(sql.size(), 1u);
    const CsvRow* csv = FindRow(steps_csv, {{"rank", std::to_string(r)}, {"selected", "1"}});
    ASSERT_NE(csv, nullptr);
    for (const auto& [json_key, sql_column, csv_key] :
         {std::tuple{"count", 0, "kernels"}, std::tuple{"compute_count", 1, "compute_kernels"},
          std::tuple{"communication_count", 2, "communication_kernels"}}) {
      const std::optional<double> json = Num(k[json_key]);
      EXPECT_EQ(json.has_value(), count_known.has_value()) << json_key;
      ExpectSame(json, SqlCell(sql[0][sql_column]), 0, std::string("SQLite ") + csv_key);
      ExpectSame(json, Cell(*csv, csv_key), 0, std::string("CSV ") + csv_key);
    }
    const std::optional<double> span_ns = SqlCell(sql[0][3]);
    ExpectSame(span_us, span_ns ? std::optional<double>(*span_ns / 1e3) : std::nullopt, 1e-3,
               "span: JSON us vs SQLite ns");
    ExpectSame(span_us, Cell(*csv, "span_us"), kJsonRounding, "span: JSON vs CSV us");
    const simdjson::dom::element b = (*step)["breakdown"];
    const bool budget = !b.is_null();
    const char* budget_keys[][3] = {
        {"computation_us", "computation_ns", "computation_us"},
        {"exposed_communication_us", "exposed_communication_ns", "exposed_communication_us"},
        {"idle_us", "free_ns", "free_us"}};
    for (size_t i = 0; i < 3; ++i) {
      const std::optional<double> json = budget ? Num(b[budget_keys[i][0]]) : std::nullopt;
      const std::optional<double> ns = SqlCell(sql[0][4 + i]);
      ExpectSame(json, ns ? std::optional<double>(*ns / 1e3) : std::nullopt, 1e-3,
                 std::string("budget ") + budget_keys[i][1]);
      ExpectSame(json, Cell(*csv, budget_keys[i][2]), 1e-3,
                 std::string("budget ") + budget_keys[i][2]);
    }

    // Text and HTML, from the exact ns: the ranks table (several ranks), or
    // the rank's kernels line.
    const std::string count_text = count_known ? report::FormatCount(count) : "n/a";
    // A set-aside timeline has no span: n/a.
    const std::string span_text = span_ns ? report::FormatDurationNs(*span_ns) : "n/a";
    if (multi && count > 0) {
      EXPECT_NE(o.text.find(fmt::format("  rank {:<4} {:>6} {:>9} {:>11}", r, StepText(selected),
                                        count_text, span_text)),
                std::string::npos);
    }
    if (!multi && count > 0) {
      EXPECT_NE(o.text.find(fmt::format("  kernels     {} (", count_text)), std::string::npos);
    }
    // A rank without kernels: n/a (its kernel table missing) or 0, never a
    // 0 ns span.
    const std::string span_cell = count == 0 ? "n/a" : span_text;
    // Each number cell holds its raw value for the table sort (data-v; empty
    // when unknown, so that n/a sorts last).
    const std::string kernels_cell =
        count == 0 ? ""
                   : fmt::format("<td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>",
                                 static_cast<double>(count), count_text,
                                 span_ns ? fmt::format("{}", *span_ns) : std::string(), span_cell);
    const std::string row = fmt::format("<tr><td>{}</td><td>{}</td>", r, StepText(selected));
    const size_t at = o.html.find(row + "<td");
    ASSERT_NE(at, std::string::npos) << row;
    if (count > 0) {
      EXPECT_EQ(o.html.compare(at + row.size(), kernels_cell.size(), kernels_cell), 0)
          << o.html.substr(at, 200);
    } else {
      EXPECT_NE(o.html.substr(at, 200).find("<td>n/a</td><td>n/a</td><td>n/a</td>"),
                std::string::npos)
          << o.html.substr(at, 200);
    }

    // The timeline's span: JSON, rank_budgets, budgets.csv.
    const auto budget_sql =
        SqliteRows(o.db, fmt::format("SELECT span_ns FROM rank_budgets WHERE rank={}", r));
    ASSERT_EQ(budget_sql.size(), 1u);
    const CsvRow* budget_csv = FindRow(budgets_csv, {{"rank", std::to_string(r)}});
    ASSERT_NE(budget_csv, nullptr);
    const std::optional<double> timeline_span = Num(rank["timeline"]["span_us"]);
    if (timeline_span) {
      EXPECT_NEAR(*timeline_span, std::stod(budget_sql[0][0]) / 1e3, 1e-3);
      EXPECT_NEAR(*timeline_span, *Cell(*budget_csv, "span_us"), 1e-3);
    }

    // Family shares: the same fraction in the JSON and families.csv.
    simdjson::dom::array families;
    if ((*step)["families"].get(families) == simdjson::SUCCESS) {
      for (simdjson::dom::element f : families) {
        std::string_view name;
        ASSERT_EQ(f["name"].get(name), simdjson::SUCCESS);
        const CsvRow* fc =
            FindRow(families_csv, {{"rank", std::to_string(r)}, {"family", std::string(name)}});
        ASSERT_NE(fc, nullptr) << name;
        EXPECT_EQ(std::stoll(fc->at("count")), *Num(f["count"])) << name;
        ExpectSame(Num(f["share_time"]), Cell(*fc, "share_time"), 1e-6,
                   "share_time " + std::string(name));
      }
    }
  }
}

void ExpectFindingsAgree(const Outputs& o, simdjson::dom::element doc) {
  const std::vector<CsvRow> findings_csv = ReadCrossCsv(o.csv + "/findings.csv");
  const std::vector<CsvRow> ranks_csv = ReadCrossCsv(o.csv + "/finding_ranks.csv");
  const auto sql =
      SqliteRows(o.db, "SELECT id, estimated_gain_pct, occurrences FROM findings ORDER BY finding");
  simdjson::dom::array findings;
  ASSERT_EQ(doc["findings"].get(findings), simdjson::SUCCESS);
  ASSERT_EQ(sql.size(), findings.size());
  ASSERT_EQ(findings_csv.size(), findings.size());
  size_t i = 0;
  size_t html_at = 0;
  for (simdjson::dom::element f : findings) {
    std::string_view id;
    ASSERT_EQ(f["id"].get(id), simdjson::SUCCESS);
    SCOPED_TRACE(std::string(id));
    const CsvRow& csv = findings_csv[i];
    EXPECT_EQ(sql[i][0], id);
    EXPECT_EQ(csv.at("id"), id);
    EXPECT_EQ(csv.at("finding"), std::to_string(i + 1));
    const std::optional<double> gain = SqlCell(sql[i][1]);
    ExpectSame(Num(f["estimated_gain_pct"]), gain, 0.005, "gain: JSON vs SQLite");
    ExpectSame(Cell(csv, "estimated_gain_pct"), gain, 1e-9, "gain: CSV vs SQLite");
    EXPECT_EQ(std::stoll(sql[i][2]), *Num(f["occurrences"]));
    EXPECT_EQ(std::stoll(csv.at("occurrences")), *Num(f["occurrences"]));
    // Text: "  2.  13.1%  <title> ... (<id>)"; HTML: the gain, then the id.
    const std::string gain_text = gain ? fmt::format("{:.1f}%", *gain) : std::string("n/a");
    const std::string line =
        fmt::format("{:>3}. {}  ", i + 1, gain ? fmt::format("{:>5.1f}%", *gain) : "  n/a ");
    const size_t text_at = o.text.find(line);
    ASSERT_NE(text_at, std::string::npos) << line;
    const std::string text_line = o.text.substr(text_at, o.text.find('\n', text_at) - text_at);
    EXPECT_NE(text_line.find(fmt::format("({})", id)), std::string::npos) << text_line;
    html_at = o.html.find(fmt::format("<span class=\"gain\">{}</span>", gain_text), html_at);
    ASSERT_NE(html_at, std::string::npos) << gain_text;
    EXPECT_NE(o.html.substr(html_at, o.html.find("</div>", html_at) - html_at)
                  .find(fmt::format("<code>{}</code>", id)),
              std::string::npos);
    ++html_at;

    // Each rank's own values: JSON per_rank, SQLite finding_rows, CSV
    // finding_ranks.csv.
    simdjson::dom::array per_rank;
    ASSERT_EQ(f["per_rank"].get(per_rank), simdjson::SUCCESS);
    for (simdjson::dom::element own : per_rank) {
      const int64_t r = static_cast<int64_t>(*Num(own["rank"]));
      SCOPED_TRACE(r);
      const auto row = SqliteRows(
          o.db, fmt::format("SELECT values_of, estimated_gain_pct, occurrences FROM finding_rows "
                            "WHERE finding={} AND rank={}",
                            i + 1, r));
      ASSERT_EQ(row.size(), 1u);
      EXPECT_EQ(row[0][0], "rank");
      ExpectSame(Num(own["estimated_gain_pct"]), SqlCell(row[0][1]), 0.005, "own gain");
      EXPECT_EQ(std::stoll(row[0][2]), *Num(own["occurrences"]));
      const CsvRow* rc =
          FindRow(ranks_csv, {{"finding", std::to_string(i + 1)}, {"rank", std::to_string(r)}});
      ASSERT_NE(rc, nullptr);
      EXPECT_EQ(rc->at("values_of"), "rank");
      ExpectSame(Cell(*rc, "estimated_gain_pct"), SqlCell(row[0][1]), 1e-9, "own gain CSV");
    }
    ++i;
  }
}

void ExpectCollectivesAgree(const Outputs& o, simdjson::dom::element doc) {
  simdjson::dom::array collectives;
  if (doc["cluster"]["collectives"].get(collectives) != simdjson::SUCCESS) return;
  const std::vector<CsvRow> csv = ReadCrossCsv(o.csv + "/collectives.csv");
  ASSERT_EQ(csv.size(), collectives.size());
  size_t i = 0;
  for (simdjson::dom::element c : collectives) {
    std::string_view type;
    ASSERT_EQ(c["type"].get(type), simdjson::SUCCESS);
    SCOPED_TRACE(std::string(type));
    EXPECT_EQ(csv[i].at("type"), type);
    EXPECT_EQ(std::stoll(csv[i].at("count")), *Num(c["count"]));
    ExpectSame(Num(c["total_us"]), Cell(csv[i], "total_us"), 1e-3, "total_us");
    // The JSON's numbers have three decimals.
    ExpectSame(Num(c["mean_bytes"]), Cell(csv[i], "mean_bytes"), kJsonRounding, "mean_bytes");
    ExpectSame(Num(c["algbw_gbps"]), Cell(csv[i], "algbw_gbps"), kJsonRounding, "algbw_gbps");
    ExpectSame(Num(c["busbw_gbps"]), Cell(csv[i], "busbw_gbps"), kJsonRounding, "busbw_gbps");
    ++i;
  }
}

// A number as the text or HTML printed it ("12.3", "-995", "4.56 ms",
// "850 ns"), in µs for a duration, with half a unit of its last printed
// decimal as the tolerance; nullopt for "n/a".
struct Printed {
  double value = 0;
  double tolerance = 0;
};

std::optional<Printed> ParsePrinted(const std::string& cell, double unit_us) {
  if (cell == "n/a") return std::nullopt;
  size_t used = 0;
  const double number = std::stod(cell, &used);
  const std::string digits = cell.substr(0, used);
  const size_t dot = digits.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1);
  double scale = unit_us;
  const std::string unit = cell.substr(used);
  if (unit == " ns") scale = 1e-3;
  if (unit == " µs") scale = 1;
  if (unit == " ms") scale = 1e3;
  if (unit == " s") scale = 1e6;
  return Printed{number * scale, 0.5 * std::pow(10.0, -decimals) * scale + 1e-6};
}

// |json| (null or a number, in |json| units) as |printed| shows it.
void ExpectPrinted(simdjson::dom::element json, const std::string& printed, double unit_us,
                   const std::string& what) {
  const std::optional<double> j = Num(json);
  const std::optional<Printed> p = ParsePrinted(printed, unit_us);
  ASSERT_EQ(j.has_value(), p.has_value()) << what << ": JSON vs \"" << printed << "\"";
  if (j) {
    EXPECT_NEAR(*j, p->value, p->tolerance) << what << ": \"" << printed << "\"";
  }
}

// The fields of the text cluster table's row of |rank|, empty when absent
// (the table lists the 16 latest ranks).
std::vector<std::string> CrossClusterTextRow(const std::string& text, int64_t rank) {
  const size_t table = text.find("  rank  step ms  start +ms");
  if (table == std::string::npos) return {};
  const size_t at = text.find(fmt::format("\n  {:>4}  ", rank), table);
  if (at == std::string::npos) return {};
  const size_t end = text.find('\n', at + 1);
  std::vector<std::string> fields;
  std::string field;
  for (size_t i = at + 1; i < end; ++i) {
    if (text[i] == ' ') {
      if (!field.empty()) fields.push_back(field);
      field.clear();
    } else {
      field.push_back(text[i]);
    }
  }
  if (!field.empty()) fields.push_back(field);
  return fields;
}

// The cells of the HTML cross-rank table's row of |rank|.
std::vector<std::string> CrossClusterHtmlRow(const std::string& html, int64_t rank) {
  const size_t table = html.find("<th>mean lateness</th></tr>");
  if (table == std::string::npos) return {};
  const size_t at = html.find(fmt::format("<tr><td>{}</td>", rank), table);
  if (at == std::string::npos) return {};
  const size_t end = html.find("</tr>", at);
  std::vector<std::string> cells;
  for (size_t open = html.find("<td>", at); open < end; open = html.find("<td>", open)) {
    open += 4;
    std::string cell = html.substr(open, html.find("</td>", open) - open);
    // "12.3 ms <span class="muted">(step_trace_time.csv ...)</span>"
    if (const size_t span = cell.find(" <span"); span != std::string::npos) cell.resize(span);
    cells.push_back(cell);
  }
  return cells;
}

// The cross-rank numbers: the job line and each rank's row, the same in
// the JSON (µs), the text table (ms, µs) and the HTML table (durations).
void ExpectClusterAgrees(const Outputs& o, simdjson::dom::element doc) {
  const simdjson::dom::element c = doc["cluster"];
  bool present = false;
  if (c["present"].get(present) != simdjson::SUCCESS || !present) return;
  // "step time mean 293.1 ms, spread (max-min)/mean 1.0%; first-kernel skew n/a; step-start
  // wait mean n/a (max n/a)"
  const size_t line = o.text.find("  step time mean ");
  ASSERT_NE(line, std::string::npos);
  const std::string head = o.text.substr(line, o.text.find('\n', line) - line);
  auto after = [&head](const std::string& label, char stop) {
    const size_t at = head.find(label);
    if (at == std::string::npos) return std::string("missing");
    const size_t from = at + label.size();
    return head.substr(from, head.find(stop, from) - from);
  };
  ExpectPrinted(c["mean_step_time_us"], after("step time mean ", ','), 1, "mean step");
  const std::string spread = after("spread (max-min)/mean ", '%');
  ExpectPrinted(c["step_time_spread_pct"], spread, 1, "spread");
  ExpectPrinted(c["first_kernel_skew_us"], after("first-kernel skew ", ';'), 1, "skew");
  std::string mean_wait = after("step-start wait mean ", '(');
  if (mean_wait.ends_with(' ')) mean_wait.pop_back();
  ExpectPrinted(c["mean_step_start_wait_us"], mean_wait, 1, "mean wait");
  ExpectPrinted(c["max_step_start_wait_us"], after("(max ", ')'), 1, "max wait");
  // HTML: "Step time spread 1.0% (...), first-kernel skew n/a, step-start wait mean n/a / max
  // n/a."
  const size_t p = o.html.find("<p>Step time spread ");
  ASSERT_NE(p, std::string::npos);
  const std::string hp = o.html.substr(p, o.html.find("</p>", p) - p);
  auto html_after = [&hp](const std::string& label, const std::string& stop) {
    const size_t at = hp.find(label);
    if (at == std::string::npos) return std::string("missing");
    const size_t from = at + label.size();
    return hp.substr(from, hp.find(stop, from) - from);
  };
  ExpectPrinted(c["step_time_spread_pct"], html_after("Step time spread ", "%"), 1, "HTML spread");
  ExpectPrinted(c["first_kernel_skew_us"], html_after("first-kernel skew ", ","), 1, "HTML skew");
  ExpectPrinted(c["mean_step_start_wait_us"], html_after("step-start wait mean ", " / "), 1,
                "HTML mean wait");
  // The paragraph ends with the max and a full stop.
  const size_t max_at = hp.find(" / max ");
  ASSERT_NE(max_at, std::string::npos);
  ExpectPrinted(c["max_step_start_wait_us"], hp.substr(max_at + 7, hp.size() - max_at - 8), 1,
                "HTML max wait");
  // Text columns (ms unless named) and HTML columns, each with its JSON key.
  static const std::pair<const char*, double> kTextColumns[] = {
      {"step_time_us", 1e3},  {"step_start_offset_us", 1e3}, {"step_start_wait_us", 1e3},
      {"comm_us", 1e3},       {"exposed_comm_us", 1e3},      {"pseudo_overlap_us", 1e3},
      {"collectives", 1},     {"shortest_flags", 1},         {"last_arrivals", 1},
      {"mean_lateness_us", 1}};
  static const char* const kHtmlColumns[] = {
      "step_time_us",      "step_start_offset_us", "step_start_wait_us", "exposed_comm_us",
      "pseudo_overlap_us", "collectives",          "last_arrivals",      "mean_lateness_us"};
  simdjson::dom::array per_rank;
  ASSERT_EQ(c["per_rank"].get(per_rank), simdjson::SUCCESS);
  for (simdjson::dom::element r : per_rank) {
    const auto rank = static_cast<int64_t>(*Num(r["rank"]));
    SCOPED_TRACE(fmt::format("cluster rank {}", rank));
    const std::vector<std::string> text = CrossClusterTextRow(o.text, rank);
    if (!text.empty() || per_rank.size() <= 16) {
      ASSERT_GE(text.size(), 11u);
      EXPECT_EQ(text[0], std::to_string(rank));
      for (size_t i = 0; i < std::size(kTextColumns); ++i) {
        ExpectPrinted(r[kTextColumns[i].first], text[i + 1], kTextColumns[i].second,
                      std::string("text ") + kTextColumns[i].first);
      }
    }
    const std::vector<std::string> html = CrossClusterHtmlRow(o.html, rank);
    ASSERT_EQ(html.size(), std::size(kHtmlColumns) + 1);
    for (size_t i = 0; i < std::size(kHtmlColumns); ++i) {
      ExpectPrinted(r[kHtmlColumns[i]], html[i + 1], 1, std::string("HTML ") + kHtmlColumns[i]);
    }
  }
}

void ExpectEveryOutputAgrees(const std::string& input, const std::string& tag) {
  const Outputs o = AnalyzeIntoEveryOutput(input, tag);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(o.json).get(doc), simdjson::SUCCESS);
  ExpectRanksAgree(o, doc);
  ExpectFindingsAgree(o, doc);
  ExpectCollectivesAgree(o, doc);
  ExpectClusterAgrees(o, doc);
  // Text durations use the symbol µs, never "us".
  for (const char* ascii : {"0 us ", "0 us)", "0 us,", "0us "}) {
    EXPECT_EQ(o.text.find(ascii), std::string::npos) << ascii;
  }
}

TEST(ExportsCrossOutput, TheSynthJobGivesEveryOutputTheSameNumbers) {
  const std::string dir = MakeTempDir("cross-synth");
  const CommandResult r = RunTrainscope({"synth", "--out", dir + "/job", "--ranks", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectEveryOutputAgrees(dir + "/job", "cross-synth-out");
}

TEST(ExportsCrossOutput, ACorpusAscendJobGivesEveryOutputTheSameNumbers) {
  TS_REQUIRE_CORPUS(kQwenLevel2Job);
  ExpectEveryOutputAgrees(corpus_path + "/" + kQwenLevel2Job, "cross-ascend");
}

// Both ranks' device timelines set aside: the cross-rank numbers that
// would be read off them are unknown in every output alike.
TEST(ExportsCrossOutput, ACorpusAscendJobWithSetAsideTimelinesGivesEveryOutputTheSameNumbers) {
  const std::string job = "ascend/msinsight-server-testdata-gpt3-2rank-oldformat";
  TS_REQUIRE_CORPUS(job);
  ExpectEveryOutputAgrees(corpus_path + "/" + job, "cross-ascend-aside");
}

TEST(ExportsCrossOutput, ACorpusKinetoTraceGivesEveryOutputTheSameNumbers) {
  TS_REQUIRE_CORPUS("kineto/hta_ddp_2rank_a100_rank0_nccl_metadata");
  ExpectEveryOutputAgrees(corpus_path + "/kineto/hta_ddp_2rank_a100_rank0_nccl_metadata",
                          "cross-kineto");
}

}  // namespace
}  // namespace trainscope::testing

namespace trainscope::testing {
namespace {

// A rank with step_trace_time.csv but no kernel_details.csv: its kernels are
// unknown, not absent, so every output says so (null, NULL, an empty CSV
// cell, "n/a"), never 0; its budget is step_trace_time.csv's.
TEST(ExportsCrossOutput, ARankWithoutKernelDetailsHasUnknownKernelCountsInEveryOutput) {
  const std::string input = SourceDir() + "/tests/golden/cases/ascend_text/step_trace_only/input";
  const Outputs o = AnalyzeIntoEveryOutput(input, "cross-no-kernels");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(o.json).get(doc), simdjson::SUCCESS);
  std::string_view schema;
  ASSERT_EQ(doc["schema"].get(schema), simdjson::SUCCESS);
  EXPECT_EQ(schema, "trainscope.analysis/3");
  const simdjson::dom::element k = doc["ranks"].at(0)["steps"].at(1)["kernels"];
  for (const char* key : {"count", "compute_count", "communication_count", "total_time_us"}) {
    EXPECT_TRUE(k[key].is_null()) << key;
  }
  const auto sql = SqliteRows(o.db,
                              "SELECT kernels, compute_kernels, communication_kernels, "
                              "kernel_time_ns, window_ns FROM steps WHERE selected=1");
  ASSERT_EQ(sql.size(), 1u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(sql[0][i], "NULL") << i;
  // The budget stands: step_trace_time.csv's Computing + Communication(Not
  // Overlapped) + Free of step 6, 1858.5 + 800 + 160 us.
  EXPECT_EQ(sql[0][4], "2818500");
  const std::vector<CsvRow> steps = ReadCrossCsv(o.csv + "/steps.csv");
  const CsvRow* row = FindRow(steps, {{"selected", "1"}});
  ASSERT_NE(row, nullptr);
  for (const char* key : {"kernels", "compute_kernels", "communication_kernels", "kernel_time_us"})
    EXPECT_EQ(row->at(key), "") << key;
  EXPECT_NE(o.text.find("kernels     n/a"), std::string::npos);
  EXPECT_EQ(o.text.find("holds 0 kernels"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::testing
