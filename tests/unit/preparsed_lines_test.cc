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

// Every field a reader fills, as text, for comparing two reads.
std::string Describe(const ReadTrainingLog& read) {
  std::string out = std::to_string(static_cast<int>(read.log.format)) + "|" + read.warning;
  const RowLedger& ledger = read.ledger;
  out += "|ledger " + std::to_string(ledger.rows_read()) + " " +
         std::to_string(ledger.rows_used()) + " " + std::to_string(ledger.rows_skipped());
  for (const auto& [reason, n] : ledger.skipped_by_reason())
    out += "|" + reason + std::to_string(n);
  for (const auto& [reason, n] : ledger.notes_by_reason()) out += "|" + reason + std::to_string(n);
  for (const RowIssueSample& s : ledger.samples()) {
    out += "|s" + std::to_string(s.line) + s.reason + s.detail;
  }
  auto bits = [](const model::MaybeDouble& v) {
    return v ? std::to_string(std::bit_cast<uint64_t>(*v)) : std::string("-");
  };
  auto maybe = [](const std::optional<int64_t>& v) {
    return v ? std::to_string(*v) : std::string("-");
  };
  for (const model::TrainingRecord& r : read.log.records) {
    out += "\n" + std::to_string(r.step) + " " + std::to_string(r.step_is_ordinal) + " " +
           std::to_string(r.engine) + " " + std::to_string(r.rank) + " " + bits(r.loss) + " " +
           bits(r.grad_norm) + " " + bits(r.step_time_ms) + " " + bits(r.tokens_per_s) + " " +
           bits(r.tflops) + " " + bits(r.mfu_pct) + " " + bits(r.learning_rate) + " " +
           maybe(r.skipped_iterations) + " " + maybe(r.nan_iterations) + " " + maybe(r.wall_ns) +
           " " + std::to_string(r.offset) + " " + std::to_string(r.line);
  }
  for (const model::LogErrorLine& e : read.log.errors) {
    out += "\ne" + std::to_string(static_cast<int>(e.kind)) + " " + std::to_string(e.line) + " " +
           std::to_string(e.offset) + " " + maybe(e.wall_ns) + " " + maybe(e.last_step) + e.text;
  }
  for (const int64_t n : read.log.error_counts) out += " " + std::to_string(n);
  for (const model::LogGap& g : read.log.largest_gaps) {
    out += "\ng" + std::to_string(g.gap_ns) + " " + std::to_string(g.line_before) + " " +
           std::to_string(g.line_after) + " " + maybe(g.last_step) + g.text_before;
  }
  for (const std::string& line : read.log.first_lines) out += "\nf" + line;
  return out;
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
  Result<ReadTrainingLog> alone = ReadTrainingLogBytes(text, false, "mixed.log", nullptr, 1);
  Result<ReadTrainingLog> ahead = ReadTrainingLogBytes(text, false, "mixed.log", nullptr, 2);
  Result<ReadTrainingLog> ahead3 = ReadTrainingLogBytes(text, false, "mixed.log", nullptr, 3);
  ASSERT_TRUE(alone.ok() && ahead.ok() && ahead3.ok());
  EXPECT_GT(alone->log.records.size(), 1000u);
  EXPECT_TRUE(alone->ledger.Balanced());
  const std::string expected = Describe(*alone);
  EXPECT_TRUE(Describe(*ahead) == expected);
  EXPECT_TRUE(Describe(*ahead3) == expected);
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

TEST(PreparsedLines, RealLogsParsedAheadAreTheLogsReadLineByLine) {
  TS_REQUIRE_CORPUS("logs");
  // DeepSpeed-Chat's engines and overflows, a trainer_state.json, MindSpeed's
  // metrics JSON, framework docs' pasted logs.
  ExpectParsedAheadIsReadLineByLine(TextFilesOf(corpus_path + "/logs"));
}

}  // namespace
}  // namespace trainscope::formats
