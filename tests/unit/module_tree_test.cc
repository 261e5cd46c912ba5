// The nn.Module time tree (analysis/step/module_tree.h) of a hand-built
// trace: modules nested in modules, kernels launched inside them, one
// launched outside, and a module called twice.
#include "analysis/step/module_tree.h"

#include <gtest/gtest.h>

#include "profile_builder.h"

namespace trainscope::analysis {
namespace {

int32_t Frame(model::RankProfile* p, const char* name, const char* category, int64_t start,
              int64_t end, int32_t parent) {
  const int32_t op = testing::AddHostOp(p, name, start, end, parent);
  p->timeline.host_ops.category[static_cast<size_t>(op)] = p->strings.Intern(category);
  return op;
}

TEST(ModuleTreeTest, KernelsAndCallsRollUpTheModulePath) {
  model::RankProfile p;
  p.timeline.present = true;
  // Model_0 [0, 100) > Layer_0 [10, 40) > Norm_0 [12, 20); Layer_0 is
  // called again [50, 80) (a second micro-batch: the same path); a
  // python frame that is not a module sits between Model_0 and Layer_0.
  const int32_t model = Frame(&p, "nn.Module: Model_0", "python_function", 0, 100, model::kNoIndex);
  const int32_t fn = Frame(&p, "model.py(12): forward", "python_function", 5, 90, model);
  const int32_t layer = Frame(&p, "nn.Module: Layer_0", "python_function", 10, 40, fn);
  const int32_t norm = Frame(&p, "nn.Module: Norm_0", "python_function", 12, 20, layer);
  const int32_t launch_norm = Frame(&p, "cudaLaunchKernel", "cuda_runtime", 13, 14, norm);
  const int32_t launch_layer = Frame(&p, "cudaLaunchKernel", "cuda_runtime", 30, 31, layer);
  const int32_t layer_again = Frame(&p, "nn.Module: Layer_0", "python_function", 50, 80, fn);
  const int32_t launch_again = Frame(&p, "cudaLaunchKernel", "cuda_runtime", 60, 61, layer_again);
  const int32_t launch_model = Frame(&p, "cudaLaunchKernel", "cuda_runtime", 92, 93, model);
  // A module with no kernel is not in the tree.
  Frame(&p, "nn.Module: Dropout_0", "python_function", 94, 95, model);
  // Two kernels from the norm's launch site, one each from the layer's two
  // calls and from the model, one with no launch link.
  testing::AddKernel(&p, 100, 110, launch_norm);
  testing::AddKernel(&p, 110, 115, launch_norm);
  testing::AddKernel(&p, 120, 150, launch_layer);
  testing::AddKernel(&p, 160, 200, launch_again);
  testing::AddKernel(&p, 210, 215, launch_model);
  testing::AddKernel(&p, 220, 227);
  p.device_events.SortByStart();

  Motif fused;
  fused.fingerprint = "unfused-rmsnorm";
  fused.framework_op = "nn.Module: Norm_0";
  Motif elsewhere;
  elsewhere.fingerprint = "unfused-rope";
  elsewhere.framework_op = "aten::mul";
  const std::optional<ModuleTree> tree = ComputeModuleTree(p, 1, {fused, elsewhere});
  ASSERT_TRUE(tree.has_value());
  EXPECT_EQ(tree->kernels, 6);
  EXPECT_EQ(tree->outside_kernels, 1);
  EXPECT_EQ(tree->outside_ns, 7);
  ASSERT_EQ(tree->nodes.size(), 3u);
  const ModuleNode& m = tree->nodes[0];
  EXPECT_EQ(m.name, "Model_0");
  EXPECT_EQ(m.parent, -1);
  EXPECT_EQ(m.calls, 1);
  EXPECT_EQ(m.host_ns, 100);
  EXPECT_EQ(m.kernels, 5);
  EXPECT_EQ(m.kernel_ns, 10 + 5 + 30 + 40 + 5);
  const ModuleNode& l = tree->nodes[1];
  EXPECT_EQ(l.name, "Layer_0");
  EXPECT_EQ(l.parent, 0);
  EXPECT_EQ(l.calls, 2);
  EXPECT_EQ(l.host_ns, 30 + 30);
  EXPECT_EQ(l.kernels, 4);
  EXPECT_EQ(l.kernel_ns, 10 + 5 + 30 + 40);
  const ModuleNode& n = tree->nodes[2];
  EXPECT_EQ(n.name, "Norm_0");
  EXPECT_EQ(n.parent, 1);
  EXPECT_EQ(n.calls, 1);
  EXPECT_EQ(n.host_ns, 8);
  EXPECT_EQ(n.kernels, 2);
  EXPECT_EQ(n.kernel_ns, 15);
  EXPECT_EQ(n.fingerprints, (std::vector<std::string>{"unfused-rmsnorm"}));
  EXPECT_TRUE(m.fingerprints.empty());
}

TEST(ModuleTreeTest, UnknownWithoutModulesOrLaunchLinks) {
  model::RankProfile p;
  testing::AddKernel(&p, 0, 10);
  EXPECT_FALSE(ComputeModuleTree(p, 1, {}).has_value());  // no trace at all
  p.timeline.present = true;
  const int32_t op = Frame(&p, "aten::mm", "cpu_op", 0, 5, model::kNoIndex);
  testing::AddKernel(&p, 20, 30, op);
  p.device_events.SortByStart();
  EXPECT_FALSE(ComputeModuleTree(p, 1, {}).has_value());  // launch links, but no module
}

}  // namespace
}  // namespace trainscope::analysis
