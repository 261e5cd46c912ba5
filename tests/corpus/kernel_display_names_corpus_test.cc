// Kernel names of real traces as the reports show them: every mangled name
// is demangled (or outlined) once per distinct name, and the names of one
// trace, shortened for a table column, stay distinct and within the column.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "formats/trace/kineto_reader.h"
#include "model/kernel_names.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

TEST(KernelDisplayNamesCorpus, OpTypesAreDemangledAndShortenDistinctly) {
  TS_REQUIRE_CORPUS("kineto");
  const std::vector<std::string> traces = testing::CorpusKinetoTraces(corpus_path + "/kineto");
  ASSERT_GE(traces.size(), 20u) << "the corpus lost its Kineto traces";
  size_t mangled = 0;
  for (const std::string& path : traces) {
    model::RankProfile profile;
    ASSERT_TRUE(formats::ReadKinetoTrace(path, &profile).ok()) << path;
    const model::DeviceEvents& events = profile.device_events;
    std::set<std::string> op_types;
    for (size_t i = 0; i < events.size(); ++i) {
      const std::string_view name = profile.strings.Get(events.name[i]);
      const std::string op_type(profile.strings.Get(events.op_type[i]));
      if (name.starts_with("_Z")) {
        ++mangled;
        EXPECT_FALSE(op_type.starts_with("_Z")) << path << ": " << name.substr(0, 80);
      }
      op_types.insert(op_type);
    }
    const std::vector<std::string> names(op_types.begin(), op_types.end());
    for (const size_t columns : {24u, 34u, 48u}) {
      const std::vector<std::string> shown = model::DistinctElidedNames(names, columns);
      std::set<std::string> texts;
      for (size_t i = 0; i < names.size(); ++i) {
        EXPECT_LE(model::TextColumns(shown[i]), columns) << path << ": " << shown[i];
        EXPECT_TRUE(texts.insert(shown[i]).second)
            << path << ": two op types show as " << shown[i] << " at " << columns;
      }
    }
  }
  EXPECT_GE(mangled, 1u) << "no mangled kernel name left in the corpus traces";
}

// The two cuDNN CUTLASS convolutions of the A100 DDP trace that the C++
// runtime's demangler rejects: outlined with their tile shapes, which are
// what tells them apart (128x128x32 and 64x128x32 thread-block tiles).
TEST(KernelDisplayNamesCorpus, RejectedMangledNamesAreOutlinedWithTheirShapes) {
  TS_REQUIRE_CORPUS("kineto/hta_ddp_2rank_a100_rank0_nccl_metadata");
  model::RankProfile profile;
  ASSERT_TRUE(formats::ReadKinetoTrace(corpus_path +
                                           "/kineto/hta_ddp_2rank_a100_rank0_nccl_metadata/"
                                           "nccl_data.json.gz",
                                       &profile)
                  .ok());
  std::set<std::string> outlines;
  for (size_t i = 0; i < profile.device_events.size(); ++i) {
    const std::string_view name = profile.strings.Get(profile.device_events.name[i]);
    if (name.starts_with("_ZN19cutlass_cudnn_train6Kernel")) {
      outlines.insert(model::DemangledKernelName(name));
    }
  }
  ASSERT_EQ(outlines.size(), 2u);
  // Outlined here; a runtime that demangles them spells the shape as a template.
  auto has_shape = [](const std::string& text, const char* folded, const char* spelled) {
    return text.find(folded) != std::string::npos || text.find(spelled) != std::string::npos;
  };
  const std::string& first = *outlines.begin();
  const std::string& second = *outlines.rbegin();
  EXPECT_TRUE(first.starts_with("cutlass_cudnn_train::Kernel<") ||
              first.starts_with("void cutlass_cudnn_train::Kernel<"))
      << first.substr(0, 200);
  EXPECT_TRUE(has_shape(first, "128x128x32", "GemmShape<128, 128, 32>")) << first.substr(0, 200);
  EXPECT_TRUE(has_shape(second, "64x128x32", "GemmShape<64, 128, 32>")) << second.substr(0, 200);
}

}  // namespace
}  // namespace trainscope
