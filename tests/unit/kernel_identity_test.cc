// Two different GPU kernels never share an op type: a
// hand-made trace with two CUTLASS GEMMs that differ only in their tile
// configuration and two overloads that differ only in their parameters.
#include <gtest/gtest.h>

#include <string>

#include "analysis/common/family_rules.h"
#include "analysis/motifs/fingerprint_library.h"
#include "analysis/step/kernel_distribution.h"
#include "formats/trace/kineto_reader.h"
#include "model/kernel_names.h"
#include "model/rank_profile.h"

namespace trainscope {
namespace {

// CUTLASS 2 GEMMs as Kineto records them, template arguments shortened to
// the parts that matter: threadblock tile 128x128x32 vs 256x128x32.
const char* kTrace = R"J({
  "schemaVersion": 1,
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaMultistage<cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>, float, cutlass::layout::RowMajor>, cutlass::epilogue::threadblock::Epilogue<float> > >(cutlass::gemm::kernel::Gemm<...>::Params)", "pid": 0, "tid": 7, "ts": 10, "dur": 100, "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaMultistage<cutlass::gemm::GemmShape<256, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>, float, cutlass::layout::RowMajor>, cutlass::epilogue::threadblock::Epilogue<float> > >(cutlass::gemm::kernel::Gemm<...>::Params)", "pid": 0, "tid": 7, "ts": 200, "dur": 300, "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaMultistage<cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>, float, cutlass::layout::RowMajor>, cutlass::epilogue::threadblock::Epilogue<float> > >(cutlass::gemm::kernel::Gemm<...>::Params)", "pid": 0, "tid": 7, "ts": 600, "dur": 100, "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "my::scale_kernel(float*, int)", "pid": 0, "tid": 7, "ts": 750, "dur": 10, "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "my::scale_kernel(double*, int)", "pid": 0, "tid": 7, "ts": 800, "dur": 20, "args": {"device": 0, "stream": 7}}
  ]
})J";

const analysis::OperatorStat* FindOp(const analysis::StepDistribution& d, std::string_view type) {
  for (const auto& op : d.top_operators) {
    if (op.op_type == type) return &op;
  }
  return nullptr;
}

TEST(KernelIdentity, TwoCutlassTileConfigsAreTwoRowsOfOneFamily) {
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(kTrace, "cutlass", &p).ok());
  ASSERT_EQ(p.device_events.size(), 5u);
  const std::string tile128 = std::string(p.strings.Get(p.device_events.op_type[0]));
  const std::string tile256 = std::string(p.strings.Get(p.device_events.op_type[1]));
  // Abbreviated to the leading template and the tile shapes, plus the hash.
  EXPECT_EQ(tile128.substr(0, tile128.find('#')), "cutlass::Kernel<Gemm,128x128x32,64x64x32...>");
  EXPECT_EQ(tile256.substr(0, tile256.find('#')), "cutlass::Kernel<Gemm,256x128x32,64x64x32...>");
  EXPECT_NE(tile128, tile256);
  EXPECT_EQ(p.device_events.op_type[0], p.device_events.op_type[2]);  // one kernel, one op type

  const analysis::KernelFamilies families(p, analysis::FamilyRules::Builtin());
  const analysis::StepDistribution d =
      analysis::ComputeStepDistribution(p, model::kNoStep, families);
  const analysis::OperatorStat* a = FindOp(d, tile128);
  const analysis::OperatorStat* b = FindOp(d, tile256);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->count, 2);
  EXPECT_EQ(a->total_ns, 200'000);
  EXPECT_EQ(b->count, 1);
  EXPECT_EQ(b->total_ns, 300'000);
  EXPECT_EQ(a->family, "matmul/attention");
  EXPECT_EQ(b->family, "matmul/attention");

  // Rules see one normalised form: a type rule on the template covers both,
  // and the fingerprint library's canonical op type is the same.
  EXPECT_EQ(model::NormalisedOpType(tile128), "cutlass::Kernel");
  EXPECT_EQ(model::NormalisedOpType(tile256), "cutlass::Kernel");
  auto user = analysis::FamilyRules::Parse("tiled-gemm\ttype\tcutlass::Kernel\n", "user.tsv");
  ASSERT_TRUE(user.ok());
  const analysis::FamilyRules merged =
      analysis::FamilyRules::Merge(user.value(), analysis::FamilyRules::Builtin());
  const analysis::KernelFamilies user_families(p, merged);
  EXPECT_EQ(merged.families()[user_families.Of(0)], "tiled-gemm");
  EXPECT_EQ(merged.families()[user_families.Of(1)], "tiled-gemm");
  const auto& library = analysis::FingerprintLibrary::Builtin();
  EXPECT_EQ(library.Canonical(tile128), library.Canonical(tile256));
  EXPECT_EQ(library.Canonical(tile128), "cutlass::kernel");
}

TEST(KernelIdentity, OverloadsThatDifferInParametersGetTheirOwnHash) {
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(kTrace, "overloads", &p).ok());
  ASSERT_EQ(p.device_events.size(), 5u);
  const std::string f = std::string(p.strings.Get(p.device_events.op_type[3]));
  const std::string d = std::string(p.strings.Get(p.device_events.op_type[4]));
  EXPECT_NE(f, d);
  EXPECT_EQ(f, model::WithNameHash("my::scale_kernel", "my::scale_kernel(float*, int)"));
  EXPECT_EQ(d, model::WithNameHash("my::scale_kernel", "my::scale_kernel(double*, int)"));
  EXPECT_EQ(model::NormalisedOpType(f), "my::scale_kernel");
}

}  // namespace
}  // namespace trainscope
