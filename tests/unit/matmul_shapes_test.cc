// The shape rule for matrix multiplications: an input's
// innermost axis that is not a multiple of 512 bytes (Ascend's advisor).
#include "analysis/step/matmul_shapes.h"

#include <gtest/gtest.h>

#include "analysis/common/dtypes.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {
namespace {

TEST(MatmulShapes, InnerAxesAreCheckedInBytes) {
  int64_t axis = 0;
  // The corpus Qwen3 matmuls: bf16, every inner axis 1024 or 3072 or 6144.
  EXPECT_EQ(InnerAxesAligned("4096,6144;6144,1024", "DT_BF16;DT_BF16"), true);
  EXPECT_EQ(InnerAxesAligned("4096,1000;1000,4096", "DT_BF16;DT_BF16", &axis), false);
  EXPECT_EQ(axis, 1000);
  // 128 fp32 elements are 512 bytes; 128 bf16 elements are not.
  EXPECT_EQ(InnerAxesAligned("64,128;128,128", "FLOAT;FLOAT"), true);
  EXPECT_EQ(InnerAxesAligned("64,128;128,128", "FLOAT16;FLOAT16"), false);
  // Unknown types fall back to 256 elements; unreadable shapes are unknown.
  EXPECT_EQ(InnerAxesAligned("8,256;256,512", ""), true);
  EXPECT_FALSE(InnerAxesAligned("", "DT_BF16").has_value());
  EXPECT_FALSE(InnerAxesAligned("8,x;4,4", "DT_BF16").has_value());
  EXPECT_EQ(ElementBytes("DT_INT8"), 1);
  EXPECT_FALSE(ElementBytes("COMPLEX64").has_value());
  // Kineto's c10 names read from the same table.
  EXPECT_EQ(ElementBytes("BFloat16"), 2);
  EXPECT_EQ(ElementBytes("Float"), 4);
  EXPECT_EQ(ElementBytes("Float8_e4m3fn"), 1);
}

TEST(MatmulShapes, TheCostliestUnalignedShapeIsNamed) {
  model::RankProfile p;
  auto add = [&](const char* type, const char* shapes, int64_t ns) {
    model::DeviceEvent e;
    e.step = 3;
    e.op_type = p.strings.Intern(type);
    e.name = e.op_type;
    e.tensors =
        p.device_events.InternTensors({.input_shapes = p.strings.Intern(shapes),
                                       .input_dtypes = p.strings.Intern("DT_BF16;DT_BF16")});
    e.start_ns = static_cast<int64_t>(p.device_events.size()) * 1'000'000;
    e.duration_ns = ns;
    p.device_events.Append(e);
  };
  add("MatMulV3", "4096,1024;1024,3072", 500'000);
  add("MatMulV3", "4096,1000;1000,3072", 300'000);
  add("BatchMatMulV2", "8,4096,100;8,100,4096", 200'000);
  add("Add", "4096,1000;4096,1000", 900'000);  // not a matmul
  const auto u = FindUnalignedMatmuls(p, 3);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->kernels, 2);
  EXPECT_EQ(u->total_ns, 500'000);
  EXPECT_EQ(u->matmul_ns, 1'000'000);
  EXPECT_EQ(u->top_type, "MatMulV3");
  EXPECT_EQ(u->top_shapes, "4096,1000;1000,3072");
  EXPECT_EQ(u->top_axis, 1000);
  // A profile without shapes (a GPU trace) says nothing.
  model::RankProfile none;
  model::DeviceEvent e;
  e.step = 3;
  e.op_type = none.strings.Intern("MatMulV3");
  none.device_events.Append(e);
  EXPECT_FALSE(FindUnalignedMatmuls(none, 3).has_value());
}

}  // namespace
}  // namespace trainscope::analysis
