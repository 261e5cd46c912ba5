// A finding seen on several ranks, each in its own band: exposed
// communication of 26.98% of the step on rank 1 (above the 20% "examine"
// line) and of 18.3% and 17.9% on ranks 2 and 3 (the 10-20% "watch" band,
// data/thresholds.tsv). Every output gives each rank its own numbers, and
// the "must be examined" title names rank 1 alone.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/common/findings_catalog.h"
#include "analysis/findings/fingerprint_findings.h"
#include "export/csv_export.h"
#include "export/sqlite_export.h"
#include "golden/cli_test_util.h"
#include "golden/export_test_util.h"
#include "report/json_report.h"
#include "report/sections.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

using analysis::Finding;

// One rank's exposed-communication finding, as the detector emits it for
// a 100 ms step (threshold_findings.cc): gain = share above the 10% line.
Finding ExposedOnRank(int32_t rank, double exposed_pct) {
  Finding f;
  f.id = "exposed-communication";
  f.ranks = {rank};
  f.occurrences = 1;
  if (exposed_pct > 20) f.variant = "examine";
  f.evidence_values = {{"exposed_communication_pct", exposed_pct},
                       {"exposed_communication_ms", exposed_pct},
                       {"step_ms", 100.0}};
  f.text_values = {{"step", 7}, {"communication_ms", exposed_pct + 5}};
  f.estimated_gain_pct = exposed_pct - 10;
  return f;
}

analysis::JobAnalysis JobWithBands() {
  std::vector<std::vector<Finding>> per_rank = {
      {}, {ExposedOnRank(1, 26.98)}, {ExposedOnRank(2, 18.3)}, {ExposedOnRank(3, 17.9)}};
  for (auto& findings : per_rank) {
    analysis::RenderFindings(analysis::FindingCatalog::Builtin(), &findings,
                             model::Platform::kUnknown);
  }
  analysis::JobAnalysis job;
  for (int32_t r = 0; r < 4; ++r) {
    analysis::RankAnalysis rank;
    rank.header.rank = r;
    rank.selected_step = 7;
    job.ranks.push_back(std::move(rank));
  }
  job.findings = analysis::MergeRankFindings(std::move(per_rank));
  return job;
}

TEST(FindingRanks, EachRankKeepsItsOwnValuesAndTheTitleNamesOnlyTheRanksItIsTrueOf) {
  const analysis::JobAnalysis job = JobWithBands();
  ASSERT_EQ(job.findings.size(), 1u);
  const Finding& f = job.findings[0];
  EXPECT_NE(f.title.find("must be examined"), std::string::npos) << f.title;
  EXPECT_EQ(f.ranks, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(analysis::RanksMeetingTitle(f), (std::vector<int32_t>{1}));
  const auto others = analysis::RanksWithOtherTitles(f);
  ASSERT_EQ(others.size(), 1u);
  EXPECT_EQ(others[0].second, (std::vector<int32_t>{2, 3}));
  EXPECT_NE(others[0].first.find("normal band"), std::string::npos) << others[0].first;
  ASSERT_EQ(f.per_rank.size(), 3u);
  const double own_pct[] = {26.98, 18.3, 17.9};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(f.per_rank[i].rank, static_cast<int32_t>(i + 1));
    EXPECT_DOUBLE_EQ(f.per_rank[i].evidence_values.front().second, own_pct[i]);
    EXPECT_DOUBLE_EQ(f.per_rank[i].estimated_gain_pct, own_pct[i] - 10);
  }
  // The merged gain: the mean of the three ranks' (16.98 + 8.3 + 7.9) / 3.
  EXPECT_NEAR(f.estimated_gain_pct, 11.06, 1e-9);

  // Text: the title's ranks in brackets, the others under their own title.
  std::string text;
  report::RenderPortraitText(text, job, report::TextReportOptions{});
  EXPECT_NE(text.find("must be examined [rank 1]  (exposed-communication)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("also:     [ranks 2, 3]: Exposed communication above the 10% normal band"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("[ranks 1-3]"), std::string::npos) << text;

  // JSON: per_rank with each rank's own values.
  const std::string json = report::RenderJson(job, "test");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::array per_rank;
  ASSERT_EQ(doc["findings"].at(0)["per_rank"].get(per_rank), simdjson::SUCCESS);
  ASSERT_EQ(per_rank.size(), 3u);
  int64_t rank = 0;
  std::string_view title;
  double gain = 0, pct = 0;
  ASSERT_EQ(per_rank.at(1)["rank"].get(rank), simdjson::SUCCESS);
  ASSERT_EQ(per_rank.at(1)["title"].get(title), simdjson::SUCCESS);
  ASSERT_EQ(per_rank.at(1)["estimated_gain_pct"].get(gain), simdjson::SUCCESS);
  ASSERT_EQ(per_rank.at(1)["evidence_values"]["exposed_communication_pct"].get(pct),
            simdjson::SUCCESS);
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(title, "Exposed communication above the 10% normal band");
  EXPECT_DOUBLE_EQ(gain, 8.3);
  EXPECT_DOUBLE_EQ(pct, 18.3);
}

TEST(FindingRanks, SqliteAndCsvRowsCarryEachRanksOwnValues) {
  const analysis::JobAnalysis job = JobWithBands();
  const std::string db = MakeTempDir("finding-ranks") + "/job.db";
  auto out = exports::SqliteExport::Open(db);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE((*out)->Finish(job, {}, "test").ok());
  const auto rows = SqliteRows(db,
                               "SELECT rank, step, values_of, estimated_gain_pct, "
                               "json_extract(evidence_json, '$.exposed_communication_pct'), title "
                               "FROM finding_rows ORDER BY rank");
  ASSERT_EQ(rows.size(), 3u);
  const char* pct[] = {"26.98", "18.3", "17.9"};
  const char* gain[] = {"16.98", "8.3", "7.9"};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(rows[i][0], std::to_string(i + 1));
    EXPECT_EQ(rows[i][1], "7");
    EXPECT_EQ(rows[i][2], "rank");
    EXPECT_NEAR(std::stod(rows[i][3]), std::stod(gain[i]), 1e-9);
    EXPECT_EQ(rows[i][4], pct[i]);
    EXPECT_EQ(rows[i][5].find("must be examined") != std::string::npos, i == 0) << rows[i][5];
  }

  std::string csv;
  for (const auto& [name, content] : exports::RenderCsvTables(job)) {
    if (name == "finding_ranks.csv") csv = content;
  }
  EXPECT_EQ(csv.substr(0, csv.find("\r\n")),
            "finding,id,rank,step,values_of,title,estimated_gain_pct,occurrences,evidence_values");
  EXPECT_NE(csv.find("\r\n1,exposed-communication,2,7,rank,Exposed communication above the 10% "
                     "normal band,8.3,1,exposed_communication_pct=18.3; "),
            std::string::npos)
      << csv;
  // Rank 3's gain is 17.9 - 10 as a double (7.899999999999999): the cell
  // holds the value itself, every digit.
  const size_t row3 = csv.find(
      "\r\n1,exposed-communication,3,7,rank,Exposed communication above the 10% normal band,");
  ASSERT_NE(row3, std::string::npos) << csv;
  EXPECT_NE(csv.find(fmt::format(",{},1,exposed_communication_pct=17.9; ", 17.9 - 10), row3),
            std::string::npos)
      << csv;
}

}  // namespace
}  // namespace trainscope::testing
