// Training logs (formats/log) and their health (analysis/health): fixtures
// written from the frameworks' format strings by
// tests/data/logs/make_fixtures.py, which plants a loss spike at step 150,
// a grad-norm explosion at step 250, a 600 s silence after step 310 and NaN
// at step 380 (HF Trainer dict lines print no step: records 15, 25, 38).
#include "model/training_log.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/common/findings_catalog.h"
#include "analysis/health/training_health.h"
#include "core/mapped_file.h"
#include "formats/log/line_reader.h"
#include "formats/log/training_log_reader.h"
#include "test_paths.h"

namespace trainscope {
namespace {

using analysis::AnalyzeTrainingLog;
using analysis::FindingCatalog;
using analysis::RunHealth;

std::string Fixture(const std::string& name) {
  return testing::SourceDir() + "/tests/data/logs/" + name;
}

formats::ReadTrainingLog ReadFixtureLog(const std::string& name) {
  auto read = formats::ReadTrainingLogFile(Fixture(name));
  EXPECT_TRUE(read.ok()) << read.status().message();
  return read.ok() ? std::move(*read) : formats::ReadTrainingLog();
}

RunHealth Health(const model::TrainingLog& log) {
  return AnalyzeTrainingLog(log, FindingCatalog::Builtin().thresholds());
}

// id -> the step its evidence names ("step", or "last_step" for error lines).
std::map<std::string, int64_t> FindingSteps(const RunHealth& h) {
  std::map<std::string, int64_t> out;
  for (const auto& f : h.findings) {
    int64_t step = -1;
    for (const auto& [k, v] : f.evidence_values) {
      if (k == "step" || k == "last_step") step = static_cast<int64_t>(v);
    }
    out[f.id] = step;
  }
  return out;
}

struct FormatCase {
  const char* stem;
  model::LogFormat format;
  int64_t lines_clean;  // counted by make_fixtures.py
  int64_t not_training;
  int64_t unparsable;
  bool timestamps;  // the format's lines carry a time: the hang is findable
  int64_t spike, explosion, nan;
};

const FormatCase kCases[] = {
    {"megatron", model::LogFormat::kMegatron, 45, 3, 2, true, 150, 250, 380},
    {"torchtitan", model::LogFormat::kTorchTitan, 43, 2, 1, true, 150, 250, 380},
    {"hf_trainer", model::LogFormat::kHfTrainer, 44, 3, 1, false, 15, 25, 38},
    {"jsonl", model::LogFormat::kHfTrainer, 42, 1, 1, true, 150, 250, 380},
    {"keyvalue", model::LogFormat::kKeyValue, 41, 0, 1, true, 150, 250, 380},
    {"xtuner", model::LogFormat::kXTuner, 43, 2, 1, true, 150, 250, 380},
};

TEST(TrainingLogTest, EveryFormatCountsEveryLine) {
  for (const FormatCase& c : kCases) {
    SCOPED_TRACE(c.stem);
    const formats::ReadTrainingLog read = ReadFixtureLog(std::string(c.stem) + "_clean.log");
    EXPECT_EQ(read.log.format, c.format);
    EXPECT_EQ(read.log.records.size(), 40u);
    EXPECT_EQ(read.ledger.rows_read(), c.lines_clean);
    EXPECT_EQ(read.ledger.rows_used(), 40);
    EXPECT_TRUE(read.ledger.Balanced());
    std::map<std::string, int64_t> expected;
    if (c.not_training > 0) expected["not a training line"] = c.not_training;
    if (c.unparsable > 0) expected["unparsable number"] = c.unparsable;
    EXPECT_EQ(read.ledger.skipped_by_reason(), expected);
    EXPECT_TRUE(read.warning.empty());
  }
}

TEST(TrainingLogTest, CleanLogsHaveNoFindings) {
  for (const FormatCase& c : kCases) {
    SCOPED_TRACE(c.stem);
    const RunHealth h = Health(ReadFixtureLog(std::string(c.stem) + "_clean.log").log);
    EXPECT_TRUE(h.findings.empty()) << h.findings.front().id;
    EXPECT_EQ(h.records, 40);
  }
}

TEST(TrainingLogTest, PlantedEventsFoundAtTheirStepInEveryFormat) {
  for (const FormatCase& c : kCases) {
    SCOPED_TRACE(c.stem);
    const RunHealth h = Health(ReadFixtureLog(std::string(c.stem) + "_planted.log").log);
    std::map<std::string, int64_t> steps = FindingSteps(h);
    EXPECT_EQ(steps["loss-spike"], c.spike);
    EXPECT_EQ(steps["grad-explosion"], c.explosion);
    EXPECT_EQ(steps["nan-inf"], c.nan);
    if (c.timestamps) {
      EXPECT_EQ(steps["hang"], 310);  // the last step before the silence
    } else {
      EXPECT_EQ(steps.count("hang"), 0u);
    }
    EXPECT_EQ(steps.count("throughput-drop"), 0u);
  }
}

TEST(TrainingLogTest, MegatronNumbersAndErrorLines) {
  const formats::ReadTrainingLog read = ReadFixtureLog("megatron_planted.log");
  ASSERT_EQ(read.log.records.size(), 40u);
  const model::TrainingRecord& first = read.log.records.front();
  EXPECT_EQ(first.step, 10);
  EXPECT_EQ(first.line, 3);
  EXPECT_DOUBLE_EQ(*first.loss, 7.593042);
  EXPECT_DOUBLE_EQ(*first.grad_norm, 1.0);
  EXPECT_DOUBLE_EQ(*first.step_time_ms, 1000.0);
  EXPECT_DOUBLE_EQ(*first.tflops, 181.0);
  EXPECT_DOUBLE_EQ(*first.learning_rate, 3e-4);
  EXPECT_EQ(*first.nan_iterations, 0);
  // python3: datetime(2024,5,1,10,tzinfo=timezone.utc).timestamp() = 1714557600
  EXPECT_EQ(*first.wall_ns, 1714557600LL * 1'000'000'000);
  // Offset of line 3: the two header lines (43 + 25 bytes with their newlines).
  EXPECT_EQ(first.offset, 68);
  const RunHealth h = Health(read.log);
  // 40 step times cycling 1000, 1015, 1010, 1005 ms: median 1007.5, p90 1015.
  EXPECT_DOUBLE_EQ(*h.step_ms.median, 1007.5);
  EXPECT_DOUBLE_EQ(*h.step_ms.p90, 1015.0);
  EXPECT_EQ(h.nan_iterations, 1);
  ASSERT_EQ(read.log.errors.size(), 2u);
  EXPECT_EQ(read.log.errors[0].kind, model::LogErrorKind::kDeviceOom);
  EXPECT_EQ(read.log.errors[0].line, 46);
  EXPECT_EQ(*read.log.errors[0].last_step, 400);
  EXPECT_EQ(read.log.errors[1].kind, model::LogErrorKind::kCollectiveTimeout);
  std::map<std::string, int64_t> steps = FindingSteps(h);
  EXPECT_EQ(steps["device-oom"], 400);
  EXPECT_EQ(steps["collective-timeout"], 400);
}

TEST(TrainingLogTest, GzipReadsLikeThePlainFile) {
  const formats::ReadTrainingLog plain = ReadFixtureLog("megatron_planted.log");
  const formats::ReadTrainingLog gz = ReadFixtureLog("megatron_planted.log.gz");
  ASSERT_EQ(plain.log.records.size(), gz.log.records.size());
  for (size_t i = 0; i < plain.log.records.size(); ++i) {
    EXPECT_EQ(plain.log.records[i].offset, gz.log.records[i].offset);
    EXPECT_EQ(plain.log.records[i].step, gz.log.records[i].step);
  }
  EXPECT_EQ(plain.log.bytes, gz.log.bytes);
  EXPECT_EQ(FindingSteps(Health(plain.log)), FindingSteps(Health(gz.log)));
  // A gzip stream cut off: the lines before the cut are kept, with a warning.
  const std::string bytes = testing::ReadFileBytes(Fixture("megatron_planted.log.gz"));
  auto cut = formats::ReadTrainingLogBytes(std::string_view(bytes).substr(0, bytes.size() / 2),
                                           true, "cut.log.gz");
  ASSERT_TRUE(cut.ok());
  EXPECT_NE(cut->warning.find("cut.log.gz"), std::string::npos) << cut->warning;
  EXPECT_GT(cut->log.records.size(), 0u);
  EXPECT_LT(cut->log.records.size(), 40u);
  EXPECT_TRUE(cut->ledger.Balanced());
}

// `cat a.gz b.gz`: two gzip members are one stream, the second's lines
// continue the first's numbering and offsets.
TEST(TrainingLogTest, GzipMembersConcatenated) {
  const std::string gz = testing::ReadFileBytes(Fixture("megatron_planted.log.gz"));
  auto twice = formats::ReadTrainingLogBytes(gz + gz, true, "twice.log.gz");
  ASSERT_TRUE(twice.ok());
  EXPECT_TRUE(twice->warning.empty()) << twice->warning;
  ASSERT_EQ(twice->log.records.size(), 80u);
  EXPECT_EQ(twice->ledger.rows_read(), 94);
  EXPECT_EQ(twice->log.records[40].line, 47 + 3);
  EXPECT_EQ(twice->log.records[40].offset, twice->log.bytes / 2 + 68);
}

// The record is the reader's memory per training line: 8-byte optionals, a
// NaN read from the log is a value, not "absent".
TEST(TrainingLogTest, CompactOptionalsKeepNanAsAValue) {
  EXPECT_LE(sizeof(model::TrainingRecord), 112u);
  model::MaybeDouble absent;
  EXPECT_FALSE(absent.has_value());
  const model::MaybeDouble nan(std::numeric_limits<double>::quiet_NaN());
  ASSERT_TRUE(nan.has_value());
  EXPECT_TRUE(std::isnan(*nan));
  const model::MaybeDouble from_optional(std::optional<double>(-0.0));
  ASSERT_TRUE(from_optional.has_value());
  EXPECT_TRUE(std::signbit(*from_optional));
  model::MaybeInt count(std::optional<int64_t>(0));
  ASSERT_TRUE(count.has_value());
  EXPECT_EQ(*count, 0);
  EXPECT_FALSE(model::MaybeInt().has_value());
}

TEST(TrainingLogTest, LineReaderCrLfCutOffAndLongLines) {
  std::vector<std::pair<std::string, int64_t>> lines;
  auto fn = [&](const formats::LogLine& l) { lines.emplace_back(std::string(l.text), l.offset); };
  ASSERT_TRUE(formats::ForEachLogLineIn("a\r\nbb\n\nccc", false, "x", fn).ok());
  const std::vector<std::pair<std::string, int64_t>> expected = {
      {"a", 0}, {"bb", 3}, {"", 6}, {"ccc", 7}};
  EXPECT_EQ(lines, expected);
  int64_t too_long = 0;
  int64_t count = 0;
  const std::string huge(formats::kMaxLineBytes + 10, 'x');
  ASSERT_TRUE(
      formats::ForEachLogLineIn(huge + "\nok\n", false, "x", [&](const formats::LogLine& l) {
        ++count;
        too_long += l.too_long ? 1 : 0;
      }).ok());
  EXPECT_EQ(count, 2);
  EXPECT_EQ(too_long, 1);
}

// A plain log file is read in pieces with pread: every piece size, from one
// byte up, gives the lines of the in-memory read (lines crossing pieces
// carried, CRLF and a last line without '\n' included), and the offsets.
TEST(TrainingLogTest, FileReadInPiecesGivesTheLinesOfTheWholeRead) {
  const std::string text =
      "step 1 loss 2.5\r\n\nstep 2 loss 2.4\nlonger line, 40 bytes or so....\nlast";
  const std::string path = ::testing::TempDir() + "/pieces.log";
  std::ofstream(path, std::ios::binary) << text;
  using Lines = std::vector<std::tuple<std::string, int64_t, int64_t>>;
  auto collect = [](Lines* out) {
    return [out](const formats::LogLine& l) {
      out->emplace_back(std::string(l.text), l.offset, l.number);
    };
  };
  Lines whole;
  ASSERT_TRUE(formats::ForEachLogLineIn(text, false, "x", collect(&whole)).ok());
  ASSERT_EQ(whole.size(), 5u);
  Result<MappedFile> file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  for (size_t piece : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{16}, size_t{64},
                       formats::kLogReadPiece}) {
    Lines pieces;
    Result<int64_t> bytes = formats::ForEachLogLineOf(*file, collect(&pieces), piece);
    ASSERT_TRUE(bytes.ok()) << piece;
    EXPECT_EQ(*bytes, static_cast<int64_t>(text.size())) << piece;
    EXPECT_EQ(pieces, whole) << piece;
  }
  std::remove(path.c_str());
}

// A line's clock is int64 ns since 1970: a year past April 2262 is not a
// clock (a hostile or corrupt line; the fuzzer's UBSan saw the product
// overflow), the last second that fits is.
TEST(TrainingLogTest, TimestampsPastTheInt64ClockAreNoClock) {
  EXPECT_EQ(formats::ParseLineTimestamp("[1970-01-01 00:00:01] x"), int64_t{1'000'000'000});
  EXPECT_EQ(formats::ParseLineTimestamp("[2262-04-11 23:47:15.5] x"),
            int64_t{9'223'372'035'500'000'000});
  EXPECT_FALSE(formats::ParseLineTimestamp("[2262-04-11 23:47:17] x").has_value());
  EXPECT_FALSE(formats::ParseLineTimestamp("[9999-12-31 23:59:59] x").has_value());
  // The silence between two lines is then not timed from a wrapped clock.
  auto read = formats::ReadTrainingLogBytes(
      "[2024-05-01 00:00:01] iteration 1/ 10 | lm loss: 2.0 |\n"
      "[4000-05-01 00:00:02] iteration 2/ 10 | lm loss: 1.9 |\n"
      "[2024-05-01 00:00:03] iteration 3/ 10 | lm loss: 1.8 |\n",
      false, "clock.log");
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->log.records.size(), 3u);
  EXPECT_FALSE(read->log.records[1].wall_ns.has_value());
  for (const model::LogGap& gap : read->log.largest_gaps) EXPECT_GT(gap.gap_ns, 0);
}

// How a number may be spelled in a log field, on both paths of the number
// parser (digits parsed in place; commas, signs and words through a copy):
// each spelling's value bit for bit, or the line unparsable.
TEST(TrainingLogTest, NumberSpellings) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const struct {
    const char* text;
    std::optional<double> loss;  // nullopt: the line is unparsable
  } cases[] = {
      {"7.5", 7.5},
      {"+7.5", 7.5},
      {"-7.5", -7.5},
      {".5", 0.5},
      {"-.5", -0.5},
      {"7.994006E+00", 7.994006},
      {"3.000000E-04", 3e-4},
      {"  2.25  ", 2.25},
      {"1,234.5", 1234.5},
      {"+-5", -5.0},
      {"-0", -0.0},
      {"nan", nan},
      {"-NaN", nan},
      {"inf", inf},
      {"-Infinity", -inf},
      {"+inf", inf},
      {"1e999", std::nullopt},
      {"5x", std::nullopt},
      {"0x10", std::nullopt},
      {"-+5", std::nullopt},
      {"", std::nullopt},
      {"1.5.2", std::nullopt},
      {"e5", std::nullopt},
  };
  for (const auto& c : cases) {
    model::TrainingRecord r;
    model::LogFormat format = model::LogFormat::kUnknown;
    const std::string line = std::string("iteration 5/10 | lm loss: ") + c.text + " |";
    const RowIssue issue = formats::ParseTrainingLine(line, &r, &format);
    if (!c.loss) {
      EXPECT_EQ(issue, RowIssue::kLogUnparsableNumber) << c.text;
      continue;
    }
    ASSERT_EQ(issue, RowIssue::kNone) << c.text;
    ASSERT_TRUE(r.loss.has_value()) << c.text;
    EXPECT_EQ(std::bit_cast<uint64_t>(*r.loss), std::bit_cast<uint64_t>(*c.loss)) << c.text;
  }
  // 64 characters are a number; 65 are not (commas not counted).
  const std::string digits64 = "1." + std::string(62, '5');
  model::TrainingRecord r;
  model::LogFormat format = model::LogFormat::kUnknown;
  EXPECT_EQ(formats::ParseTrainingLine("iteration 5/10 | lm loss: " + digits64 + " |", &r, &format),
            RowIssue::kNone);
  EXPECT_EQ(
      formats::ParseTrainingLine("iteration 5/10 | lm loss: " + digits64 + "5 |", &r, &format),
      RowIssue::kLogUnparsableNumber);
  EXPECT_EQ(
      formats::ParseTrainingLine("iteration 5/10 | lm loss: 1," + digits64 + " |", &r, &format),
      RowIssue::kLogUnparsableNumber);
}

TEST(TrainingLogTest, LineParsers) {
  model::TrainingRecord r;
  model::LogFormat format = model::LogFormat::kUnknown;
  EXPECT_EQ(formats::ParseTrainingLine("step=3 loss=1.5 grad_norm=0.5", &r, &format),
            RowIssue::kNone);
  EXPECT_EQ(format, model::LogFormat::kKeyValue);
  EXPECT_EQ(r.step, 3);
  r = model::TrainingRecord();
  EXPECT_EQ(
      formats::ParseTrainingLine("iteration 5/10 | lm loss: 1.0E+00 | grad norm: x |", &r, &format),
      RowIssue::kLogUnparsableNumber);
  auto read = formats::ReadTrainingLogBytes(
      "\x1b[31mstep: 12  \x1b[32mloss:     nan  \x1b[34mtps: 12,345  mfu: 41.5%\x1b[39m\n"
      "{'loss': inf, 'grad_norm': 2.5, 'learning_rate': 1e-05, 'epoch': 0.5}\n"
      "{\"global_step\": 7, \"loss\": 1.25, \"mfu\": 40}\n",
      false, "mixed.log");
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->log.records.size(), 3u);
  const auto& titan = read->log.records[0];
  EXPECT_EQ(titan.step, 12);
  EXPECT_TRUE(std::isnan(*titan.loss));
  EXPECT_DOUBLE_EQ(*titan.tokens_per_s, 12345);
  EXPECT_DOUBLE_EQ(*titan.mfu_pct, 41.5);
  const auto& hf = read->log.records[1];
  EXPECT_TRUE(hf.step_is_ordinal);
  EXPECT_EQ(hf.step, 2);
  EXPECT_TRUE(std::isinf(*hf.loss));
  EXPECT_EQ(read->log.records[2].step, 7);
  EXPECT_DOUBLE_EQ(*read->log.records[2].mfu_pct, 40);
}

// The series' medians and p90s are selected, not sorted: on 1,001 and
// 1,000 random step times (an odd and an even count, with ties) they equal
// the sorted series' order statistics, interpolated as before.
TEST(TrainingLogTest, QuantilesEqualTheSortedSeries) {
  for (const int n : {1001, 1000}) {
    std::mt19937_64 rng(static_cast<uint64_t>(n));
    std::uniform_int_distribution<int> ms(900, 1100);
    std::string text;
    std::vector<double> times;
    for (int i = 1; i <= n; ++i) {
      const double t = ms(rng) + 0.25 * (i % 4);
      times.push_back(t);
      text += fmt::format("step={} loss=2.5 step_time_ms={}\n", i, t);
    }
    auto read = formats::ReadTrainingLogBytes(text, false, "quantiles.log");
    ASSERT_TRUE(read.ok());
    ASSERT_EQ(read->log.records.size(), static_cast<size_t>(n));
    const RunHealth h = Health(read->log);
    std::sort(times.begin(), times.end());
    auto quantile = [&times](double q) {
      const double pos = q * static_cast<double>(times.size() - 1);
      const auto lo = static_cast<size_t>(pos);
      const size_t hi = std::min(lo + 1, times.size() - 1);
      return times[lo] + (times[hi] - times[lo]) * (pos - static_cast<double>(lo));
    };
    ASSERT_TRUE(h.step_ms.median && h.step_ms.p90 && h.step_ms.min && h.step_ms.max);
    EXPECT_DOUBLE_EQ(*h.step_ms.median, quantile(0.5)) << n;
    EXPECT_DOUBLE_EQ(*h.step_ms.p90, quantile(0.9)) << n;
    EXPECT_DOUBLE_EQ(*h.step_ms.min, times.front()) << n;
    EXPECT_DOUBLE_EQ(*h.step_ms.max, times.back()) << n;
  }
}

TEST(TrainingLogTest, ThroughputDropAndHangNeedTheirBars) {
  std::string text;
  for (int i = 1; i <= 30; ++i) {
    text += fmt::format("2024-05-01 10:00:{:02d} step={} loss=2.0 tps={}\n", i, i,
                        i <= 20 ? 1000 : 850);  // last third 15% slower
  }
  auto read = formats::ReadTrainingLogBytes(text, false, "kv.log");
  ASSERT_TRUE(read.ok());
  const RunHealth h = Health(read->log);
  ASSERT_EQ(h.findings.size(), 1u);
  EXPECT_EQ(h.findings[0].id, "throughput-drop");
  // first third median 1000, last third 850: 15%.
  for (const auto& [k, v] : h.findings[0].evidence_values) {
    if (k == "drop_pct") {
      EXPECT_NEAR(v, 15.0, 1e-9);
    }
    if (k == "step") {
      EXPECT_EQ(v, 21);
    }
  }
  EXPECT_DOUBLE_EQ(*h.record_interval_ms, 1000.0);
}

}  // namespace
}  // namespace trainscope

namespace trainscope {
namespace {

const analysis::Finding* FindingOf(const RunHealth& h, const std::string& id) {
  for (const auto& f : h.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

double Evidence(const analysis::Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.evidence_values) {
    if (k == key) return v;
  }
  ADD_FAILURE() << f.id << " has no " << key;
  return std::nan("");
}

// make_fixtures.py: a 3-record warm-up (3000, 2000, 1500 ms), a 20% linear
// drift; its Theil-Sen drift computed there independently: 17.5921%; the
// steady state (median of the second half) 1152.6 ms.
TEST(TrainingLogTest, SlowWarmupAndDriftPlanted) {
  const RunHealth h = Health(ReadFixtureLog("megatron_steptime_drift.log").log);
  EXPECT_EQ(h.warmup_records, 3);
  ASSERT_TRUE(h.step_ms_drift_pct.has_value());
  EXPECT_NEAR(*h.step_ms_drift_pct, 17.5921, 1e-3);
  const analysis::Finding* warm = FindingOf(h, "slow-warmup");
  ASSERT_NE(warm, nullptr);
  EXPECT_EQ(Evidence(*warm, "until_step"), 30);
  EXPECT_NEAR(Evidence(*warm, "steady_ms"), 1152.6, 1e-9);
  // (3000 + 2000 + 1500 - 3 x 1152.6) ms x 10 steps each.
  EXPECT_NEAR(Evidence(*warm, "extra_s"), (6500 - 3 * 1152.6) * 10 / 1e3, 1e-9);
  const analysis::Finding* drift = FindingOf(h, "step-time-drift");
  ASSERT_NE(drift, nullptr);
  EXPECT_EQ(Evidence(*drift, "from_step"), 40);
  EXPECT_EQ(Evidence(*drift, "to_step"), 1000);
  EXPECT_EQ(FindingOf(h, "periodic-stall"), nullptr);
}

// Stalls of +2,000 ms per step in the record of every 100th step: ten
// stalls, period 100, the rest 1000 +- 8 ms (median 1000).
TEST(TrainingLogTest, PeriodicStallPlanted) {
  const RunHealth h = Health(ReadFixtureLog("megatron_steptime_periodic.log").log);
  const analysis::Finding* f = FindingOf(h, "periodic-stall");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Evidence(*f, "period_steps"), 100);
  EXPECT_EQ(Evidence(*f, "spikes"), 10);
  EXPECT_EQ(Evidence(*f, "step"), 100);
  EXPECT_NEAR(Evidence(*f, "median_ms"), 1000, 1e-9);
  ASSERT_TRUE(h.period_steps.has_value());
  EXPECT_EQ(*h.period_steps, 100);
  EXPECT_EQ(FindingOf(h, "step-time-drift"), nullptr);
  EXPECT_EQ(FindingOf(h, "slow-warmup"), nullptr);
  EXPECT_EQ(h.warmup_records, 0);
}

TEST(TrainingLogTest, CleanLogsHaveNoStepTimeShape) {
  for (const FormatCase& c : kCases) {
    SCOPED_TRACE(c.stem);
    const RunHealth h = Health(ReadFixtureLog(std::string(c.stem) + "_clean.log").log);
    EXPECT_EQ(h.warmup_records, 0);
    EXPECT_FALSE(h.period_steps.has_value());
    if (h.step_ms_drift_pct) {
      EXPECT_LT(std::fabs(*h.step_ms_drift_pct), 2.0);
    }
  }
}

// TorchTitan clean fixture: tps 6123 + step % 7 per device, mfu 35.40%.
// Model 8e9 parameters, 32 layers, hidden 4096, seq 8192 on an H100 SXM
// (989.5 dense BF16): 6 x 8e9 + 12 x 32 x 4096 x 8192 = 60.8853e9 FLOPs per
// token; the median tps 6126 gives 372.98 TFLOP/s, 37.69% MFU.
TEST(TrainingLogTest, ModelMfuFromParametersAndTheLogsTps) {
  const formats::ReadTrainingLog read = ReadFixtureLog("torchtitan_clean.log");
  analysis::ModelSpec spec;
  spec.params = 8e9;
  spec.layers = 32;
  spec.hidden = 4096;
  spec.seq = 8192;
  spec.device = "H100";
  RunHealth h = AnalyzeTrainingLog(read.log, FindingCatalog::Builtin().thresholds(), &spec);
  ASSERT_TRUE(h.model.has_value());
  const double per_token = 6 * 8e9 + 12.0 * 32 * 4096 * 8192;
  EXPECT_DOUBLE_EQ(*h.model->flops_per_token, per_token);
  EXPECT_TRUE(h.model->attention_term);
  EXPECT_EQ(h.model->tgs_source, "log");
  EXPECT_DOUBLE_EQ(*h.model->peak_tflops, 989.5);
  EXPECT_EQ(h.model->peak_source, "NVIDIA H100 SXM5 80GB");
  // tps of steps 10..400: 6123 + step % 7; the median of the 40 values.
  std::vector<double> tps;
  for (int s = 10; s <= 400; s += 10) tps.push_back(6123 + s % 7);
  std::sort(tps.begin(), tps.end());
  const double median = (tps[19] + tps[20]) / 2;
  EXPECT_DOUBLE_EQ(*h.model->tgs, median);
  EXPECT_NEAR(*h.model->mfu_pct, per_token * median / 1e12 / 989.5 * 100, 1e-9);
  EXPECT_EQ(FindingOf(h, "mfu-mismatch"), nullptr);  // 37.7% vs 35.4%: within 15%

  spec.params = 16e9;  // twice the model: the log's 35.4% is far off
  h = AnalyzeTrainingLog(read.log, FindingCatalog::Builtin().thresholds(), &spec);
  const analysis::Finding* f = FindingOf(h, "mfu-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(Evidence(*f, "log_value"), 35.4, 1e-9);
}

// Megatron prints no tokens/s: tokens per step = batch x seq, over the step
// time and the devices. Clean fixture: step times 1000 + 5 x ((3i) % 4).
TEST(TrainingLogTest, ModelTgsFromBatchAndStepTime) {
  const formats::ReadTrainingLog read = ReadFixtureLog("megatron_clean.log");
  analysis::ModelSpec spec;
  spec.layers = 32;
  spec.hidden = 4096;
  spec.vocab = 32000;
  spec.seq = 4096;
  spec.batch = 256;
  spec.devices = 64;
  spec.peak_tflops = 1000;
  const RunHealth h = AnalyzeTrainingLog(read.log, FindingCatalog::Builtin().thresholds(), &spec);
  ASSERT_TRUE(h.model.has_value());
  const double n = 12.0 * 32 * 4096 * 4096 + 32000.0 * 4096;
  EXPECT_DOUBLE_EQ(*h.model->params, n);
  EXPECT_EQ(h.model->tgs_source, "model");
  EXPECT_EQ(h.model->peak_source, "--peak-tflops");
  std::vector<double> ms;
  for (int i = 0; i < 40; ++i) ms.push_back(1000.0 + 5.0 * ((i * 3) % 4));
  std::sort(ms.begin(), ms.end());
  // The median of tokens/s per device over the records (monotone in ms).
  const double tgs = 256.0 * 4096 / ((ms[19] / 1e3)) / 64;
  const double tgs2 = 256.0 * 4096 / ((ms[20] / 1e3)) / 64;
  EXPECT_NEAR(*h.model->tgs, (tgs + tgs2) / 2, 1e-9);
  const double per_token = 6 * n + 12.0 * 32 * 4096 * 4096;
  // MFU per record, then the median: the mean of the two middle records'.
  EXPECT_NEAR(*h.model->mfu_pct, per_token * (tgs + tgs2) / 2 / 1e12 / 1000 * 100, 1e-9);
  EXPECT_TRUE(h.model->missing.empty());

  spec.peak_tflops = 400;  // 186% of it: impossible, said
  const RunHealth over =
      AnalyzeTrainingLog(read.log, FindingCatalog::Builtin().thresholds(), &spec);
  EXPECT_GT(*over.model->mfu_pct, 100);
  EXPECT_EQ(over.model->missing.size(), 1u);
}

TEST(TrainingLogTest, DevicePeakTable) {
  EXPECT_DOUBLE_EQ(analysis::DeviceBf16Peak("A100")->first, 312);
  EXPECT_DOUBLE_EQ(analysis::DeviceBf16Peak("H800")->first, 989.5);
  EXPECT_DOUBLE_EQ(analysis::DeviceBf16Peak("H200")->first, 989.5);
  EXPECT_DOUBLE_EQ(analysis::DeviceBf16Peak("B200")->first, 2250);
  EXPECT_DOUBLE_EQ(analysis::DeviceBf16Peak("MI300X")->first, 1307.4);
  EXPECT_DOUBLE_EQ(analysis::DeviceBf16Peak("Ascend910B")->first, 376);
  EXPECT_DOUBLE_EQ(analysis::DeviceBf16Peak("Ascend 910C")->first, 752);
  EXPECT_FALSE(analysis::DeviceBf16Peak("V100").has_value());  // no BF16
  EXPECT_FALSE(analysis::DeviceBf16Peak("T4").has_value());
}

}  // namespace
}  // namespace trainscope

namespace trainscope {
namespace {

// The first XTuner record, as make_fixtures.py prints it (xtuner_clean.log
// line 2); the reduced loss is preferred over local_loss.
TEST(TrainingLogTest, XTunerNumbers) {
  const formats::ReadTrainingLog read = ReadFixtureLog("xtuner_clean.log");
  ASSERT_EQ(read.log.records.size(), 40u);
  const model::TrainingRecord& r = read.log.records.front();
  EXPECT_EQ(r.step, 10);
  EXPECT_EQ(r.line, 2);
  EXPECT_DOUBLE_EQ(*r.loss, 7.59304191);
  EXPECT_DOUBLE_EQ(*r.grad_norm, 1.0);
  EXPECT_DOUBLE_EQ(*r.step_time_ms, 1000.0);
  EXPECT_DOUBLE_EQ(*r.tokens_per_s, 32768.0);
  EXPECT_DOUBLE_EQ(*r.learning_rate, 1e-5);
  EXPECT_TRUE(r.wall_ns.has_value());
  model::TrainingRecord one;
  model::LogFormat format = model::LogFormat::kUnknown;
  EXPECT_EQ(formats::ParseTrainingLine(
                "[XTuner][2025-01-01 10:00:00][INFO] Step 5/9 data_time: 0.1 lr: 1e-5 time: 2.5 "
                "text_tokens: 10 total_loss: 3.0 reduced_llm_loss: 2.5 max_memory: 1.00 GB "
                "grad_norm: nan tgs: 4.0 e2e_tgs: 3.0 ",
                &one, &format),
            RowIssue::kNone);
  EXPECT_EQ(format, model::LogFormat::kXTuner);
  EXPECT_EQ(one.step, 5);
  EXPECT_DOUBLE_EQ(*one.loss, 2.5);
  EXPECT_TRUE(std::isnan(*one.grad_norm));
  EXPECT_DOUBLE_EQ(*one.step_time_ms, 2500.0);
  one = model::TrainingRecord();
  EXPECT_EQ(formats::ParseTrainingLine("[XTuner][2025-01-01 10:00:00][INFO] Step 5/9 data_time: "
                                       "0.1 lr: 1e-5 time: 2.x grad_norm: 1 e2e_tgs: 3.0",
                                       &one, &format),
            RowIssue::kLogUnparsableNumber);
}

}  // namespace
}  // namespace trainscope

namespace trainscope {
namespace {

// tests/data/logs/mapped: W&B-style keys; the map (inline or the file
// keys.map) names them. Line 3's loss is a string: unparsable; line 4 an
// evaluation line: not a training line. The built-in "loss" (99) is passed
// over once loss is mapped.
TEST(TrainingLogTest, UserKeyMap) {
  for (const std::string& spec :
       {std::string("step=trainer/global_step,loss=train/loss,grad_norm=train/grad_norm,"
                    "step_time_s=perf/step_time_s"),
        Fixture("mapped/keys.map")}) {
    SCOPED_TRACE(spec);
    auto map = formats::ParseLogKeyMap(spec);
    ASSERT_TRUE(map.ok()) << map.status().message();
    auto read = formats::ReadTrainingLogFile(Fixture("mapped/wandb_style.jsonl"), &*map);
    ASSERT_TRUE(read.ok());
    ASSERT_EQ(read->log.records.size(), 2u);
    const model::TrainingRecord& r = read->log.records.front();
    EXPECT_EQ(r.step, 10);
    EXPECT_FALSE(r.step_is_ordinal);
    EXPECT_DOUBLE_EQ(*r.loss, 2.5);
    EXPECT_DOUBLE_EQ(*r.grad_norm, 1.1);
    EXPECT_DOUBLE_EQ(*r.step_time_ms, 1250);
    EXPECT_EQ(read->log.records.back().step, 20);
    EXPECT_EQ(read->ledger.rows_read(), 4);
    const std::map<std::string, int64_t> skipped = {{"not a training line", 1},
                                                    {"unparsable number", 1}};
    EXPECT_EQ(read->ledger.skipped_by_reason(), skipped);
  }
  // Without the map the built-in "loss" is read, and no step key is known.
  auto plain = formats::ReadTrainingLogFile(Fixture("mapped/wandb_style.jsonl"));
  ASSERT_TRUE(plain.ok());
  ASSERT_FALSE(plain->log.records.empty());
  EXPECT_DOUBLE_EQ(*plain->log.records.front().loss, 99.0);
  EXPECT_TRUE(plain->log.records.front().step_is_ordinal);

  // key=value with a mapped loss key: the anchor follows the map.
  auto kv = formats::ParseLogKeyMap("step=it,loss=lm-loss");
  ASSERT_TRUE(kv.ok());
  auto read = formats::ReadTrainingLogBytes("it=5 lm-loss=2.0 gn=1\nit=6 lm-loss=1.9\n", false,
                                            "kv.log", &*kv);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->log.records.size(), 2u);
  EXPECT_EQ(read->log.records[1].step, 6);
  EXPECT_DOUBLE_EQ(*read->log.records[1].loss, 1.9);

  EXPECT_FALSE(formats::ParseLogKeyMap("weight=w").ok());
  EXPECT_FALSE(formats::ParseLogKeyMap("loss=").ok());
  EXPECT_FALSE(formats::ParseLogKeyMap("/nonexistent.map").ok());
}

}  // namespace
}  // namespace trainscope

// TrainingRecords: the column store of a log's records reads every record
// back exactly (hostile values included) and costs a few bytes a record
// for a regular log.
namespace trainscope {
namespace {

using model::MaybeDouble;
using model::MaybeInt;
using model::TrainingRecord;
using model::TrainingRecords;

constexpr MaybeDouble TrainingRecord::*kRecordsTestDoubles[] = {
    &TrainingRecord::loss,         &TrainingRecord::grad_norm, &TrainingRecord::step_time_ms,
    &TrainingRecord::tokens_per_s, &TrainingRecord::tflops,    &TrainingRecord::mfu_pct,
    &TrainingRecord::learning_rate};
constexpr MaybeInt TrainingRecord::*kRecordsTestInts[] = {
    &TrainingRecord::skipped_iterations, &TrainingRecord::nan_iterations, &TrainingRecord::wall_ns};

uint64_t BitsOfMaybe(MaybeDouble v) {
  return v ? std::bit_cast<uint64_t>(*v) : 0x7ff8'0000'dead'beefULL;
}

// Every field equal, numbers bit for bit (a NaN's payload, -0.0).
void ExpectSameRecord(const TrainingRecord& want, const TrainingRecord& got, size_t i) {
  SCOPED_TRACE(i);
  EXPECT_EQ(want.step, got.step);
  EXPECT_EQ(want.step_is_ordinal, got.step_is_ordinal);
  EXPECT_EQ(want.rank, got.rank);
  EXPECT_EQ(want.engine, got.engine);
  for (const auto field : kRecordsTestDoubles) {
    EXPECT_EQ(BitsOfMaybe(want.*field), BitsOfMaybe(got.*field));
  }
  for (const auto field : kRecordsTestInts) {
    EXPECT_EQ((want.*field).has_value(), (got.*field).has_value());
    EXPECT_EQ((want.*field).value_or(-7), (got.*field).value_or(-7));
  }
  EXPECT_EQ(want.offset, got.offset);
  EXPECT_EQ(want.line, got.line);
}

void ExpectStoreHolds(const std::vector<TrainingRecord>& want, TrainingRecords& store) {
  ASSERT_EQ(store.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ExpectSameRecord(want[i], store[i], i);
    EXPECT_EQ(store.step(i), want[i].step);
    EXPECT_EQ(store.line(i), want[i].line);
    EXPECT_EQ(store.step_is_ordinal(i), want[i].step_is_ordinal);
    for (const auto field : kRecordsTestDoubles) {
      EXPECT_EQ(BitsOfMaybe(store.get(i, field)), BitsOfMaybe(want[i].*field)) << i;
    }
    for (const auto field : kRecordsTestInts) {
      EXPECT_EQ(store.get(i, field).value_or(-7), (want[i].*field).value_or(-7)) << i;
    }
    if (::testing::Test::HasFailure()) return;
  }
  // Each whole field read a block at a time, in record order.
  auto expect_whole = [&](auto field, const char* name) {
    size_t next = 0;
    store.ForEachWhole(field, [&](size_t at, auto value) {
      EXPECT_EQ(at, next) << name;
      if (at < want.size()) {
        EXPECT_EQ(value, want[at].*field) << name << " " << at;
      }
      ++next;
    });
    EXPECT_EQ(next, want.size()) << name;
  };
  expect_whole(&TrainingRecord::step, "step");
  expect_whole(&TrainingRecord::step_is_ordinal, "step_is_ordinal");
  expect_whole(&TrainingRecord::rank, "rank");
  expect_whole(&TrainingRecord::engine, "engine");
  expect_whole(&TrainingRecord::offset, "offset");
  expect_whole(&TrainingRecord::line, "line");
  size_t i = 0;
  for (const TrainingRecord& r : store) {
    ExpectSameRecord(want[i], r, i);
    ++i;
  }
  EXPECT_EQ(i, want.size());
  std::vector<TrainingRecord> drained;
  store.Drain([&](const TrainingRecord& r) { drained.push_back(r); });
  EXPECT_TRUE(store.empty());
  ASSERT_EQ(drained.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) ExpectSameRecord(want[k], drained[k], k);
}

TEST(TrainingRecordsStore, HostileValuesReadBackExactly) {
  std::mt19937_64 rng(17);
  const int64_t extremes[] = {std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min() + 1, 0, -1, 1};
  const double odd[] = {std::numeric_limits<double>::quiet_NaN(),
                        -std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::infinity(),
                        -0.0,
                        std::numeric_limits<double>::denorm_min(),
                        std::numeric_limits<double>::max(),
                        std::bit_cast<double>(uint64_t{0x7ff0'0000'0000'0001ULL})};
  std::vector<TrainingRecord> want;
  // Three full blocks and an open one: steps that jump across the whole
  // int64 range, fields present at random, more than 255 distinct numbers.
  for (size_t i = 0; i < 3 * TrainingRecords::kBlock + 77; ++i) {
    TrainingRecord r;
    r.step = (i % 5 == 0) ? extremes[rng() % 5] : static_cast<int64_t>(rng());
    r.step_is_ordinal = rng() % 2 == 0;
    r.rank = static_cast<int32_t>(rng() % 3 == 0 ? -1 : static_cast<int32_t>(rng()));
    r.engine = static_cast<uint8_t>(rng() % 4 == 0 ? rng() : 0);
    for (const auto field : kRecordsTestDoubles) {
      const uint64_t pick = rng() % 4;
      if (pick == 0) continue;
      r.*field = pick == 1 ? odd[rng() % 7] : std::bit_cast<double>(rng() >> 2);
    }
    for (const auto field : kRecordsTestInts) {
      if (rng() % 3 == 0) r.*field = extremes[rng() % 5];
    }
    r.offset = static_cast<int64_t>(rng() >> 1);
    r.line = static_cast<int64_t>(i) * 3 + 1;
    want.push_back(r);
  }
  TrainingRecords store;
  for (const TrainingRecord& r : want) store.push_back(r);
  ExpectStoreHolds(want, store);
}

TEST(TrainingRecordsStore, DictionaryEdgesAndEmptyColumns) {
  // A block of exactly 255 distinct losses (the dictionary's limit), then
  // one of 256 (stored as numbers), then one with no loss at all.
  std::vector<TrainingRecord> want;
  for (size_t b = 0; b < 3; ++b) {
    const size_t distinct = b == 0 ? 255 : 256;
    for (size_t k = 0; k < TrainingRecords::kBlock; ++k) {
      TrainingRecord r;
      r.step = static_cast<int64_t>(want.size());
      r.line = r.step + 1;
      if (b < 2) r.loss = 1.0 + static_cast<double>(k % distinct) * 0.001;
      want.push_back(r);
    }
  }
  TrainingRecords store;
  for (const TrainingRecord& r : want) store.push_back(r);
  // The last record is amended in place (the reader's DeepSpeed latency).
  store.back().step_time_ms = 12.5;
  want.back().step_time_ms = 12.5;
  ExpectStoreHolds(want, store);
}

// A regular log ({"step": N, "loss": L} lines of similar length, losses
// printed to 4 decimals): a few bytes a record, not the record's 112.
TEST(TrainingRecordsStore, RegularLogCostsAFewBytesARecord) {
  constexpr size_t kRecords = 1'000'000;
  TrainingRecords store;
  std::mt19937_64 rng(3);
  int64_t offset = 0;
  for (size_t i = 0; i < kRecords; ++i) {
    TrainingRecord r;
    r.step = static_cast<int64_t>(i) + 1;
    r.line = static_cast<int64_t>(i) * 2 + 1;  // a chatter line between
    r.offset = offset;
    offset += 30 + static_cast<int64_t>(rng() % 4);
    r.loss = std::round((2.5 + static_cast<double>(rng() % 100) / 1e4) * 1e4) / 1e4;
    r.wall_ns = int64_t{1'700'000'000'000'000'000} + static_cast<int64_t>(i) * 1'000'000'000 +
                static_cast<int64_t>(rng() % 1000);
    store.push_back(r);
  }
  const double per_record =
      static_cast<double>(store.MemoryBytes()) / static_cast<double>(kRecords);
  std::printf("[ BYTES    ] %.2f bytes per record (a TrainingRecord: %zu)\n", per_record,
              sizeof(TrainingRecord));
  // step and line 0 bytes (a fixed interval), offset 1, loss 1 (100
  // distinct values a block), wall clock 2 (ms of jitter), rank and flags 0.
  EXPECT_LE(per_record, 6.0);
  EXPECT_EQ(store[kRecords / 2].step, static_cast<int64_t>(kRecords / 2) + 1);
  EXPECT_EQ(store.line(kRecords - 1), static_cast<int64_t>(kRecords - 1) * 2 + 1);
}

}  // namespace
}  // namespace trainscope
