// api_statistic.csv and operator_details.csv, the
// OP State column of kernel_details.csv, and what the analyses make of them:
// the dynamic-shape finding and source lines from operator_details.csv's
// call stacks. Fixtures are written by hand from docs/ascend-formats.md
// (2.2, 2.5, 2.6), never copied from the corpus.
#include <gtest/gtest.h>

#include <string>

#include "analysis/motifs/fingerprint_attribution.h"
#include "analysis/step/online_compile.h"
#include "finding_lookup.h"
#include "formats/ascend/api_statistic_reader.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend/operator_details_reader.h"
#include "ledger_checks.h"
#include "model/rank_profile.h"
#include "threshold_findings_util.h"

namespace trainscope {
namespace {

using testing::ExpectLedgersAddUp;

using testing::EvidenceValue;

using analysis::Finding;

// ≤2025-05 header (no Device_id, Level "hccl").
constexpr const char* kApiStatisticOld =
    "Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n"
    "hccl,Launch_Ffts,474.41,4,118.603,89.18,138.75,389.155\n"
    "acl,aclopCompileAndExecute,14049.23,19,739.433,63.29,1773.7,407111.615\n"
    "node,launch,4014.44,191,21.018,2.83,840.78,9619.149\n"
    "acl,opCompile,372.94,19,19.628,7.73,47.05,82.71\n";

// CANN 8.3: Device_id first ("host"), Level "communication"; damaged rows.
constexpr const char* kApiStatisticCann83 =
    "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n"
    "host,communication,Launch_Ffts,598.18,24,24.924,15.6,43.63,48.351\n"
    "host,node,launch,37192.86,2467,N/A,5.72,713.03,1044.46\n"
    "host,acl,aclnnMuls,x,18,7.4,5.4,10.5,2.4\n"      // unparsable Time: skipped
    "host,acl,aclnnMm,75.05,-6,12.5,10.2,14.5,2.2\n"  // negative Count: skipped
    "host,acl,aclnnAdd,1.0,1\n";                      // wrong field count: skipped

TEST(ApiStatisticReader, ReadsBothHeaderGenerations) {
  model::RankProfile old_profile;
  ASSERT_TRUE(formats::ParseApiStatistic(kApiStatisticOld, "api.csv", &old_profile).ok());
  ASSERT_EQ(old_profile.api_statistic.size(), 4u);
  EXPECT_TRUE(old_profile.has_api_statistic);
  const model::ApiStatisticRow& compile = old_profile.api_statistic[1];
  EXPECT_EQ(compile.level, "acl");
  EXPECT_EQ(compile.api_name, "aclopCompileAndExecute");
  EXPECT_EQ(compile.total_ns, 14'049'230);
  EXPECT_EQ(compile.count, 19);
  EXPECT_EQ(compile.avg_ns, 739'433);
  EXPECT_EQ(compile.max_ns, 1'773'700);
  ExpectLedgersAddUp(old_profile);

  model::RankProfile new_profile;
  ASSERT_TRUE(formats::ParseApiStatistic(kApiStatisticCann83, "api.csv", &new_profile).ok());
  ASSERT_EQ(new_profile.api_statistic.size(), 2u);
  EXPECT_EQ(new_profile.api_statistic[0].level, "communication");
  EXPECT_EQ(new_profile.api_statistic[1].count, 2467);
  EXPECT_FALSE(new_profile.api_statistic[1].avg_ns.has_value());  // N/A: unknown, not 0
  const RowLedger& ledger = new_profile.ledgers.at(0);
  EXPECT_EQ(ledger.rows_read(), 5);
  EXPECT_EQ(ledger.rows_skipped(), 3);
  EXPECT_EQ(ledger.skipped_by_reason().at("unparsable Time"), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("negative Count"), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("wrong field count"), 1);
}

TEST(ApiStatisticReader, AHeaderWithoutCountNamesTheFileAndAHint) {
  model::RankProfile profile;
  const Status status = formats::ParseApiStatistic("Level,API Name,Time(us)\nacl,x,1\n",
                                                   "rank0/api_statistic.csv", &profile);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("rank0/api_statistic.csv"), std::string::npos);
  EXPECT_NE(status.message().find("Count"), std::string::npos);
  EXPECT_NE(status.message().find("hint"), std::string::npos);
}

// torch_npu's operator_details.csv: multi-line quoted Input Shapes and Call
// Stack ("file.py(N): func;" frames, innermost first), a row without a
// stack, a row without a name, a bad duration.
constexpr const char* kOperatorDetails =
    "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),Device Self "
    "Duration(us),Device Total Duration(us),Device Self Duration With AICore(us),Device Total "
    "Duration With AICore(us)\n"
    "aten::conv2d,\"32,3,224,224;\n64,3,11,11;\n64;\n;\n\",\"/usr/lib/python3.9/site-packages/"
    "torch/nn/modules/conv.py(456): _conv_forward;\n/home/u/model.py(21): forward;\n/home/u/"
    "train.py(80): main;\n<string>(1): <module>\",20.5,310.2,0,95.1,0,95.1\n"
    "aclnnMuls,,\"/home/u/train.py(40): update;\n/home/u/train.py(80): main\",7,7,5,5,5,5\n"
    "aclnnMuls,,\"/home/u/train.py(40): update\",7,7,5,5,5,5\n"
    "aclnnMuls,,\"/home/u/ddp.py(9): hook\",7,x,5,5,5,5\n"
    "aclnnAdd,,,3,3,2,2,2,2\n"
    ",,,1,1,1,1,1,1\n";

TEST(OperatorDetailsReader, KeepsTheUserFrameAndOneLineShapes) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseOperatorDetails(kOperatorDetails, "op.csv", &profile).ok());
  ASSERT_EQ(profile.operator_details.size(), 5u);
  const model::OperatorDetailRow& conv = profile.operator_details[0];
  EXPECT_EQ(profile.strings.Get(conv.name), "aten::conv2d");
  EXPECT_EQ(profile.strings.Get(conv.input_shapes), "32,3,224,224;64,3,11,11;64;;");
  EXPECT_EQ(profile.strings.Get(conv.source), "/home/u/model.py(21): forward");
  EXPECT_EQ(conv.host_total_ns, 310'200);
  EXPECT_EQ(conv.device_total_ns, 95'100);
  EXPECT_EQ(profile.strings.Get(profile.operator_details[1].source),
            "/home/u/train.py(40): update");
  EXPECT_FALSE(profile.operator_details[3].host_total_ns.has_value());  // "x": noted
  EXPECT_EQ(profile.strings.Get(profile.operator_details[4].source), "");
  const RowLedger& ledger = profile.ledgers.at(0);
  EXPECT_EQ(ledger.rows_read(), 6);
  EXPECT_EQ(ledger.skipped_by_reason().at("missing Name"), 1);
  EXPECT_EQ(ledger.notes_by_reason().at("unparsable Host Total Duration"), 1);
  ExpectLedgersAddUp(profile);
}

TEST(OperatorDetailsReader, ColumnsAbsentAreFeaturesAbsent) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseOperatorDetails("Name,Host Total Duration(us)\naten::mul,3\n", "op.csv",
                                            &profile)
                  .ok());
  ASSERT_EQ(profile.operator_details.size(), 1u);
  EXPECT_EQ(profile.operator_details[0].source, StringPool::kEmpty);
  EXPECT_EQ(profile.operator_details[0].input_shapes, StringPool::kEmpty);
  EXPECT_FALSE(profile.operator_details[0].device_total_ns.has_value());
  EXPECT_EQ(formats::NormaliseInputShapes("\"\"\"4096,2048\"\"\""), "4096,2048");
  EXPECT_EQ(formats::NormaliseInputShapes("N/A"), "");
}

TEST(KernelDetailsOpState, IsReadWhenPresent) {
  EXPECT_EQ(formats::ParseOpState("dynamic"), model::OpState::kDynamic);
  EXPECT_EQ(formats::ParseOpState("STATIC"), model::OpState::kStatic);
  EXPECT_EQ(formats::ParseOpState("N/A"), model::OpState::kUnknown);
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseKernelDetails(
                  "Step Id,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us)\n"
                  "1,aclnnMuls_MulsAiCore_Muls,Muls,dynamic,AI_VECTOR_CORE,10,2\n"
                  "1,Conv2D1,Conv2D,static,AI_CORE,20,5\n"
                  "1,hcom_allReduce__1_0_1,hcom_allReduce_,N/A,HCCL,30,9\n",
                  "k.csv", &profile)
                  .ok());
  ASSERT_EQ(profile.device_events.size(), 3u);
  EXPECT_EQ(profile.device_events.op_state[0], model::OpState::kDynamic);
  EXPECT_EQ(profile.device_events.op_state[1], model::OpState::kStatic);
  EXPECT_EQ(profile.device_events.op_state[2], model::OpState::kUnknown);
}

TEST(OnlineCompile, CompileApisAreCountedOnce) {
  EXPECT_EQ(analysis::ClassifyCompileApi("aclopCompileAndExecute"), analysis::CompileApi::kOuter);
  EXPECT_EQ(analysis::ClassifyCompileApi("aclopCompileAndExecuteV2"), analysis::CompileApi::kOuter);
  EXPECT_EQ(analysis::ClassifyCompileApi("opCompile"), analysis::CompileApi::kInner);
  EXPECT_EQ(analysis::ClassifyCompileApi("aclnnMuls"), analysis::CompileApi::kNone);
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseApiStatistic(kApiStatisticOld, "api.csv", &profile).ok());
  std::optional<analysis::HostApiStats> api = analysis::SummarizeHostApis(profile);
  ASSERT_TRUE(api.has_value());
  // opCompile runs inside aclopCompileAndExecute: not added again.
  EXPECT_EQ(api->compile_calls, 19);
  EXPECT_EQ(api->compile_ns, 14'049'230);
  EXPECT_EQ(api->compile_apis, "aclopCompileAndExecute");
  EXPECT_EQ(api->launch_calls, 191);
  // Only the inner API listed: it is the compile time.
  model::RankProfile inner;
  inner.has_api_statistic = true;
  inner.api_statistic.push_back({"acl", "opCompile", 400'000, 19});
  EXPECT_EQ(analysis::SummarizeHostApis(inner)->compile_ns, 400'000);
  EXPECT_FALSE(analysis::SummarizeHostApis(model::RankProfile()).has_value());
}

// A one-step rank: |kernels| Conv2D kernels of 1 ms each in a 100 ms step
// with 20 ms of device idle, in state |state|; api_statistic.csv with
// |compile_ms| of aclopCompileAndExecute when |with_api|.
analysis::RankAnalysis OneStep() {
  analysis::RankAnalysis rank;
  rank.header.rank = 0;
  rank.selected_step = 7;
  rank.timeline.step = 7;
  analysis::StepDistribution step;
  step.step = 7;
  analysis::StepBudget budget;
  budget.budget.total_ns = 100'000'000;
  budget.budget.idle_ns = 20'000'000;
  step.breakdown = budget;
  step.kernels.count = 40;
  step.kernels.span_ns = 100'000'000;
  rank.steps.push_back(step);
  return rank;
}

model::RankProfile Job(model::OpState state, bool with_api, int64_t compile_ms) {
  model::RankProfile profile;
  for (int i = 0; i < 40; ++i) {
    model::DeviceEvent k;
    k.step = 7;
    k.name = profile.strings.Intern("Conv2D1");
    k.op_type = profile.strings.Intern("Conv2D");
    k.op_state = state;
    k.start_ns = i * 2'000'000;
    k.duration_ns = 1'000'000;
    profile.device_events.Append(k);
  }
  if (with_api) {
    profile.has_api_statistic = true;
    profile.api_statistic.push_back({"acl", "aclopCompileAndExecute", compile_ms * 1'000'000, 25});
    profile.api_statistic.push_back({"node", "launch", 1'000'000, 40});
  }
  return profile;
}

const Finding* FindId(const std::vector<Finding>& findings, const std::string& id) {
  for (const Finding& f : findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

TEST(DynamicShapeFinding, ADynamicJobThatCompilesOnlineIsFlagged) {
  const analysis::RankAnalysis rank = OneStep();
  model::RankProfile dynamic = Job(model::OpState::kDynamic, true, 8);
  const std::vector<Finding> findings = analysis::RankThresholdFindings(rank, dynamic);
  const Finding* f = FindId(findings, "dynamic-shape");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->occurrences, 40);
  EXPECT_EQ(EvidenceValue(*f, "dynamic_kernels"), 40);
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "dynamic_share_pct"), 100);
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "compile_per_step_ms"), 8);
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "compile_pct"), 8);
  EXPECT_DOUBLE_EQ(f->estimated_gain_pct, 8);  // under the 20 ms of idle
  // Ascend's remedy (RankThresholdFindings renders for Ascend).
  EXPECT_NE(f->remedy.find("set_compile_mode(jit_compile=False)"), std::string::npos);
  EXPECT_NE(f->remedy.find("allow_internal_format = False"), std::string::npos);
  EXPECT_NE(f->evidence.find("aclopCompileAndExecute"), std::string::npos);
}

TEST(DynamicShapeFinding, TheStaticTwinAndTheUnmeasuredAreNot) {
  const analysis::RankAnalysis rank = OneStep();
  // The same job with static kernels: its compilation is the shapes' first
  // use, not a dynamic-shape recompilation.
  model::RankProfile static_twin = Job(model::OpState::kStatic, true, 8);
  EXPECT_EQ(FindId(analysis::RankThresholdFindings(rank, static_twin), "dynamic-shape"), nullptr);
  // Dynamic kernels without api_statistic.csv: compilation unknown.
  model::RankProfile unmeasured = Job(model::OpState::kDynamic, false, 0);
  EXPECT_EQ(FindId(analysis::RankThresholdFindings(rank, unmeasured), "dynamic-shape"), nullptr);
  // Dynamic kernels (CANN 8.x aclnn) with no compile API: nothing to fix.
  model::RankProfile aclnn = Job(model::OpState::kDynamic, false, 0);
  aclnn.has_api_statistic = true;
  aclnn.api_statistic.push_back({"node", "launch", 1'000'000, 40});
  EXPECT_EQ(FindId(analysis::RankThresholdFindings(rank, aclnn), "dynamic-shape"), nullptr);
  // Below online_compile_pct (3% of the step).
  model::RankProfile small = Job(model::OpState::kDynamic, true, 2);
  EXPECT_EQ(FindId(analysis::RankThresholdFindings(rank, small), "dynamic-shape"), nullptr);
  // No OP State (Level0, older CANN): unknown.
  model::RankProfile level0 = Job(model::OpState::kUnknown, true, 8);
  EXPECT_EQ(FindId(analysis::RankThresholdFindings(rank, level0), "dynamic-shape"), nullptr);
}

TEST(DynamicShapeFinding, HostBoundCarriesTheLaunchStatistics) {
  const analysis::RankAnalysis rank = OneStep();
  model::RankProfile profile = Job(model::OpState::kDynamic, true, 1);
  const std::vector<Finding> findings = analysis::RankThresholdFindings(rank, profile);
  const Finding* f = FindId(findings, "host-bound");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "launches_per_step"), 40);
  EXPECT_DOUBLE_EQ(EvidenceValue(*f, "launch_mean_us"), 25);
  EXPECT_NE(f->evidence.find("40 operator launches per step"), std::string::npos);
}

TEST(OperatorDetailsAttribution, NamesASourceLineWithoutATrace) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseOperatorDetails(kOperatorDetails, "op.csv", &profile).ok());
  auto add = [&](const char* name, const char* type, int64_t start) {
    model::DeviceEvent k;
    k.step = 1;
    k.name = profile.strings.Intern(name);
    k.op_type = profile.strings.Intern(type);
    k.start_ns = start;
    k.duration_ns = 10;
    profile.device_events.Append(k);
  };
  add("aclnnMuls_MulsAiCore_Muls", "Muls", 100);
  add("aclnnAdd_AddAiCore_Add", "Add", 200);
  add("aclnnMuls_MulsAiCore_Muls", "Muls", 300);
  EXPECT_EQ(analysis::OperatorKeyOfKernel("aclnnMuls_MulsAiCore_Muls", "Muls"), "aclnnMuls");
  EXPECT_EQ(analysis::OperatorKeyOfKernel("Conv2D1", "Conv2D"), "Conv2D");
  const analysis::HostAttributor host(profile);
  ASSERT_TRUE(host.available());
  const analysis::HostAttribution a = host.Attribute({100, 200, 300});
  // aclnnMuls is called twice from train.py(40), once from ddp.py(9).
  EXPECT_EQ(a.source, "/home/u/train.py(40): update");
  EXPECT_EQ(a.framework_op, "aclnnMuls+aclnnAdd");
  // Without operator_details.csv and without a trace: nothing to say.
  EXPECT_FALSE(analysis::HostAttributor(model::RankProfile()).available());
}

}  // namespace
}  // namespace trainscope
