// The split reads on the real exports: every communication.json
// of the corpus read one step at a time gives what the whole parse gives
// (the files are small, so the piecewise path is forced), and every
// kernel_details.csv read in small chunks on two threads gives
// the rows and ledger of a front-to-back read of the view.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "communication_equal.h"
#include "formats/ascend/communication_reader.h"
#include "formats/ascend/kernel_details_reader.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

// Every file called |name| under the corpus's ascend folder (at least one).
std::vector<fs::path> AscendCorpusFiles(const std::string& corpus_path, const std::string& name) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::recursive_directory_iterator(corpus_path + "/ascend")) {
    if (entry.path().filename() == name) found.push_back(entry.path());
  }
  EXPECT_GE(found.size(), 1u) << name;
  return found;
}

TEST(SplitReadsCorpusTest, CommunicationFilesReadByStepEqualTheWholeParse) {
  TS_REQUIRE_CORPUS("ascend");
  for (const fs::path& path : AscendCorpusFiles(corpus_path, "communication.json")) {
    SCOPED_TRACE(path.string());
    const std::string json = testing::ReadFileBytes(path.string());
    model::CommunicationData whole;
    model::CommunicationData pieces;
    const Status whole_status = ParseCommunication(json, "c", &whole, {json.size() + 1, {}});
    const Status piece_status = ParseCommunication(json, "c", &pieces, {0, {}});
    ASSERT_EQ(whole_status.ok(), piece_status.ok()) << whole_status.message();
    testing::ExpectSameCommunication(whole, pieces);
  }
}

TEST(SplitReadsCorpusTest, KernelDetailsReadInChunksEqualsTheWholeRead) {
  TS_REQUIRE_CORPUS("ascend");
  for (const fs::path& path : AscendCorpusFiles(corpus_path, "kernel_details.csv")) {
    SCOPED_TRACE(path.string());
    const std::string data = testing::ReadFileBytes(path.string());
    model::RankProfile whole;
    ASSERT_TRUE(ParseKernelDetails(data, "kd.csv", &whole, KernelDetailsOptions{}).ok());
    model::RankProfile chunked;
    KernelDetailsOptions options;
    options.threads = 2;
    options.chunk_bytes = 4096;
    ASSERT_TRUE(ParseKernelDetails(data, "kd.csv", &chunked, options).ok());
    const model::DeviceEvents& a = whole.device_events;
    const model::DeviceEvents& b = chunked.device_events;
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(a.start_ns, b.start_ns);
    EXPECT_EQ(a.duration_ns, b.duration_ns);
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.op_state, b.op_state);
    EXPECT_EQ(a.has_pmu(), b.has_pmu());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(whole.strings.Get(a.name[i]), chunked.strings.Get(b.name[i])) << i;
      const model::TensorDescription& x = a.tensors_of(i);
      const model::TensorDescription& y = b.tensors_of(i);
      ASSERT_EQ(whole.strings.Get(x.input_shapes), chunked.strings.Get(y.input_shapes)) << i;
      ASSERT_EQ(whole.strings.Get(x.input_dtypes), chunked.strings.Get(y.input_dtypes)) << i;
      ASSERT_EQ(whole.strings.Get(x.output_shapes), chunked.strings.Get(y.output_shapes)) << i;
      ASSERT_EQ(whole.strings.Get(x.output_dtypes), chunked.strings.Get(y.output_dtypes)) << i;
    }
    ASSERT_EQ(whole.ledgers.size(), 1u);
    ASSERT_EQ(chunked.ledgers.size(), 1u);
    EXPECT_EQ(whole.ledgers[0].rows_read(), chunked.ledgers[0].rows_read());
    EXPECT_EQ(whole.ledgers[0].rows_used(), chunked.ledgers[0].rows_used());
    EXPECT_EQ(whole.ledgers[0].skipped_by_reason(), chunked.ledgers[0].skipped_by_reason());
  }
}

}  // namespace
}  // namespace trainscope::formats
