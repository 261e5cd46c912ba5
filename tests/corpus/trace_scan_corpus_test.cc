// The chunked trace scan with its plain-event reader and without it, on every
// Chrome trace of the corpus (Kineto .json.gz of CUDA and ROCm, of 2021 to
// now; torch_npu trace_view.json): the same events, field by field, and
// nearly all of them read by the plain reader, where the speed is.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "formats/trace/chrome_json.h"
#include "formats/trace/scan_options.h"
#include "raw_event_text.h"
#include "test_paths.h"

namespace trainscope {
namespace {

TEST(TraceScanCorpusTest, EveryTraceReadsAlikeWithAndWithoutThePlainReader) {
  TS_REQUIRE_CORPUS("kineto");
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpus_path)) {
    const std::string path = entry.path().string();
    const bool trace = path.ends_with(".json.gz") || path.ends_with("trace_view.json") ||
                       (path.ends_with(".json") && path.find("/kineto/") != std::string::npos);
    if (!entry.is_regular_file() || !trace) continue;
    testing::EveryFieldSink with, without;
    formats::trace::ScanReport with_report, without_report;
    formats::trace::ScanOptions options;
    options.threads = 2;
    options.chunk_bytes = size_t{1} << 20;  // several chunks even in the small samples
    const Status with_status = formats::trace::ScanJsonFile(path, &with, &with_report, options);
    options.plain_event_reader = false;
    const Status without_status =
        formats::trace::ScanJsonFile(path, &without, &without_report, options);
    ASSERT_EQ(with_status.ok(), without_status.ok()) << path;
    if (!with_status.ok()) continue;
    ++files;
    EXPECT_EQ(with_report.damaged, without_report.damaged) << path;
    ASSERT_EQ(with.events, without.events) << path;
    // Every event of a chunked read through the plain reader but a handful
    // (names with escaped quotes, say).
    if (with_report.chunks > 0 && !with_report.slow_path && with_report.events > 1000) {
      EXPECT_GE(with_report.plain_events * 100, with_report.events * 99)
          << path << ": " << with_report.plain_events << " of " << with_report.events;
    }
  }
  EXPECT_GE(files, 15U);
}

}  // namespace
}  // namespace trainscope
