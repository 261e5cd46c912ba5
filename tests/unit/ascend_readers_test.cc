#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "communication_equal.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend/op_statistic_reader.h"
#include "formats/ascend/profiler_info_reader.h"
#include "formats/ascend/profiler_metadata_reader.h"
#include "formats/ascend/step_trace_reader.h"
#include "ledger_checks.h"
#include "synth/synth.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

using testing::WriteFileBytes;

using testing::ExpectLedgersAddUp;

namespace fs = std::filesystem;

std::string_view Str(const model::RankProfile& profile, StringId id) {
  return profile.strings.Get(id);
}

// Level0, torch_npu late 2024: CRLF, Type N/A, trailing TAB after Start Time.
constexpr std::string_view kLevel0 =
    "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\r\n"
    "50,trans_TransData_0,N/A,N/A,1736405443881410.320\t,50.621,0,0\r\n"
    "50,Conv2D1,N/A,N/A,1736405443881672.085\t,315.746,99.142,0\r\n"
    "50,aclnnAdd_AddAiCore_Add,N/A,N/A,1736405443881999.000\t,1.5,0,8\r\n"
    "50,hcom_allReduce__868_0_1,N/A,HCCL,1736405443909176.934\t,72994.438,320.026,0\r\n";

TEST(AscendKernelDetailsTest, Level0DerivesOpTypes) {
  model::RankProfile profile;
  ASSERT_TRUE(ParseKernelDetails(kLevel0, "kd.csv", &profile).ok());
  const model::DeviceEvents& k = profile.device_events;
  ASSERT_EQ(k.size(), 4u);
  EXPECT_EQ(k.step[0], 50);
  EXPECT_EQ(Str(profile, k.name[0]), "trans_TransData_0");
  EXPECT_EQ(Str(profile, k.op_type[0]), "TransData");
  EXPECT_EQ(Str(profile, k.op_type[1]), "Conv2D");
  EXPECT_EQ(Str(profile, k.op_type[2]), "Add");
  EXPECT_EQ(Str(profile, k.op_type[3]), "hcom_allReduce_");
  EXPECT_TRUE(k.op_type_derived[0]);
  EXPECT_EQ(k.start_ns[0], 1736405443881410320);
  EXPECT_EQ(k.duration_ns[0], 50621);
  EXPECT_EQ(k.wait_ns[1], 99142);
  EXPECT_EQ(k.block_dim[2], 8);
  EXPECT_EQ(k.stream[0], model::kNoStream);  // no Stream ID column at Level0
  EXPECT_EQ(k.kind[0], model::ActivityKind::kCompute);
  EXPECT_EQ(k.kind[3], model::ActivityKind::kCommunication);
  EXPECT_FALSE(k.has_pmu());  // no PipeUtilization columns at Level0
  ASSERT_EQ(profile.ledgers.size(), 1u);
  EXPECT_EQ(profile.ledgers[0].rows_read(), 4);
  EXPECT_EQ(profile.ledgers[0].rows_used(), 4);
  ExpectLedgersAddUp(profile);
}

TEST(AscendKernelDetailsTest, DeriveOpTypeFromName) {
  EXPECT_EQ(DeriveOpTypeFromName("aclnnInplaceZero_ZerosLikeAiCore_ZerosLike"), "ZerosLike");
  EXPECT_EQ(DeriveOpTypeFromName("trans_TransData_0"), "TransData");
  EXPECT_EQ(DeriveOpTypeFromName("Conv2D1"), "Conv2D");
  EXPECT_EQ(DeriveOpTypeFromName("ReduceSum7"), "ReduceSum");
  // A CANN version suffix is part of the type, the digits after it the
  // instance (AxpyV2102 is AxpyV2 #102, not "AxpyV").
  EXPECT_EQ(DeriveOpTypeFromName("AxpyV2102"), "AxpyV2");
  EXPECT_EQ(DeriveOpTypeFromName("GatherV2"), "GatherV2");
  EXPECT_EQ(DeriveOpTypeFromName("MatMulV31"), "MatMulV3");
  EXPECT_EQ(DeriveOpTypeFromName("MaxPoolWithArgmaxV112"), "MaxPoolWithArgmaxV1");
  EXPECT_EQ(DeriveOpTypeFromName("aclnnGather_GatherV2_12"), "GatherV2");
  EXPECT_EQ(DeriveOpTypeFromName("Relu63"), "Relu");  // ambiguous: the common op
  EXPECT_EQ(DeriveOpTypeFromName("Expm13"), "Expm1");
  EXPECT_EQ(DeriveOpTypeFromName("V12"), "V");
  EXPECT_EQ(DeriveOpTypeFromName("atomic_memset-1_68_1413001_1_0"), "MemSet");
  EXPECT_EQ(DeriveOpTypeFromName("hcom_allReduce__586_0_1"), "hcom_allReduce_");
  EXPECT_EQ(DeriveOpTypeFromName("hcom_batchSendRecv__128_3_1"), "hcom_batchSendRecv_");
  EXPECT_EQ(DeriveOpTypeFromName("MatMul"), "MatMul");
  EXPECT_EQ(DeriveOpTypeFromName("123"), "123");
  EXPECT_EQ(DeriveOpTypeFromName(""), "");
  EXPECT_EQ(DeriveOpTypeFromName("x_"), "x_");
}

// Level1 PipeUtilization (2025-01), quoted timestamps with TAB, N/A stream on
// the HCCL row, a quoted shape field with literal quotes.
constexpr std::string_view kLevel1 =
    "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
    "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,Input Shapes,aic_mac_ratio,"
    "aic_mte2_ratio,aiv_vec_ratio\n"
    "19,4294967295,61653,2,aclnnMatmul_MatMulCommon_MatMulV2,MatMulV2,dynamic,AI_CORE,"
    "\"1736413971558972.912\t\",185.504,1.087,16,0,\"\"\"81920,4096;8192,512\"\"\",0.824,0.964,0\n"
    "19,4294967295,N/A,N/A,hcom_allReduce__1_0_1,hcom_allReduce_,N/A,HCCL,"
    "\"1736413971560000.000\t\",10,0,0,N/A,N/A,N/A,N/A,N/A\n"
    ",4294967295,5,2,aclnnAdd_AddAiCore_Add,Add,dynamic,AI_VECTOR_CORE,"
    "\"1736413971550000.000\t\",3,0,40,0,\"\"\"1\"\"\",0,0,0.5\n";

TEST(AscendKernelDetailsTest, Level1WithMetricsAndNaStream) {
  model::RankProfile profile;
  ASSERT_TRUE(ParseKernelDetails(kLevel1, "kd.csv", &profile).ok());
  const model::DeviceEvents& k = profile.device_events;
  ASSERT_EQ(k.size(), 3u);
  // Sorted by start: the Step-less Add row comes first.
  EXPECT_EQ(Str(profile, k.name[0]), "aclnnAdd_AddAiCore_Add");
  EXPECT_EQ(k.step[0], model::kNoStep);
  ASSERT_TRUE(k.has_pmu());
  ASSERT_EQ(k.pmu().size(), k.size());
  EXPECT_FLOAT_EQ(k.pmu().aiv_vec_ratio[0], 0.5f);
  EXPECT_EQ(Str(profile, k.op_type[1]), "MatMulV2");
  EXPECT_FALSE(k.op_type_derived[1]);
  EXPECT_EQ(k.start_ns[1], 1736413971558972912);
  EXPECT_EQ(k.stream[1], 2);
  EXPECT_EQ(k.block_dim[1], 16);
  EXPECT_FLOAT_EQ(k.pmu().aic_mac_ratio[1], 0.824f);
  EXPECT_FLOAT_EQ(k.pmu().aic_mte2_ratio[1], 0.964f);
  EXPECT_EQ(k.stream[2], model::kNoStream);
  EXPECT_EQ(k.kind[2], model::ActivityKind::kCommunication);
  EXPECT_TRUE(std::isnan(k.pmu().aic_mac_ratio[2]));
  EXPECT_EQ(profile.ledgers[0].rows_skipped(), 0);
  ExpectLedgersAddUp(profile);
}

// CANN 8.3: Device_id second, COMMUNICATION core, 6-decimal wait times, LF.
constexpr std::string_view kCann83 =
    "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,"
    "Start Time(us),Duration(us),Wait Time(us),Block Dim,Mix Block Dim\n"
    "13,0,4294967295,34486,2,aclnnEmbedding_GatherV2AiCore_GatherV2,GatherV2,dynamic,"
    "AI_VECTOR_CORE,1764246877077343.740\t,48.680,1881.080000,40,0\n"
    "13,0,4294967295,N/A,N/A,hcom_batchSendRecv__128_3_1,hcom_batchSendRecv_,N/A,COMMUNICATION,"
    "1764246877147674.500\t,436.140,833.420000,0,N/A\n";

TEST(AscendKernelDetailsTest, Cann83HeaderWithDeviceId) {
  model::RankProfile profile;
  ASSERT_TRUE(ParseKernelDetails(kCann83, "kd.csv", &profile).ok());
  const model::DeviceEvents& k = profile.device_events;
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k.wait_ns[0], 1881080);
  EXPECT_EQ(Str(profile, k.accelerator[1]), "COMMUNICATION");
  EXPECT_EQ(k.kind[1], model::ActivityKind::kCommunication);
  EXPECT_EQ(k.duration_ns[1], 436140);
  ExpectLedgersAddUp(profile);
}

// Newest (2026) names plus the MindSpore/8.2 "Step ID" and op_summary-style
// "Task Start Time(us)" aliases.
TEST(AscendKernelDetailsTest, BlockNumStepIdAndTaskStartAliases) {
  constexpr std::string_view kData =
      "Step ID,Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),Task Wait Time(us),"
      "Block Num,Mix Block Num\n"
      "3,MatMul_1,MatMul,AI_CORE,100.5,2.25,0.5,24,0\n";
  model::RankProfile profile;
  ASSERT_TRUE(ParseKernelDetails(kData, "kd.csv", &profile).ok());
  ASSERT_EQ(profile.device_events.size(), 1u);
  EXPECT_EQ(profile.device_events.step[0], 3);
  EXPECT_EQ(Str(profile, profile.device_events.op_type[0]), "MatMul");
  EXPECT_EQ(profile.device_events.start_ns[0], 100500);
  EXPECT_EQ(profile.device_events.duration_ns[0], 2250);
  EXPECT_EQ(profile.device_events.wait_ns[0], 500);
  EXPECT_EQ(profile.device_events.block_dim[0], 24);
}

TEST(AscendKernelDetailsTest, BadRowsAreSkippedWithReasons) {
  constexpr std::string_view kData =
      "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n"
      "1,a,A,AI_CORE,10,1,0,1\n"
      "1,b,B,AI_CORE,N/A,1,0,1\n"
      "1,c,C,AI_CORE,abc,1,0,1\n"
      "1,d,D,AI_CORE,20,-1,0,1\n"
      "1,e,E,AI_CORE,30,,0,1\n"
      "x,f,F,AI_CORE,40,1,zz,1\n"
      "1,g,G,AI_CORE,50,1,0\n"
      "1,h,H,AI_CORE,60,1";  // truncated last row
  model::RankProfile profile;
  ASSERT_TRUE(ParseKernelDetails(kData, "kd.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers.at(0);
  EXPECT_EQ(ledger.rows_read(), 8);
  EXPECT_EQ(ledger.rows_used(), 2);  // a and f (f: bad step/wait are notes)
  const auto& skipped = ledger.skipped_by_reason();
  EXPECT_EQ(skipped.at("missing start time"), 1);
  EXPECT_EQ(skipped.at("unparsable start time"), 1);
  EXPECT_EQ(skipped.at("negative duration"), 1);
  EXPECT_EQ(skipped.at("missing duration"), 1);
  EXPECT_EQ(skipped.at("wrong field count"), 2);
  EXPECT_EQ(ledger.notes_by_reason().at("unparsable Step Id"), 1);
  EXPECT_EQ(ledger.notes_by_reason().at("unparsable Wait Time"), 1);
  EXPECT_EQ(profile.device_events.step[1], model::kNoStep);
  bool found_line = false;
  for (const RowIssueSample& sample : ledger.samples()) {
    if (sample.reason == "negative duration") {
      EXPECT_EQ(sample.line, 5);
      found_line = true;
    }
  }
  EXPECT_TRUE(found_line);
  ExpectLedgersAddUp(profile);
}

TEST(AscendKernelDetailsTest, UnterminatedQuoteCountsOneSkippedRow) {
  constexpr std::string_view kData =
      "Name,Start Time(us),Duration(us)\n"
      "a,1,1\n"
      "b,\"2,1\n"
      "c,3,1\n";
  model::RankProfile profile;
  ASSERT_TRUE(ParseKernelDetails(kData, "kd.csv", &profile).ok());
  EXPECT_EQ(profile.device_events.size(), 2u);  // the row after the stray quote is read
  EXPECT_EQ(profile.ledgers[0].skipped_by_reason().at("unterminated quoted field"), 1);
  ASSERT_EQ(profile.ledgers[0].samples().size(), 1u);
  EXPECT_EQ(profile.ledgers[0].samples()[0].line, 3);
  EXPECT_TRUE(profile.warnings.empty());
  ExpectLedgersAddUp(profile);
}

TEST(AscendKernelDetailsTest, MissingRequiredColumnNamesFileAndHints) {
  const std::string dir = testing::MakeTempDir("kd_missing");
  const std::string path = dir + "/kernel_details.csv";
  WriteFileBytes(path, "Step Id,Name,Type,Duration(us)\n1,a,A,1\n");
  model::RankProfile profile;
  Status status = ReadKernelDetailsFile(path, &profile);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find(path), std::string::npos);
  EXPECT_NE(status.message().find("Start Time(us)"), std::string::npos);
  EXPECT_NE(status.message().find("Step Id, Name, Type, Duration(us)"), std::string::npos);
  EXPECT_NE(status.message().find("hint: "), std::string::npos);
}

TEST(AscendKernelDetailsTest, EmptyFileIsInvalid) {
  model::RankProfile profile;
  Status status = ParseKernelDetails("", "kd.csv", &profile);
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_NE(status.message().find("kd.csv"), std::string::npos);
}

TEST(AscendStepTraceTest, AllHeaderGenerations) {
  model::RankProfile profile;
  // 2025-06+: Device_id first, Preparing last.
  ASSERT_TRUE(
      ParseStepTraceTime("Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,"
                         "Communication,Free,Stage,Bubble,Communication(Not Overlapped and Exclude "
                         "Receive),Preparing\n"
                         "4,13,231290.09999999995,420174.2600000001,0.0,420174.2600000001,"
                         "158558.00000000032,810022.25,0,420174.2600000001,206.25\n",
                         "a.csv", &profile)
          .ok());
  // 2024-04..2025-05: no Device_id, CRLF.
  ASSERT_TRUE(ParseStepTraceTime(
                  "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,"
                  "Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\r\n"
                  "50,8827.473,81515.607,4001.282,85516.889,25908.102,116251.25,0,81515.607,"
                  "19358.0\r\n",
                  "b.csv", &profile)
                  .ok());
  // Before 2024-04-30: no Preparing; Step empty without a schedule.
  ASSERT_TRUE(ParseStepTraceTime(
                  "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,"
                  "Stage,Bubble,Communication(Not Overlapped and Exclude Receive)\n"
                  ",75422.22,151303.54,7129.46,158433.0,67860.8,294586.5,0,151303.54\n",
                  "c.csv", &profile)
                  .ok());
  ASSERT_EQ(profile.step_trace.size(), 3u);
  const model::StepTraceRow& a = profile.step_trace[0];
  EXPECT_EQ(a.device_id, 4);
  EXPECT_EQ(a.step, 13);
  EXPECT_EQ(a.communication_ns, 420174260);
  EXPECT_EQ(a.computing_ns, 231290100);
  EXPECT_EQ(a.stage_ns, 810022250);
  EXPECT_EQ(a.preparing_ns, 206250);
  EXPECT_EQ(profile.step_trace[1].device_id, std::nullopt);
  EXPECT_EQ(profile.step_trace[1].overlapped_ns, 4001282);
  EXPECT_EQ(profile.step_trace[2].step, model::kNoStep);
  EXPECT_EQ(profile.step_trace[2].preparing_ns, std::nullopt);
  EXPECT_EQ(profile.ledgers.size(), 3u);
  ExpectLedgersAddUp(profile);
}

TEST(AscendOpStatisticTest, WithAndWithoutDeviceId) {
  model::RankProfile profile;
  ASSERT_TRUE(ParseOpStatistic(
                  "Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),"
                  "Max Time(us),Ratio(%)\n"
                  "0,FlashAttentionScoreGrad,MIX_AIC,28,63128.66,2219.14,2254.595,2286.72,27.294\n",
                  "a.csv", &profile)
                  .ok());
  ASSERT_TRUE(
      ParseOpStatistic("OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max "
                       "Time(us),Ratio(%)\r\n"
                       "TransData,AI_VECTOR_CORE,57,1423.208,6.54,24.969,70.801,16.038\r\n"
                       "Broken,AI_CORE,x,1,1,1,1,1\r\n",
                       "b.csv", &profile)
          .ok());
  ASSERT_EQ(profile.op_statistic.size(), 2u);
  const model::OpStatisticRow& row = profile.op_statistic[0];
  EXPECT_EQ(row.op_type, "FlashAttentionScoreGrad");
  EXPECT_EQ(row.core_type, "MIX_AIC");
  EXPECT_EQ(row.count, 28);
  EXPECT_EQ(row.total_ns, 63128660);
  EXPECT_EQ(row.min_ns, 2219140);
  EXPECT_EQ(row.avg_ns, 2254595);
  EXPECT_EQ(row.max_ns, 2286720);
  EXPECT_DOUBLE_EQ(row.ratio_pct, 27.294);
  EXPECT_EQ(profile.op_statistic[1].count, 57);
  EXPECT_EQ(profile.ledgers[1].skipped_by_reason().at("unparsable Count"), 1);
  ExpectLedgersAddUp(profile);
}

TEST(AscendProfilerInfoTest, StringAndIntRankIds) {
  model::CaptureInfo info;
  ASSERT_TRUE(ParseProfilerInfo(
                  R"({"config": {"common_config": {"activities": ["ProfilerActivity.NPU"]},
                      "experimental_config": {"_profiler_level": "Level2",
                                              "_aic_metrics": "ACL_AICORE_PIPE_UTILIZATION",
                                              "_export_type": ["text"]}},
                      "torch_npu_version": "2.7.1", "cann_version": "8.3.RC1", "rank_id": "3"})",
                  "info.json", &info)
                  .ok());
  EXPECT_EQ(info.rank, 3);
  EXPECT_EQ(info.torch_npu_version, "2.7.1");
  EXPECT_EQ(info.cann_version, "8.3.RC1");
  EXPECT_EQ(info.profiler_level, "Level2");
  EXPECT_EQ(info.aic_metrics, "ACL_AICORE_PIPE_UTILIZATION");

  model::CaptureInfo old_info;
  ASSERT_TRUE(ParseProfilerInfo(R"({"config": {}, "rank_id": 7})", "info.json", &old_info).ok());
  EXPECT_EQ(old_info.rank, 7);
  EXPECT_TRUE(old_info.cann_version.empty());
}

TEST(AscendProfilerInfoTest, FileNameRankWinsAndBadJsonIsAnError) {
  EXPECT_EQ(RankFromProfilerInfoName("profiler_info_12.json"), 12);
  EXPECT_EQ(RankFromProfilerInfoName("profiler_info.json"), std::nullopt);
  EXPECT_EQ(RankFromProfilerInfoName("profiler_info_x.json"), std::nullopt);
  const std::string dir = testing::MakeTempDir("info");
  WriteFileBytes(dir + "/profiler_info_5.json", R"({"rank_id": "2"})");
  model::CaptureInfo info;
  ASSERT_TRUE(ReadProfilerInfoFile(dir + "/profiler_info_5.json", &info).ok());
  EXPECT_EQ(info.rank, 5);

  model::CaptureInfo bad;
  Status status = ParseProfilerInfo(R"({"rank_id": )", "bad.json", &bad);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("bad.json"), std::string::npos);
}

TEST(AscendProfilerMetadataTest, EnvAndDistributedArgs) {
  model::CaptureInfo info;
  ASSERT_TRUE(ParseProfilerMetadata(
                  R"({"distributed_args": {"tensor_model_parallel_size": 1,
                      "pipeline_model_parallel_size": 2, "data_parallel_size": 2,
                      "sequence_parallel": false, "rank": 2, "world_size": 4},
                      "ENV_VARIABLES": {"ASCEND_GLOBAL_LOG_LEVEL": "3", "HCCL_ALGO": ""},
                      "parallel_group_info": {"group_name_0": {"global_ranks": [0, 1]}}})",
                  "meta.json", &info)
                  .ok());
  EXPECT_EQ(info.world_size, 4);
  EXPECT_EQ(info.parallel_sizes.at("pipeline_model_parallel_size"), 2);
  EXPECT_EQ(info.parallel_sizes.count("rank"), 0u);
  EXPECT_EQ(info.env.at("ASCEND_GLOBAL_LOG_LEVEL"), "3");
  EXPECT_EQ(info.env.at("HCCL_ALGO"), "");
  // A group without a name is not kept (nothing could refer to it).
  EXPECT_TRUE(info.parallel_groups.empty());
}

// parallel_group_info as MindSpeed writes it (the corpus Qwen3 PP=2 job):
// this rank's place in each process group; a member of another type is
// left out, the rest kept.
TEST(AscendProfilerMetadataTest, ParallelGroups) {
  model::CaptureInfo info;
  ASSERT_TRUE(ParseProfilerMetadata(
                  R"({"parallel_group_info": {
                      "group_name_13": {"group_name": "mp", "group_rank": 1, "global_ranks": [0, 2]},
                      "group_name_19": {"group_name": "pp", "group_rank": 1, "global_ranks": [0, 2]},
                      "group_name_7": {"group_name": "dp", "group_rank": "x", "global_ranks": [2, 3]},
                      "group_name_8": 5}})",
                  "meta.json", &info)
                  .ok());
  ASSERT_EQ(info.parallel_groups.size(), 3u);
  EXPECT_EQ(info.parallel_groups[1].name, "pp");
  EXPECT_EQ(info.parallel_groups[1].group_rank, 1);
  EXPECT_EQ(info.parallel_groups[1].global_ranks, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(info.parallel_groups[2].name, "dp");
  EXPECT_EQ(info.parallel_groups[2].group_rank, -1);
  EXPECT_EQ(info.parallel_groups[2].global_ranks, (std::vector<int32_t>{2, 3}));
}

TEST(AscendRankLoaderTest, FullRankDirectory) {
  const fs::path dir = fs::path(testing::MakeTempDir("rank")) / "host_1_20250101_ascend_pt";
  WriteFileBytes(dir / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", kCann83);
  WriteFileBytes(dir / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                 "Step,Computing,Communication\n13,1,2\n");
  WriteFileBytes(dir / "profiler_info_6.json", R"({"rank_id": "6", "cann_version": "8.3.RC1"})");
  WriteFileBytes(dir / "profiler_metadata.json", "{not json");
  Result<model::RankProfile> result = LoadAscendRank(dir.string());
  ASSERT_TRUE(result.ok()) << result.status().message();
  const model::RankProfile& profile = *result;
  EXPECT_EQ(profile.rank, 6);
  EXPECT_EQ(profile.device_events.size(), 2u);
  EXPECT_EQ(profile.step_trace.size(), 1u);
  EXPECT_EQ(profile.info.cann_version, "8.3.RC1");
  ASSERT_EQ(profile.ledgers.size(), 2u);  // kernel_details + step_trace_time
  // op_statistic.csv, api_statistic.csv, operator_details.csv, the three
  // memory files, communication.json, communication_matrix.json,
  // trace_view.json.
  ASSERT_EQ(profile.missing_files.size(), 9u);
  EXPECT_NE(profile.missing_files[0].find("op_statistic.csv (Level1+ only"), std::string::npos);
  EXPECT_NE(profile.missing_files[1].find("api_statistic.csv (Level1+ only"), std::string::npos);
  EXPECT_NE(profile.missing_files[2].find("operator_details.csv"), std::string::npos);
  EXPECT_NE(profile.missing_files[3].find("memory_record.csv (profile_memory=True"),
            std::string::npos);
  EXPECT_NE(profile.missing_files[4].find("operator_memory.csv"), std::string::npos);
  EXPECT_NE(profile.missing_files[5].find("npu_module_mem.csv"), std::string::npos);
  EXPECT_NE(profile.missing_files[6].find("communication.json"), std::string::npos);
  EXPECT_NE(profile.missing_files[7].find("communication_matrix.json"), std::string::npos);
  EXPECT_NE(profile.missing_files[8].find("trace_view.json"), std::string::npos);
  EXPECT_FALSE(profile.has_api_statistic);
  ASSERT_EQ(profile.warnings.size(), 1u);  // the broken metadata JSON
  EXPECT_NE(profile.warnings[0].find("profiler_metadata.json"), std::string::npos);
  ExpectLedgersAddUp(profile);

  // The ASCEND_PROFILER_OUTPUT directory itself is accepted too.
  Result<model::RankProfile> from_output =
      LoadAscendRank((dir / "ASCEND_PROFILER_OUTPUT").string());
  ASSERT_TRUE(from_output.ok());
  EXPECT_EQ(from_output->rank, 6);
  EXPECT_EQ(from_output->source_dir, dir.string());
}

// With two threads or more, communication.json is read beside
// kernel_details.csv: the profile must be the one a single thread loads,
// whether the file is whole or damaged.
TEST(AscendRankLoaderTest, CommunicationReadBesideTheCsvGivesTheSingleThreadProfile) {
  const std::string job = testing::MakeTempDir("rank_comm_threads");
  synth::SynthOptions options;
  options.ranks = 1;
  ASSERT_TRUE(synth::WriteSynthJob(options, job).ok());
  fs::path rank_dir;
  for (const auto& entry : fs::directory_iterator(job)) {
    if (entry.path().filename().string().ends_with("_ascend_pt")) rank_dir = entry.path();
  }
  ASSERT_FALSE(rank_dir.empty());
  const fs::path communication = rank_dir / "ASCEND_PROFILER_OUTPUT/communication.json";
  ASSERT_TRUE(fs::exists(communication));
  for (const bool damaged : {false, true}) {
    if (damaged) WriteFileBytes(communication, "{\"step5\": {\"Communication\": [");
    Result<model::RankProfile> one = LoadAscendRank(rank_dir.string(), 1);
    Result<model::RankProfile> four = LoadAscendRank(rank_dir.string(), 4);
    ASSERT_TRUE(one.ok()) << one.status().message();
    ASSERT_TRUE(four.ok()) << four.status().message();
    EXPECT_EQ(one->communication.ops.empty(), damaged);
    testing::ExpectSameCommunication(one->communication, four->communication);
    EXPECT_EQ(one->warnings, four->warnings) << damaged;
    EXPECT_EQ(one->missing_files, four->missing_files) << damaged;
    EXPECT_EQ(one->device_events.size(), four->device_events.size()) << damaged;
    // A damaged file is a warning that names it, at either thread count.
    const bool named = std::any_of(
        four->warnings.begin(), four->warnings.end(),
        [](const std::string& w) { return w.find("communication.json") != std::string::npos; });
    EXPECT_EQ(named, damaged);
  }
}

TEST(AscendRankLoaderTest, StepTraceOnlyRankLoadsWithoutKernels) {
  const fs::path dir = fs::path(testing::MakeTempDir("rank")) / "rank_1_ascend_pt";
  WriteFileBytes(dir / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                 "Step,Computing,Communication\n13,1,2\n");
  Result<model::RankProfile> result = LoadAscendRank(dir.string());
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->device_events.size(), 0u);
  EXPECT_EQ(result->step_trace.size(), 1u);
  ASSERT_FALSE(result->missing_files.empty());
  EXPECT_EQ(result->missing_files[0].rfind("kernel_details.csv", 0), 0u);
}

TEST(AscendRankLoaderTest, EmptyDirectoryFails) {
  const fs::path dir = fs::path(testing::MakeTempDir("rank")) / "rank_9_ascend_pt";
  fs::create_directories(dir);
  Result<model::RankProfile> result = LoadAscendRank(dir.string());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_NE(result.status().message().find("hint: "), std::string::npos);
  EXPECT_EQ(LoadAscendRank(dir.string() + "/nope").status().code(), StatusCode::kNotFound);
}

// A Level0 export: kernel_details.csv without Type, op_statistic.csv of
// the same rank (tests/data/ascend_level0_types). The types op_statistic.csv
// names replace those derived from the kernel names and are no longer
// marked derived; a kernel whose type it does not name keeps the derived one.
TEST(AscendRankLoaderTest, Level0TypesComeFromOpStatisticWhereItNamesThem) {
  Result<model::RankProfile> result =
      LoadAscendRank(testing::DataDir() + "/ascend_level0_types/rank_0_ascend_pt");
  ASSERT_TRUE(result.ok()) << result.status().message();
  const model::RankProfile& profile = *result;
  ASSERT_EQ(profile.device_events.size(), 6u);
  std::vector<std::pair<std::string, uint8_t>> types;
  for (size_t i = 0; i < profile.device_events.size(); ++i) {
    types.emplace_back(profile.strings.Get(profile.device_events.op_type[i]),
                       profile.device_events.op_type_derived[i]);
  }
  const std::vector<std::pair<std::string, uint8_t>> expected = {
      {"BatchMatMulV2", 0},  // RightBatchMatMulV2's tail (not MatMulV2, a shorter one)
      {"TopKD", 0},          // TopKV2 without its version, with CANN's D
      {"ReduceSumD", 0},     // ReduceSum with CANN's D
      {"Mul", 0},            // the derived type, named as such
      {"BatchMatMulV2", 0},
      {"UnlistedKernel", 1}};  // op_statistic.csv does not name it: still derived
  EXPECT_EQ(types, expected);
}

}  // namespace
}  // namespace trainscope::formats
