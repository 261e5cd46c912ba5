// Tests of trainscope synth: determinism, the baseline-vs-fused shape of the
// kernel mix, the remedy switches, step_trace_time consistency and the file
// formats. The checks parse the written files with tiny local helpers so that
// the generator is tested independently of trainscope's readers.
#include "synth/synth.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "test_paths.h"

namespace trainscope::synth {
namespace {

using testing::ReadFileBytes;

namespace fs = std::filesystem;

using testing::SynthOutputFile;
using testing::SynthRankDir;
// Splits one CSV record (no embedded newlines in these files) into fields,
// honouring "" escapes inside quoted fields.
std::vector<std::string> SplitCsv(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// Lines without their CR/LF.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int Column(const std::string& name) const {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  }
};

Table ReadCsv(const std::string& path) {
  Table table;
  const std::vector<std::string> lines = Lines(ReadFileBytes(path));
  if (lines.empty()) return table;
  table.header = SplitCsv(lines[0]);
  for (size_t i = 1; i < lines.size(); ++i) table.rows.push_back(SplitCsv(lines[i]));
  return table;
}

struct DurationMix {
  size_t kernels = 0;
  double share_le_50us = 0.0;
  double p50_us = 0.0;
};

DurationMix Mix(const std::string& kernel_details) {
  const Table table = ReadCsv(kernel_details);
  const int col = table.Column("Duration(us)");
  std::vector<double> durations;
  for (const auto& row : table.rows) durations.push_back(std::strtod(row[col].c_str(), nullptr));
  std::sort(durations.begin(), durations.end());
  DurationMix mix;
  mix.kernels = durations.size();
  if (durations.empty()) return mix;
  mix.share_le_50us =
      static_cast<double>(std::upper_bound(durations.begin(), durations.end(), 50.0) -
                          durations.begin()) /
      static_cast<double>(durations.size());
  mix.p50_us = durations[durations.size() / 2];
  return mix;
}

// The integer after "key": in the JSON object that follows "id": "<id>".
int64_t PatternField(const std::string& json, const std::string& id, const std::string& key) {
  const size_t at = json.find("\"id\": \"" + id + "\"");
  if (at == std::string::npos) return -1;
  const size_t k = json.find("\"" + key + "\": ", at);
  if (k == std::string::npos) return -1;
  return std::strtoll(json.c_str() + k + key.size() + 4, nullptr, 10);
}

SynthOptions SmallOptions() {
  SynthOptions options;
  options.layers = 4;
  options.steps = 2;
  return options;
}

// Removes the job directories a test wrote: a few MB each, many per test.
class SynthTest : public ::testing::Test {
 protected:
  void TearDown() override {
    std::error_code ec;
    for (const std::string& dir : dirs_) fs::remove_all(dir, ec);
  }

  std::string TempDir(const std::string& tag) {
    dirs_.push_back(testing::MakeTempDir("synth_" + tag));
    return dirs_.back();
  }

  std::string WriteJob(const SynthOptions& options, const std::string& tag) {
    const std::string dir = TempDir(tag);
    const Status status = WriteSynthJob(options, dir);
    EXPECT_TRUE(status.ok()) << status.message();
    return dir;
  }

 private:
  std::vector<std::string> dirs_;
};

TEST_F(SynthTest, SameSeedGivesIdenticalBytes) {
  const SynthOptions options = SmallOptions();
  const std::string a = WriteJob(options, "det_a");
  const std::string b = WriteJob(options, "det_b");
  for (int rank = 0; rank < options.ranks; ++rank) {
    for (const char* file : {"kernel_details.csv", "step_trace_time.csv", "op_statistic.csv"}) {
      const std::string bytes = ReadFileBytes(SynthOutputFile(a, rank, file));
      ASSERT_FALSE(bytes.empty()) << file;
      EXPECT_EQ(bytes, ReadFileBytes(SynthOutputFile(b, rank, file))) << file;
    }
  }
  EXPECT_EQ(ReadFileBytes(a + "/ground_truth.json"), ReadFileBytes(b + "/ground_truth.json"));
}

TEST_F(SynthTest, DifferentSeedGivesDifferentBytes) {
  SynthOptions options = SmallOptions();
  const std::string a = WriteJob(options, "seed_a");
  options.seed = 2;
  const std::string b = WriteJob(options, "seed_b");
  EXPECT_NE(ReadFileBytes(SynthOutputFile(a, 0, "kernel_details.csv")),
            ReadFileBytes(SynthOutputFile(b, 0, "kernel_details.csv")));
}

TEST_F(SynthTest, BaselineHasMoreAndSmallerKernelsThanAllFused) {
  const SynthOptions baseline;
  const DurationMix base =
      Mix(SynthOutputFile(WriteJob(baseline, "mix_base"), 0, "kernel_details.csv"));
  const DurationMix fused =
      Mix(SynthOutputFile(WriteJob(AllFused(baseline), "mix_fused"), 0, "kernel_details.csv"));
  EXPECT_GT(base.kernels, fused.kernels);
  // The article: 19,252 -> 9,608 kernels, 62.4% -> 56.1% of them <= 50 us.
  EXPECT_LT(static_cast<double>(fused.kernels), 0.65 * static_cast<double>(base.kernels));
  EXPECT_GT(base.share_le_50us, 0.60);
  EXPECT_GT(base.share_le_50us, fused.share_le_50us + 0.03);
  EXPECT_GT(base.p50_us, 10.0);
  EXPECT_LT(base.p50_us, 40.0);
}

struct Toggle {
  const char* pattern;
  bool SynthOptions::*field;
  bool removes_kernels;
};

TEST_F(SynthTest, EachRemedyZeroesItsPlantedPattern) {
  const SynthOptions baseline = SmallOptions();
  const std::string base_json = ReadFileBytes(WriteJob(baseline, "gt_base") + "/ground_truth.json");
  const Toggle toggles[] = {
      {"unfused-rmsnorm", &SynthOptions::fused_rmsnorm, true},
      {"unfused-gated-norm", &SynthOptions::fused_gated_norm, true},
      {"unfused-swiglu", &SynthOptions::fused_swiglu, true},
      {"unfused-cross-entropy", &SynthOptions::fused_cross_entropy, true},
      {"glue-around-custom-op", &SynthOptions::native_custom_op, true},
      {"pseudo-overlap", &SynthOptions::unshard_on_compute_stream, false},
      {"step-start-skew", &SynthOptions::numa_bound, false},
  };
  const int64_t base_kernels =
      Mix(SynthOutputFile(WriteJob(baseline, "gt_base_k"), 0, "kernel_details.csv")).kernels;
  for (const Toggle& t : toggles) {
    SCOPED_TRACE(t.pattern);
    const int64_t planted = PatternField(base_json, t.pattern, "instances_per_step_per_rank");
    EXPECT_GT(planted, 0);
    EXPECT_GT(PatternField(base_json, t.pattern, "kernels_per_instance"), 0);
    SynthOptions fixed = baseline;
    fixed.*t.field = true;
    const std::string job = WriteJob(fixed, "gt_fixed");
    const std::string json = ReadFileBytes(job + "/ground_truth.json");
    EXPECT_EQ(PatternField(json, t.pattern, "instances_per_step_per_rank"), 0);
    // The other patterns are untouched.
    for (const Toggle& other : toggles) {
      if (other.pattern == t.pattern) continue;
      EXPECT_EQ(PatternField(json, other.pattern, "instances_per_step_per_rank"),
                PatternField(base_json, other.pattern, "instances_per_step_per_rank"))
          << other.pattern;
    }
    const int64_t kernels = Mix(SynthOutputFile(job, 0, "kernel_details.csv")).kernels;
    if (t.removes_kernels) {
      const int64_t removed = PatternField(base_json, t.pattern, "removed_kernels_per_instance");
      EXPECT_LE(kernels, base_kernels - planted * removed * baseline.steps);
    } else {
      EXPECT_EQ(kernels, base_kernels);
    }
  }
}

TEST_F(SynthTest, GroundTruthKernelCountsMatchTheCsv) {
  const SynthOptions options = SmallOptions();
  const std::string job = WriteJob(options, "gt_counts");
  const std::string json = ReadFileBytes(job + "/ground_truth.json");
  for (int rank = 0; rank < options.ranks; ++rank) {
    const Table table = ReadCsv(SynthOutputFile(job, rank, "kernel_details.csv"));
    std::map<std::string, int64_t> per_step;
    for (const auto& row : table.rows) ++per_step[row[0]];
    ASSERT_EQ(per_step.size(), static_cast<size_t>(options.steps));
    const size_t at = json.find("\"rank\": " + std::to_string(rank) + ",");
    ASSERT_NE(at, std::string::npos);
    const size_t k = json.find("\"kernels_per_step\": ", at);
    ASSERT_NE(k, std::string::npos);
    EXPECT_EQ(std::strtoll(json.c_str() + k + 20, nullptr, 10),
              per_step[std::to_string(options.first_step)]);
  }
}

TEST_F(SynthTest, StepTraceTimePartitionsTheStep) {
  for (const SynthOptions& options : {SmallOptions(), AllFused(SmallOptions())}) {
    const std::string job = WriteJob(options, "trace");
    for (int rank = 0; rank < options.ranks; ++rank) {
      const Table table = ReadCsv(SynthOutputFile(job, rank, "step_trace_time.csv"));
      ASSERT_EQ(table.rows.size(), static_cast<size_t>(options.steps));
      auto value = [&](const std::vector<std::string>& row, const char* name) {
        const int col = table.Column(name);
        EXPECT_GE(col, 0) << name;
        return col < 0 ? 0.0 : std::strtod(row[col].c_str(), nullptr);
      };
      for (const auto& row : table.rows) {
        const double computing = value(row, "Computing");
        const double not_overlapped = value(row, "Communication(Not Overlapped)");
        const double free = value(row, "Free");
        const double stage = value(row, "Stage");
        EXPECT_NEAR(computing + not_overlapped + free, stage, 0.002);
        EXPECT_NEAR(value(row, "Overlapped"), value(row, "Communication") - not_overlapped, 0.002);
        EXPECT_GT(computing, 0.0);
        EXPECT_GE(free, 0.0);
      }
    }
  }
}

TEST_F(SynthTest, StepTraceMatchesKernelIntervals) {
  // The 2023 layout prints fewer decimals; its times are planted on a
  // coarser grid so that the printed values are still exact.
  for (HeaderVariant variant : {HeaderVariant::kCann83, HeaderVariant::kLegacy2023}) {
    SCOPED_TRACE(static_cast<int>(variant));
    SynthOptions options = SmallOptions();
    options.header = variant;
    const std::string job = WriteJob(options, "trace_kernels");
    const Table kernels = ReadCsv(SynthOutputFile(job, 0, "kernel_details.csv"));
    const int start_col = kernels.Column("Start Time(us)");
    const int dur_col = kernels.Column("Duration(us)");
    const int core_col = kernels.Column("Accelerator Core");
    // Integer ns from the decimal text, as a careful reader must do.
    auto ns = [](std::string text) {
      text.erase(std::remove(text.begin(), text.end(), '\t'), text.end());
      const size_t dot = text.find('.');
      int64_t value = std::strtoll(text.substr(0, dot).c_str(), nullptr, 10) * 1000;
      if (dot != std::string::npos) {
        std::string frac = text.substr(dot + 1);
        frac.resize(3, '0');
        value += std::strtoll(frac.c_str(), nullptr, 10);
      }
      return value;
    };
    std::map<std::string, std::pair<int64_t, int64_t>> window;
    std::map<std::string, int64_t> compute_sum;
    for (const auto& row : kernels.rows) {
      const int64_t start = ns(row[start_col]);
      const int64_t end = start + ns(row[dur_col]);
      auto [it, inserted] = window.try_emplace(row[0], start, end);
      it->second.first = std::min(it->second.first, start);
      it->second.second = std::max(it->second.second, end);
      // Compute kernels of one stream never overlap, so their union is their sum.
      if (row[core_col] != "COMMUNICATION" && row[core_col] != "HCCL")
        compute_sum[row[0]] += end - start;
    }
    const Table trace = ReadCsv(SynthOutputFile(job, 0, "step_trace_time.csv"));
    for (const auto& row : trace.rows) {
      const std::string step = row[trace.Column("Step")];
      EXPECT_EQ(ns(row[trace.Column("Stage")]), window[step].second - window[step].first) << step;
      EXPECT_EQ(ns(row[trace.Column("Computing")]), compute_sum[step]) << step;
    }
  }
}

TEST_F(SynthTest, HeaderVariantsWriteTheirHeaderLine) {
  struct Case {
    HeaderVariant variant;
    const char* prefix;
    const char* must_contain;
    const char* must_not_contain;
    const char* comm_core;
    bool tab_after_start;
  };
  const Case cases[] = {
      {HeaderVariant::kCann83,
       "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,",
       "Block Dim,Mix Block Dim,HF32 Eligible", "Block Num", "COMMUNICATION", true},
      {HeaderVariant::kLevel1_2025,
       "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,", "aic_mac_ratio",
       "Device_id", "HCCL", true},
      {HeaderVariant::kCann2026, "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,",
       "Block Num,Mix Block Num,HF32 Eligible", "Block Dim", "COMMUNICATION", true},
      {HeaderVariant::kLegacy2023,
       "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),",
       "aic_mac_fp16_ratio", "OP State", "HCCL", false},
  };
  for (const Case& c : cases) {
    SynthOptions options = SmallOptions();
    options.ranks = 1;
    options.steps = 1;
    options.header = c.variant;
    const std::string job = WriteJob(options, "header");
    const Table table = ReadCsv(SynthOutputFile(job, 0, "kernel_details.csv"));
    std::string header;
    for (const std::string& h : table.header) header += (header.empty() ? "" : ",") + h;
    EXPECT_TRUE(header.starts_with(c.prefix)) << header;
    EXPECT_NE(header.find(c.must_contain), std::string::npos) << header;
    EXPECT_EQ(header.find(c.must_not_contain), std::string::npos) << header;
    const int start_col = table.Column("Start Time(us)");
    const int core_col = table.Column("Accelerator Core");
    ASSERT_GE(start_col, 0);
    bool saw_comm = false;
    for (const auto& row : table.rows) {
      ASSERT_EQ(row.size(), table.header.size());
      EXPECT_EQ(row[start_col].ends_with('\t'), c.tab_after_start) << row[start_col];
      if (row[core_col] == c.comm_core) saw_comm = true;
    }
    EXPECT_TRUE(saw_comm) << c.comm_core;
  }
}

TEST_F(SynthTest, KernelDetailsUsesCrlfLineEnds) {
  SynthOptions options = SmallOptions();
  options.ranks = 1;
  const std::string job = WriteJob(options, "crlf");
  const std::string text = ReadFileBytes(SynthOutputFile(job, 0, "kernel_details.csv"));
  ASSERT_TRUE(text.ends_with("\r\n"));
  size_t lines = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') continue;
    ++lines;
    ASSERT_TRUE(i > 0 && text[i - 1] == '\r') << "bare LF at byte " << i;
  }
  EXPECT_GT(lines, 100u);
  EXPECT_TRUE(ReadFileBytes(SynthOutputFile(job, 0, "step_trace_time.csv")).ends_with("\r\n"));
  // Shapes carry literal quotes inside a quoted field.
  EXPECT_NE(text.find(",\"\"\"1,4096,2048\"\"\","), std::string::npos);
}

TEST_F(SynthTest, WritesRankMetadataFiles) {
  const SynthOptions options = SmallOptions();
  const std::string job = WriteJob(options, "meta");
  for (int rank = 0; rank < options.ranks; ++rank) {
    const std::string dir = SynthRankDir(job, rank);
    const std::string info =
        ReadFileBytes(dir + "/profiler_info_" + std::to_string(rank) + ".json");
    EXPECT_NE(info.find("\"rank_id\": \"" + std::to_string(rank) + "\""), std::string::npos);
    EXPECT_NE(info.find("\"_profiler_level\": \"Level1\""), std::string::npos);
    EXPECT_NE(info.find("\"cann_version\": \"8.3.RC1\""), std::string::npos);
    const std::string meta = ReadFileBytes(dir + "/profiler_metadata.json");
    EXPECT_NE(meta.find("\"world_size\": " + std::to_string(options.ranks)), std::string::npos);
    EXPECT_NE(meta.find("\"ENV_VARIABLES\""), std::string::npos);
    const Table stats = ReadCsv(SynthOutputFile(job, rank, "op_statistic.csv"));
    ASSERT_FALSE(stats.rows.empty());
    EXPECT_EQ(stats.header[1], "OP Type");
    double previous = 1e300;
    for (const auto& row : stats.rows) {
      EXPECT_EQ(row[1].find("hcom_"), std::string::npos);
      const double total = std::strtod(row[4].c_str(), nullptr);
      EXPECT_LE(total, previous);
      previous = total;
    }
  }
}

TEST_F(SynthTest, BindingShrinksTheStepStartSkew) {
  SynthOptions options = SmallOptions();
  options.ranks = 4;
  auto max_wait = [](const std::string& json) {
    double worst = 0.0;
    for (size_t at = json.find("\"step_start_wait_us\": "); at != std::string::npos;
         at = json.find("\"step_start_wait_us\": ", at + 1)) {
      worst = std::max(worst, std::strtod(json.c_str() + at + 22, nullptr));
    }
    return worst;
  };
  const double unbound =
      max_wait(ReadFileBytes(WriteJob(options, "skew_u") + "/ground_truth.json"));
  options.numa_bound = true;
  const double bound = max_wait(ReadFileBytes(WriteJob(options, "skew_b") + "/ground_truth.json"));
  EXPECT_GT(unbound, 95000.0);
  EXPECT_LT(unbound, 115000.0);
  // Bound ranks differ only in their step preparation (120-400 us), and
  // the barrier adds its 140-180 us transfer (docs/synth.md).
  EXPECT_LT(bound, (400.0 - 120.0) * 1.05 + 180.0);
  EXPECT_GT(bound, 140.0);
  // The unbound spread follows host_skew_ms.
  options.numa_bound = false;
  options.host_skew_ms = 20.0;
  const double modest = max_wait(ReadFileBytes(WriteJob(options, "skew_m") + "/ground_truth.json"));
  EXPECT_GT(modest, 19000.0);
  EXPECT_LT(modest, 21500.0);
}

TEST_F(SynthTest, ScaleMultipliesTheMicroBatches) {
  SynthOptions options = SmallOptions();
  options.ranks = 1;
  options.steps = 1;
  const std::string one = WriteJob(options, "scale1");
  options.scale = 3.0;
  const std::string three = WriteJob(options, "scale3");
  const std::string json = ReadFileBytes(three + "/ground_truth.json");
  EXPECT_NE(json.find("\"effective\": {\"layers\": 4, \"micro_batches\": 6,"), std::string::npos);
  const double small =
      static_cast<double>(fs::file_size(SynthOutputFile(one, 0, "kernel_details.csv")));
  const double big =
      static_cast<double>(fs::file_size(SynthOutputFile(three, 0, "kernel_details.csv")));
  EXPECT_GT(big, 2.5 * small);
  EXPECT_LT(big, 3.1 * small);
}

TEST_F(SynthTest, RejectsBadOptionsAndNonEmptyDirectories) {
  SynthOptions options = SmallOptions();
  options.layers = 0;
  EXPECT_FALSE(WriteSynthJob(options, TempDir("bad")).ok());
  options = SmallOptions();
  options.name = "a/b";
  EXPECT_FALSE(WriteSynthJob(options, TempDir("bad")).ok());
  const std::string dir = TempDir("nonempty");
  std::ofstream(dir + "/keep.txt") << "x";
  EXPECT_FALSE(WriteSynthJob(SmallOptions(), dir).ok());
}

}  // namespace
}  // namespace trainscope::synth
