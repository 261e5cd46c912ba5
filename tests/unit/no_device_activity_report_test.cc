// A job where no rank ran anything on the device: the
// reports say so and what to turn on, instead of "Findings: none".
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "analysis/job/rank_analysis.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

analysis::JobAnalysis JobWithoutDeviceActivity() {
  analysis::JobAnalysis job;
  for (int32_t r : {0, 1}) {
    analysis::RankAnalysis rank;
    rank.header.rank = r;
    rank.selected_step = model::kNoStep;
    rank.selected_step_reason = "no device activity in the capture";
    rank.steps.emplace_back();
    job.ranks.push_back(std::move(rank));
    job.ranks_without_device_activity.push_back(r);
  }
  return job;
}

TEST(NoDeviceActivityReport, TextSaysSoInsteadOfFindingsNone) {
  const std::string text = RenderText(JobWithoutDeviceActivity(), TextReportOptions{});
  EXPECT_EQ(text.rfind(std::string("No device activity: ") + analysis::kNoDeviceActivityMessage, 0),
            0u)
      << text;
  EXPECT_NE(text.find(std::string("remedy: ") + analysis::kNoDeviceActivityRemedy),
            std::string::npos);
  EXPECT_EQ(text.find("Findings: none"), std::string::npos) << text;
}

TEST(NoDeviceActivityReport, JsonNamesTheRanksTheMessageAndTheRemedy) {
  const std::string json = RenderJson(JobWithoutDeviceActivity(), "test");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["no_device_activity"]["ranks"].get(ranks), simdjson::SUCCESS);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(int64_t(ranks.at(0)), 0);
  EXPECT_EQ(int64_t(ranks.at(1)), 1);
  EXPECT_EQ(std::string_view(doc["no_device_activity"]["message"]),
            analysis::kNoDeviceActivityMessage);
  EXPECT_EQ(std::string_view(doc["no_device_activity"]["remedy"]),
            analysis::kNoDeviceActivityRemedy);
  // No step is known: the projection has no step time.
  EXPECT_TRUE(doc["projection"]["step_time_us"].is_null());
  EXPECT_TRUE(doc["projection"]["projected_step_time_us"].is_null());
}

}  // namespace
}  // namespace trainscope::report
