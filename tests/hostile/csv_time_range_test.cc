// Class 4: kernel_details / step_trace_time / op_statistic rows with a time
// or count outside [0, 2^62) ns are skipped with a reason; values at the
// edge of the range are kept and nothing downstream overflows (the debug
// build runs this under UBSan: "runtime error" on stderr fails the test).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend/op_statistic_reader.h"
#include "formats/ascend/step_trace_reader.h"
#include "hostile/csv_util.h"
#include "hostile/hostile_util.h"
#include "model/rank_profile.h"

namespace trainscope::testing {
namespace {

std::string Row(const std::string& start, const std::string& duration) {
  return "1,k,MatMulV3,AI_CORE," + start + "," + duration + ",0,8\n";
}

// 2^62 ns = 4611686018427387.904 us: the last microsecond inside the range.
constexpr const char* kEdgeUs = "4611686018427387.000";

std::string OutOfRangeKernels() {
  return std::string(kKernelDetailsHeader) + KernelRows(0, 1) +  // line 2
         Row("-5.000", "12.5") +                                 // 3: negative start
         Row("9000000000000000", "12.5") +                       // 4: 9e18 ns
         Row("1764246877000090.000", "-1") +                     // 5: negative duration
         Row("1764246877000090.000", "4611686018427388") +       // 6: > 2^62 ns
         Row("1764246877000090.000", "1e400") +                  // 7: not a number
         Row(kEdgeUs, kEdgeUs) +                                 // 8: the edge, kept
         KernelRows(7, 1);                                       // 9
}

TEST(HostileCsvTimeRange, KernelRowsOutOfRangeAreSkippedWithTheirReason) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseKernelDetails(OutOfRangeKernels(), "kd.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 8);
  EXPECT_EQ(ledger.rows_used(), 3);
  EXPECT_EQ(ledger.rows_skipped(), 5);
  const auto& skipped = ledger.skipped_by_reason();
  EXPECT_EQ(skipped.at("negative start time"), 1);
  EXPECT_EQ(skipped.at("start time out of range"), 1);
  EXPECT_EQ(skipped.at("negative duration"), 1);
  EXPECT_EQ(skipped.at("duration out of range"), 1);
  EXPECT_EQ(skipped.at("unparsable duration"), 1);
  ASSERT_EQ(profile.device_events.size(), 3u);
  for (size_t i = 0; i < profile.device_events.size(); ++i) {
    EXPECT_GE(profile.device_events.start_ns[i], 0);
    EXPECT_LT(profile.device_events.start_ns[i], int64_t{1} << 62);
    EXPECT_GE(profile.device_events.duration_ns[i], 0);
    EXPECT_LT(profile.device_events.duration_ns[i], int64_t{1} << 62);
  }
  EXPECT_EQ(profile.device_events.start_ns.back(), 4611686018427387000);
}

TEST(HostileCsvTimeRange, StepTraceSpansOutOfRangeAreSkipped) {
  const std::string data =
      "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,"
      "Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
      "0,1,100,10,5,15,3,0,0,10,1\n"
      "0,2,-3,10,5,15,3,0,0,10,1\n"
      "0,3,100,10,5,15,9000000000000000,0,0,10,1\n"
      "0,4,4611686018427387,10,5,15,3,0,0,10,1\n";
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseStepTraceTime(data, "st.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 4);
  EXPECT_EQ(ledger.rows_used(), 2);
  EXPECT_EQ(ledger.skipped_by_reason().at("negative Computing"), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("Free out of range"), 1);
  ASSERT_EQ(profile.step_trace.size(), 2u);
  EXPECT_EQ(profile.step_trace[0].computing_ns, 100000);
  EXPECT_EQ(profile.step_trace[1].step, 4);
}

TEST(HostileCsvTimeRange, OpStatisticNegativeCountOrTotalIsSkipped) {
  const std::string data =
      "Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),"
      "Ratio(%)\n"
      "0,MatMul,AI_CORE,10,100,5,10,20,50\n"
      "0,Add,AI_VECTOR_CORE,-1,100,5,10,20,50\n"
      "0,Mul,AI_VECTOR_CORE,3,-2,5,10,20,50\n"
      "0,Cast,AI_VECTOR_CORE,9223372036854775807,100,5,10,20,50\n"
      "0,Div,AI_VECTOR_CORE,3,100,5,-10,20,50\n";
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseOpStatistic(data, "os.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 5);
  EXPECT_EQ(ledger.rows_used(), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("negative Count"), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("negative Total Time"), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("Count out of range"), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("negative Avg Time"), 1);
  ASSERT_EQ(profile.op_statistic.size(), 1u);
  EXPECT_EQ(profile.op_statistic[0].op_type, "MatMul");
}

TEST(HostileCsvTimeRange, EdgeValuesGoThroughTheWholeAnalysisWithoutOverflow) {
  // Three kernels at the edge of the range on top of ordinary ones: sums,
  // spans and step windows must stay defined.
  const std::string kernels = OutOfRangeKernels() + Row(kEdgeUs, kEdgeUs) + Row("0", kEdgeUs);
  const std::string step_trace =
      "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free\n"
      "0,1,4611686018427387,4611686018427387,4611686018427387,4611686018427387,"
      "4611686018427387\n";
  const std::string job =
      WriteAscendJob("range_cli", kernels, {{"step_trace_time.csv", step_trace}});
  const CommandResult r = RunTrainscopeIn(job, {"analyze", "--json", "-", job});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("runtime error"), std::string::npos) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 400);
  const CommandResult text = RunTrainscopeIn(job, {"analyze", job});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.err.find("runtime error"), std::string::npos) << text.err;
  EXPECT_NE(text.out.find("1 rows skipped: negative start time"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace trainscope::testing
