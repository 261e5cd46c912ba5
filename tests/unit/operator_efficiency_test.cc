// Per-operator efficiency: the FLOPs and bytes a call's
// input shapes determine, in both spellings (kernel_details.csv and Kineto
// "Input Dims"), the shapes of a trace's kernels taken from the host op that
// launched them, the yardstick, and the slow-matmul-shape finding.
#include "analysis/step/operator_efficiency.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/common/device_peaks.h"
#include "analysis/findings/threshold_findings.h"
#include "analysis/step/matmul_shapes.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {
namespace {

std::optional<MatmulCost> Cost(const char* op, const char* shapes) {
  const std::optional<std::vector<OperandShape>> parsed = ParseShapes(shapes);
  if (!parsed) return std::nullopt;
  return MatmulCostOf(op, *parsed);
}

constexpr double kGemm = 2.0 * 4096 * 2048 * 8192;  // 2·M·N·K of [4096, 2048]·[2048, 8192]

TEST(OperatorEfficiency, ShapesReadInBothSpellings) {
  const auto ascend = ParseShapes("4096,2048;2048,8192;");
  ASSERT_TRUE(ascend.has_value());
  ASSERT_EQ(ascend->size(), 3u);
  EXPECT_EQ((*ascend)[0].dims, (std::vector<int64_t>{4096, 2048}));
  EXPECT_TRUE((*ascend)[2].known);  // an absent optional input
  EXPECT_TRUE((*ascend)[2].dims.empty());
  const auto kineto = ParseShapes("[[4096, 2048], [2048, 8192], [], [[1, 2], [3, 4]]]");
  ASSERT_TRUE(kineto.has_value());
  ASSERT_EQ(kineto->size(), 4u);
  EXPECT_EQ((*kineto)[1].dims, (std::vector<int64_t>{2048, 8192}));
  EXPECT_TRUE((*kineto)[2].dims.empty());
  EXPECT_FALSE((*kineto)[3].known);  // a tensor list
  // Pretty-printed traces spell it over several lines.
  const auto pretty = ParseShapes("[\n  [\n    4096,\n    2048\n  ]\n]");
  ASSERT_TRUE(pretty.has_value());
  EXPECT_EQ((*pretty)[0].dims, (std::vector<int64_t>{4096, 2048}));
  EXPECT_FALSE(ParseShapes("").has_value());
  EXPECT_FALSE(ParseShapes("[[1, 2]").has_value());
  EXPECT_FALSE((*ParseShapes("4096,-1;2048,8192"))[0].known);  // dynamic axis
  EXPECT_EQ(ParseDtypes("DT_BF16;DT_BF16"), (std::vector<std::string>{"DT_BF16", "DT_BF16"}));
  EXPECT_EQ(ParseDtypes("[\"c10::BFloat16\", \"float\", \"Scalar\"]"),
            (std::vector<std::string>{"c10::BFloat16", "float", "Scalar"}));
}

TEST(OperatorEfficiency, MatmulFlopsFindTheContractionAxis) {
  for (const char* shapes :
       {"4096,2048;2048,8192", "4096,2048;8192,2048" /* B transposed */,
        "2048,4096;2048,8192" /* A transposed */, "2048,4096;8192,2048" /* both */}) {
    SCOPED_TRACE(shapes);
    const auto c = Cost("MatMulV2", shapes);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->m, 4096);
    EXPECT_EQ(c->n, 8192);
    EXPECT_EQ(c->k, 2048);
    EXPECT_DOUBLE_EQ(c->flops, kGemm);
  }
  EXPECT_DOUBLE_EQ(Cost("aten::mm", "[[4096, 2048], [2048, 8192]]")->flops, kGemm);
  // addmm: the added input first, then M·N more FLOPs (TraceLens' "+ bias").
  const auto addmm = Cost("aten::addmm", "[[8192], [4096, 2048], [2048, 8192], [], []]");
  ASSERT_TRUE(addmm.has_value());
  EXPECT_EQ(addmm->a, 1u);
  EXPECT_DOUBLE_EQ(addmm->flops, kGemm + 4096.0 * 8192);
  // linear: the weight is [out, in]; leading axes of the input multiply.
  const auto linear = Cost("aten::linear", "[[2, 4096, 2048], [8192, 2048], [8192]]");
  ASSERT_TRUE(linear.has_value());
  EXPECT_EQ(linear->batch, 2);
  EXPECT_DOUBLE_EQ(linear->flops, 2 * kGemm);
  // Batched: CANN's BatchMatMul and ATen's bmm / broadcast matmul.
  EXPECT_DOUBLE_EQ(Cost("BatchMatMulV2", "8,4096,2048;8,2048,8192")->flops, 8 * kGemm);
  EXPECT_DOUBLE_EQ(Cost("aten::bmm", "[[8, 4096, 2048], [8, 8192, 2048]]")->flops, 8 * kGemm);
  EXPECT_DOUBLE_EQ(Cost("aten::matmul", "[[2, 1, 4096, 2048], [4, 2048, 8192]]")->flops, 8 * kGemm);
  EXPECT_FALSE(Cost("aten::matmul", "[[3, 4096, 2048], [4, 2048, 8192]]").has_value());
  // Grouped matmul: tokens x [M, K] through experts' weights [E, K, N].
  EXPECT_DOUBLE_EQ(Cost("GroupedMatmul", "4096,2048;8,2048,8192;;;;;;8")->flops, kGemm);
  // Shapes that determine nothing: no shared axis, unknown operands, no matmul.
  EXPECT_FALSE(Cost("MatMulV2", "4096,2048;1000,8192").has_value());
  EXPECT_FALSE(Cost("aten::mm", "[[[4096, 2048]], [2048, 8192]]").has_value());
  EXPECT_FALSE(Cost("Add", "4096,2048;4096,2048").has_value());
  EXPECT_TRUE(IsMatmulOp("aten::_scaled_mm"));
  EXPECT_FALSE(IsMatmulOp("aten::mmap"));
}

// A weight gradient dW = X^T dY of two [tokens, hidden] operands: without
// the output both [4096, 2048] operands read as A B^T (M = N = 4096, K =
// 2048, twice the FLOPs); the output [2048, 2048] settles K = 4096.
TEST(OperatorEfficiency, TheOutputShapeSettlesAnAmbiguousContraction) {
  const auto inputs = ParseShapes("4096,2048;4096,2048");
  const auto output = ParseShapes("2048,2048");
  ASSERT_TRUE(inputs && output);
  const std::optional<MatmulCost> guessed = MatmulCostOf("MatMulV3", *inputs);
  ASSERT_TRUE(guessed.has_value());
  EXPECT_EQ(guessed->m, 4096);
  EXPECT_EQ(guessed->k, 2048);
  const std::optional<MatmulCost> settled = MatmulCostOf("MatMulV3", *inputs, &*output);
  ASSERT_TRUE(settled.has_value());
  EXPECT_EQ(settled->m, 2048);
  EXPECT_EQ(settled->n, 2048);
  EXPECT_EQ(settled->k, 4096);
  EXPECT_DOUBLE_EQ(settled->flops, 2.0 * 2048 * 2048 * 4096);
  // An output no reading produces leaves the default reading.
  const auto odd = ParseShapes("7,7");
  const std::optional<MatmulCost> fallback = MatmulCostOf("MatMulV3", *inputs, &*odd);
  ASSERT_TRUE(fallback.has_value());
  EXPECT_EQ(fallback->k, 2048);
}

TEST(OperatorEfficiency, BytesCountInputsAndTheOutputWhereKnown) {
  bool output = false;
  const auto shapes = *ParseShapes("[[4096, 2048], [2048, 8192]]");
  const std::vector<std::string> bf16 = ParseDtypes("[\"c10::BFloat16\", \"c10::BFloat16\"]");
  const std::optional<MatmulCost> mm = MatmulCostOf("aten::mm", shapes);
  EXPECT_DOUBLE_EQ(*BytesMoved(shapes, bf16, mm, &output),
                   (4096.0 * 2048 + 2048.0 * 8192 + 4096.0 * 8192) * 2);
  EXPECT_TRUE(output);
  // An elementwise op: its inputs only; scalars move nothing.
  const auto add = *ParseShapes("4096,2048;4096,2048;");
  EXPECT_DOUBLE_EQ(*BytesMoved(add, ParseDtypes("FLOAT;FLOAT;"), std::nullopt, &output),
                   4096.0 * 2048 * 4 * 2);
  EXPECT_FALSE(output);
  // An operand of unknown type: unknown, not 0.
  EXPECT_FALSE(BytesMoved(add, ParseDtypes("FLOAT;COMPLEX32"), std::nullopt, &output));
}

TEST(OperatorEfficiency, PeaksComeFromTheDatasheetRowOfTheDevice) {
  const auto h100 = FindDevicePeak("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100.has_value());
  EXPECT_DOUBLE_EQ(*PeakTflopsFor(*h100, "c10::BFloat16"), 989.5);
  EXPECT_DOUBLE_EQ(*PeakTflopsFor(*h100, "float"), 67);
  EXPECT_DOUBLE_EQ(FindDevicePeak("NVIDIA H100 PCIe")->fp16_tflops, 756);
  EXPECT_DOUBLE_EQ(FindDevicePeak("AMD Instinct MI300X VF")->fp16_tflops, 1307.4);
  // V100 has no BF16; unknown devices have no peak at all.
  EXPECT_FALSE(PeakTflopsFor(*FindDevicePeak("Tesla V100-SXM2-32GB"), "c10::BFloat16"));
  EXPECT_FALSE(FindDevicePeak("NVIDIA A100-PG509-200").has_value());
  EXPECT_FALSE(FindDevicePeak("").has_value());
}

// An Ascend step: kernel_details rows with shapes, one call per row.
model::RankProfile AscendStep(int64_t slow_ns) {
  model::RankProfile p;
  auto add = [&](const char* type, const char* shapes, const char* dtypes, int64_t ns) {
    model::DeviceEvent e;
    e.step = 3;
    e.op_type = p.strings.Intern(type);
    e.name = e.op_type;
    e.tensors = p.device_events.InternTensors(
        {.input_shapes = p.strings.Intern(shapes), .input_dtypes = p.strings.Intern(dtypes)});
    e.start_ns = static_cast<int64_t>(p.device_events.size()) * 10'000'000;
    e.duration_ns = ns;
    p.device_events.Append(e);
  };
  // 2·4096·2048·8192 FLOPs in 0.5 ms: 275 TFLOP/s, ten calls.
  for (int i = 0; i < 10; ++i) add("MatMulV3", "4096,2048;2048,8192", "DT_BF16;DT_BF16", 500'000);
  // Half the FLOPs (N = 4096 instead of 8192) in |slow_ns| per call.
  for (int i = 0; i < 10; ++i) add("MatMulV3", "4096,2048;2048,4096", "DT_BF16;DT_BF16", slow_ns);
  add("Add", "4096,2048;4096,2048", "DT_BF16;DT_BF16", 100'000);
  add("Cast", "", "", 50'000);  // no shapes
  return p;
}

TEST(OperatorEfficiency, AscendRowsAreComparedWithTheYardstick) {
  const model::RankProfile p = AscendStep(1'000'000);
  OperatorEfficiencyOptions options;
  options.yardstick_min_share = 0.01;
  const auto e = ComputeOperatorEfficiency(p, 3, options);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->device.empty());  // the export names no device: no peak
  EXPECT_FALSE(e->peak_gbps.has_value());
  EXPECT_EQ(e->device_ns, 10 * 500'000 + 10 * 1'000'000 + 100'000 + 50'000);
  EXPECT_EQ(e->shaped_ns, e->device_ns - 50'000);
  EXPECT_EQ(e->matmul_ns, 15'000'000);
  ASSERT_EQ(e->rows.size(), 3u);
  const ShapeEfficiency& slow = e->rows[0];  // 10 ms, the costliest
  const ShapeEfficiency& fast = e->rows[1];
  EXPECT_EQ(slow.shapes, "4096,2048;2048,4096");
  EXPECT_EQ(slow.count, 10);
  EXPECT_NEAR(*fast.Tflops(), kGemm / 500'000 / 1e3, 1e-9);
  EXPECT_NEAR(*slow.RelativePct(), 25, 1e-9);  // half the FLOPs in twice the time
  EXPECT_NEAR(*fast.RelativePct(), 100, 1e-9);
  EXPECT_EQ(slow.yardstick_shapes, "MatMulV3 4096,2048;2048,8192");
  EXPECT_FALSE(slow.PeakPct().has_value());
  EXPECT_NEAR(*fast.FlopsPerByte(), kGemm / ((4096.0 * 2048 + 2048.0 * 8192 + 4096.0 * 8192) * 2),
              1e-9);
  const ShapeEfficiency& add = e->rows[2];
  EXPECT_FALSE(add.matmul);
  EXPECT_FALSE(add.Tflops().has_value());
  EXPECT_NEAR(*add.Gbps(), 4096.0 * 2048 * 2 * 2 / 100'000, 1e-9);
  // No shapes anywhere: no table.
  model::RankProfile bare;
  model::DeviceEvent k;
  k.step = 3;
  k.duration_ns = 10;
  bare.device_events.Append(k);
  EXPECT_FALSE(ComputeOperatorEfficiency(bare, 3, options).has_value());
}

TEST(OperatorEfficiency, TraceKernelsTakeTheShapesOfTheirLaunchingOp) {
  model::RankProfile p;
  model::HostOps& ops = p.timeline.host_ops;
  auto op = [&](const char* name, int32_t parent, const char* dims, const char* types) {
    model::HostOp o;
    o.name = p.strings.Intern(name);
    o.parent = parent;
    if (dims != nullptr)
      o.input_dims = p.strings.Intern(dims), o.input_types = p.strings.Intern(types);
    ops.Append(o);
    return static_cast<int32_t>(ops.size() - 1);
  };
  const char* bf16 = "[\"c10::BFloat16\", \"c10::BFloat16\"]";
  const int32_t linear = op("aten::linear", model::kNoIndex, "[[4096, 2048], [8192, 2048]]", bf16);
  int32_t launches[2];
  for (int32_t& launch : launches) {
    const int32_t mm = op("aten::mm", linear, "[[4096, 2048], [2048, 8192]]", bf16);
    launch = op("cudaLaunchKernel", mm, nullptr, nullptr);
  }
  p.timeline.devices.push_back({0, "NVIDIA H100 80GB HBM3", 0, 132, 9, 0});
  auto kernel = [&](int32_t launcher, model::ActivityKind kind, int64_t ns) {
    model::DeviceEvent e;
    e.step = 1;
    e.device = 0;
    e.kind = kind;
    e.launcher = launcher;
    e.start_ns = static_cast<int64_t>(p.device_events.size()) * 1'000'000;
    e.duration_ns = ns;
    p.device_events.Append(e);
  };
  // Each aten::mm launches a memset and a GEMM: one call of 100 us.
  for (int32_t launch : launches) {
    kernel(launch, model::ActivityKind::kMemset, 1'000);
    kernel(launch, model::ActivityKind::kCompute, 99'000);
  }
  kernel(model::kNoIndex, model::ActivityKind::kCompute, 5'000);  // no launch link
  const auto e = ComputeOperatorEfficiency(p, 1, OperatorEfficiencyOptions{});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(e->peak_device, "NVIDIA H100 SXM5 80GB");
  EXPECT_DOUBLE_EQ(*e->peak_gbps, 3350);
  ASSERT_EQ(e->rows.size(), 1u);
  const ShapeEfficiency& mm = e->rows[0];
  EXPECT_EQ(mm.op_type, "aten::mm");
  EXPECT_EQ(mm.count, 2);
  EXPECT_EQ(mm.total_ns, 200'000);
  EXPECT_NEAR(*mm.Tflops(), kGemm / 100'000 / 1e3, 1e-9);  // 1374 TFLOP/s: a made-up kernel
  EXPECT_NEAR(*mm.PeakPct(), *mm.Tflops() / 989.5 * 100, 1e-9);
  EXPECT_EQ(e->shaped_ns, 200'000);
  EXPECT_EQ(e->device_ns, 205'000);
}

// The finding on a step whose efficiency table comes from AscendStep.
std::vector<Finding> SlowShapeFindings(int64_t slow_ns, model::Platform platform) {
  const model::RankProfile p = AscendStep(slow_ns);
  const FindingCatalog& catalog = FindingCatalog::Builtin();
  OperatorEfficiencyOptions options;
  options.yardstick_min_share = catalog.thresholds().matmul_yardstick_min_share;
  StepDistribution step;
  step.step = 3;
  step.kernels.span_ns = 40'000'000;
  step.kernels.total_time_ns = 20'000'000;
  step.operator_efficiency = ComputeOperatorEfficiency(p, 3, options);
  std::vector<Finding> out;
  for (Finding& f : ThresholdFindings(step, StepTimeline(), p, catalog)) {
    if (f.id == "slow-matmul-shape") out.push_back(std::move(f));
  }
  RenderFindings(catalog, &out, platform);
  return out;
}

TEST(OperatorEfficiency, ASlowCostlyShapeIsFlaggedAndItsTwinIsNot) {
  // 10 x 1 ms at a quarter of the yardstick's rate: 7.5 ms lost of 40.
  const std::vector<Finding> flagged = SlowShapeFindings(1'000'000, model::Platform::kAscend);
  ASSERT_EQ(flagged.size(), 1u);
  const Finding& f = flagged[0];
  EXPECT_EQ(f.occurrences, 1);
  EXPECT_NEAR(f.estimated_gain_pct, 7.5 / 40 * 100, 1e-9);
  EXPECT_NE(f.evidence.find("4096,2048;2048,4096"), std::string::npos) << f.evidence;
  EXPECT_NE(f.evidence.find("25% of the"), std::string::npos) << f.evidence;
  EXPECT_NE(f.remedy.find("allow_hf32"), std::string::npos) << f.remedy;
  EXPECT_NE(SlowShapeFindings(1'000'000, model::Platform::kCuda)[0].remedy.find("allow_tf32"),
            std::string::npos);
  // The twin: the same shape at the yardstick's rate (half the FLOPs in half
  // the time) is saturated, not slow.
  EXPECT_TRUE(SlowShapeFindings(250'000, model::Platform::kAscend).empty());
  // At 60% of the yardstick it is above the 50% bar.
  EXPECT_TRUE(SlowShapeFindings(416'667, model::Platform::kAscend).empty());
}

}  // namespace
}  // namespace trainscope::analysis
