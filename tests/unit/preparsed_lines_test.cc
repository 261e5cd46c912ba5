// Lines parsed ahead on worker threads (formats/log/preparsed_lines.h) and a
// training log read that way: every line is used once, in order, with its
// own result; a log read with its lines parsed ahead is the log read line by
// line, record for record, on a mixed log of every fixture's formats.
#include "formats/log/preparsed_lines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/mapped_file.h"
#include "formats/log/training_log_reader.h"
#include "log_read_text.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

struct LineSum {
  int64_t number = -1;
  size_t bytes = 0;
};

TEST(PreparsedLines, EveryLineIsUsedOnceInOrderWithItsOwnResult) {
  for (const unsigned workers : {0u, 1u, 3u}) {
    std::vector<int64_t> used;
    std::vector<std::string> texts;
    bool all_match = true;
    {
      PreparsedLines<LineSum> lines(
          workers,
          [](const LogLine& l, LineSum* out) {
            out->number = l.number;
            out->bytes = l.text.size();
          },
          [&](const LogLine& l, const LineSum& sum) {
            all_match = all_match && sum.number == l.number && sum.bytes == l.text.size();
            used.push_back(l.number);
            texts.emplace_back(l.text);
          });
      // More lines than the window holds, long lines closing batches early.
      const size_t count =
          PreparsedLines<LineSum>::kBatchLines * (PreparsedLines<LineSum>::kWindow * 2 + 1);
      std::string text;
      for (size_t i = 1; i <= count; ++i) {
        text = i % 997 == 0 ? std::string(300000, 'x') : "line " + std::to_string(i);
        LogLine line;
        line.text = text;  // valid only during Add, as the line reader's
        line.number = static_cast<int64_t>(i);
        lines.Add(line);
      }
      lines.Finish();
    }
    ASSERT_FALSE(used.empty());
    EXPECT_TRUE(all_match) << workers << " workers";
    for (size_t i = 0; i < used.size(); ++i) {
      ASSERT_EQ(used[i], static_cast<int64_t>(i) + 1) << workers << " workers";
    }
    EXPECT_EQ(texts[4], "line 5");
    EXPECT_EQ(texts[996].size(), 300000u);
  }
}

// The text files under |dir| (not gzip, not binary), one after the other.
std::string TextFilesOf(const std::string& dir) {
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string path = entry.path().string();
    if (entry.is_regular_file() && !path.ends_with(".gz") && !path.ends_with(".py") &&
        !path.ends_with("SOURCE.txt")) {
      paths.push_back(path);
    }
  }
  std::sort(paths.begin(), paths.end());  // the directory's order is the file system's
  std::string text;
  for (const std::string& path : paths) {
    Result<MappedFile> file = MappedFile::Open(path);
    if (!file.ok() || !NotTextReason(file->data()).empty()) continue;
    text.append(file->data());
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  return text;
}

// |one_round| repeated past the size from which lines are parsed ahead,
// read line by line and with 1 and 2 workers: the same log.
void ExpectParsedAheadIsReadLineByLine(const std::string& one_round) {
  ASSERT_GT(one_round.size(), 10000u);
  std::string text;
  while (text.size() < (size_t{6} << 20)) text += one_round;
  Result<ReadTrainingLog> alone = ReadTrainingLogBytes(text, false, "mixed.log", nullptr, {1});
  Result<ReadTrainingLog> ahead = ReadTrainingLogBytes(text, false, "mixed.log", nullptr, {2});
  Result<ReadTrainingLog> ahead3 = ReadTrainingLogBytes(text, false, "mixed.log", nullptr, {3});
  ASSERT_TRUE(alone.ok() && ahead.ok() && ahead3.ok());
  EXPECT_GT(alone->log.records.size(), 1000u);
  EXPECT_TRUE(alone->ledger.Balanced());
  const std::string expected = testing::EveryFieldOf(*alone);
  EXPECT_TRUE(testing::EveryFieldOf(*ahead) == expected);
  EXPECT_TRUE(testing::EveryFieldOf(*ahead3) == expected);
}

TEST(PreparsedLines, ALogParsedAheadIsTheLogReadLineByLine) {
  // Every text fixture, one after the other, repeated: Megatron, DeepSpeed,
  // TorchTitan, HF Trainer dicts and JSON documents, key=value, colour
  // codes, error lines and silences, cut across batches anywhere.
  const std::string fixtures = TextFilesOf(testing::SourceDir() + "/tests/data/logs");
  ExpectParsedAheadIsReadLineByLine(fixtures);
  Result<ReadTrainingLog> once = ReadTrainingLogBytes(fixtures, false, "fixtures.log");
  ASSERT_TRUE(once.ok());
  EXPECT_FALSE(once->log.errors.empty());  // error lines are in the mix
}

TEST(PreparsedLines, ASmallLogParsedAheadIsTheLogReadLineByLine) {
  // LogReadOptions::parse_ahead_bytes 0: each fixture alone, plain and
  // gzip, through the threads a big log takes (the fuzzer does the same).
  for (const auto& entry : fs::directory_iterator(testing::SourceDir() + "/tests/data/logs")) {
    if (!entry.is_regular_file()) continue;
    Result<MappedFile> file = MappedFile::Open(entry.path().string());
    ASSERT_TRUE(file.ok());
    const bool gzip = entry.path().extension() == ".gz";
    const Result<ReadTrainingLog> alone =
        ReadTrainingLogBytes(file->data(), gzip, "one.log", nullptr, {1});
    ASSERT_TRUE(alone.ok()) << entry.path();
    for (const unsigned threads : {2u, 3u}) {
      const Result<ReadTrainingLog> ahead =
          ReadTrainingLogBytes(file->data(), gzip, "one.log", nullptr, {threads, 0});
      ASSERT_TRUE(ahead.ok()) << entry.path();
      EXPECT_EQ(testing::EveryFieldOf(*ahead), testing::EveryFieldOf(*alone))
          << entry.path() << ", " << threads << " threads";
    }
  }
}

TEST(PreparsedLines, RealLogsParsedAheadAreTheLogsReadLineByLine) {
  TS_REQUIRE_CORPUS("logs");
  // DeepSpeed-Chat's engines and overflows, a trainer_state.json, MindSpeed's
  // metrics JSON, framework docs' pasted logs.
  ExpectParsedAheadIsReadLineByLine(TextFilesOf(corpus_path + "/logs"));
}

}  // namespace
}  // namespace trainscope::formats
