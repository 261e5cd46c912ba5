// Where tests find their inputs.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::testing {

// The shared corpus (../shared/corpus next to the checkout), or
// $TRAINSCOPE_CORPUS. Empty when absent: corpus tests then GTEST_SKIP with
// a message saying so, never pass silently.
std::string CorpusDir();
// Every Kineto trace (*.json, *.json.gz) under |root|, sorted, leaving out
// the reference runs' outputs (_reference_runs).
std::vector<std::string> CorpusKinetoTraces(const std::string& root);
std::string SourceDir();
std::string DataDir();  // tests/data
std::string TrainscopeBinary();
// A fresh empty directory under the system temp dir, unique per call;
// removed with its contents when the test process exits (kept with
// TRAINSCOPE_KEEP_TEMP=1).
std::string MakeTempDir(const std::string& tag);
// The tiny Ascend job in tests/data (ascend_tiny).
std::string TinyJob();
// Writes |bytes| to |path| (the test fails where it cannot).
void WriteFileBytes(const std::filesystem::path& path, std::string_view bytes);
// The whole file's bytes ("" when it cannot be read).
std::string ReadFileBytes(const std::string& path);
// In a synth job: the rank directory of |rank| (its name carries a
// timestamp; "" when absent) and a file of its ASCEND_PROFILER_OUTPUT.
std::string SynthRankDir(const std::string& job, int rank);
std::string SynthOutputFile(const std::string& job, int rank, const std::string& file);

}  // namespace trainscope::testing

#define TS_REQUIRE_CORPUS(subdir)                                                    \
  std::string corpus_path = ::trainscope::testing::CorpusDir();                      \
  if (corpus_path.empty() || !std::filesystem::exists(corpus_path + "/" + (subdir))) \
  GTEST_SKIP() << "corpus not found (" << corpus_path << "/" << (subdir)             \
               << "); set TRAINSCOPE_CORPUS to ../shared/corpus to run this test"
