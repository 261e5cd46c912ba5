// The two-phase analysis (rank_analysis.h): every rank analysed on its own,
// then combined; and the streamed loading that frees each profile after its
// rank is analysed.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/step/step_selection.h"
#include "formats/load_profiles.h"
#include "report/json_report.h"
#include "synth/synth.h"
#include "synth_job.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

// The job's step as the profile-based rule chooses it (SelectJobStep over
// the profiles, each rank's own SelectStep where it lacks that step) must be
// what Combine chose from the gathered spans, rank by rank.
void ExpectCombineChoosesAsProfiles(const std::vector<model::RankProfile>& profiles) {
  auto job = AnalyzeJob(profiles, FamilyRules::Builtin(), AnalysisOptions{}, 2);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_EQ(job->ranks.size(), profiles.size());
  const std::optional<StepChoice> job_step = SelectJobStep(profiles);
  for (size_t i = 0; i < profiles.size(); ++i) {
    SCOPED_TRACE(profiles[i].rank);
    std::vector<int32_t> present = StepsPresent(profiles[i]);
    StepChoice expected;
    if (job_step && std::count(present.begin(), present.end(), job_step->step) > 0) {
      expected = *job_step;
    } else {
      auto own = SelectStep(profiles[i], std::nullopt);
      ASSERT_TRUE(own.ok());
      expected = *own;
    }
    EXPECT_EQ(job->ranks[i].header.rank, profiles[i].rank);
    EXPECT_EQ(job->ranks[i].selected_step, expected.step);
    EXPECT_EQ(job->ranks[i].selected_step_reason, expected.reason);
    EXPECT_EQ(job->ranks[i].timeline.step, expected.step);
    ASSERT_NE(job->ranks[i].selected(), nullptr);
  }
}

TEST(PerRankTest, CombineChoosesTheJobStepOfTheProfilesOnSynthJobs) {
  for (int ranks : {2, 4}) {
    for (uint64_t seed : {1u, 7u}) {
      SCOPED_TRACE(::testing::Message() << ranks << " ranks, seed " << seed);
      synth::SynthOptions options;
      options.ranks = ranks;
      options.steps = 5;
      options.seed = seed;
      options.straggler_rank = ranks - 1;
      auto loaded = testing::LoadSynthJob(options, "per_rank_synth");
      ASSERT_TRUE(loaded.ok()) << loaded.status().message();
      // A job step exists (the ranks share steps): the test compares choices.
      ASSERT_TRUE(SelectJobStep(loaded->profiles).has_value());
      ExpectCombineChoosesAsProfiles(loaded->profiles);
    }
  }
}

TEST(PerRankTest, CombineChoosesTheJobStepOfTheProfilesOnCorpusJobs) {
  TS_REQUIRE_CORPUS("ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  for (const char* job :
       {"ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1",
        "ascend/msinsight-pytorch-2rank-text-level1", "kineto/dlrm_ddp_8rank_v100_param"}) {
    SCOPED_TRACE(job);
    auto loaded = formats::LoadProfiles({corpus_path + "/" + job}, 2);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    ASSERT_GE(loaded->profiles.size(), 2u);
    ExpectCombineChoosesAsProfiles(loaded->profiles);
  }
}

TEST(PerRankTest, RequestedStepMissingOnARankFailsNamingTheLowestSuchRank) {
  synth::SynthOptions options;
  options.ranks = 3;
  auto loaded = testing::LoadSynthJob(options, "per_rank_step");
  ASSERT_TRUE(loaded.ok());
  AnalysisOptions analysis_options;
  analysis_options.step = 99;
  auto job = AnalyzeJob(loaded->profiles, FamilyRules::Builtin(), analysis_options, 2);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), StatusCode::kNotFound);
  EXPECT_NE(job.status().message().find("rank 0: step 99 is not in the profile"), std::string::npos)
      << job.status().message();
}

TEST(PerRankTest, ForEachProfileKeepsAtMostThreadsProfilesAliveAndMatchesLoadProfiles) {
  synth::SynthOptions options;
  options.ranks = 6;
  options.steps = 2;
  const std::string dir = testing::MakeTempDir("per_rank_stream");
  ASSERT_TRUE(synth::WriteSynthJob(options, dir).ok());
  constexpr unsigned kThreads = 2;
  std::atomic<int> alive{0};
  std::atomic<int> most_alive{0};
  std::mutex mutex;
  std::set<size_t> indices;
  std::vector<int32_t> ranks;
  auto streamed = formats::ForEachProfile(
      {dir}, kThreads, nullptr, [&](size_t index, unsigned, model::RankProfile&& profile) {
        // Owned here until the callback returns, then freed by the loader.
        const model::RankProfile held = std::move(profile);
        const int now = ++alive;
        int seen = most_alive.load();
        while (now > seen && !most_alive.compare_exchange_weak(seen, now)) {
        }
        {
          std::lock_guard<std::mutex> lock(mutex);
          indices.insert(index);
          ranks.push_back(held.rank);
        }
        // Give the other thread time to overlap, so the bound is exercised.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        --alive;
      });
  ASSERT_TRUE(streamed.ok()) << streamed.status().message();
  EXPECT_EQ(streamed->loaded, 6u);
  EXPECT_TRUE(streamed->failed.empty());
  EXPECT_EQ(indices.size(), 6u);
  EXPECT_GE(most_alive.load(), 1);
  EXPECT_LE(most_alive.load(), static_cast<int>(kThreads));
  auto loaded = formats::LoadProfiles({dir}, kThreads);
  ASSERT_TRUE(loaded.ok());
  std::vector<int32_t> loaded_ranks;
  for (const auto& profile : loaded->profiles) loaded_ranks.push_back(profile.rank);
  std::sort(ranks.begin(), ranks.end());
  EXPECT_EQ(ranks, loaded_ranks);
}

TEST(PerRankTest, ForEachProfileFailsLikeLoadProfilesWhenNothingLoads) {
  const std::string dir = testing::MakeTempDir("per_rank_empty");
  int calls = 0;
  auto streamed = formats::ForEachProfile({dir}, 2, nullptr,
                                          [&](size_t, unsigned, model::RankProfile&&) { ++calls; });
  auto loaded = formats::LoadProfiles({dir}, 2);
  ASSERT_FALSE(streamed.ok());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(streamed.status().code(), loaded.status().code());
  EXPECT_EQ(streamed.status().message(), loaded.status().message());
}

TEST(PerRankTest, RankResultHasEveryStepWithItsOwnTimelineAndFindings) {
  synth::SynthOptions options;
  options.ranks = 1;
  options.steps = 3;
  auto loaded = testing::LoadSynthJob(options, "per_rank_steps", 1);
  ASSERT_TRUE(loaded.ok());
  const JobContext context{FamilyRules::Builtin(), AnalysisOptions{}, 2};
  auto result = AnalyzeRank(loaded->profiles[0], context);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->steps.size(), 3u);
  for (size_t i = 0; i < result->steps.size(); ++i) {
    const RankStepResult& step = result->steps[i];
    EXPECT_EQ(step.distribution.step, options.first_step + static_cast<int>(i));
    EXPECT_EQ(step.timeline.step, step.distribution.step);
    EXPECT_EQ(step.timeline.kernel_count, step.distribution.kernels.count);
    EXPECT_FALSE(step.distribution.motifs.empty());
    EXPECT_FALSE(step.fingerprint_findings.empty());
    // The first captured step is a warm-up no report shows: no picture.
    if (i == 0) {
      EXPECT_FALSE(step.timeline.drawn);
      EXPECT_TRUE(step.timeline.zooms.empty());
      EXPECT_EQ(step.timeline.overview.columns, 0);
      EXPECT_GT(step.timeline.compute_ns, 0);  // the lane totals findings use are there
      continue;
    }
    EXPECT_TRUE(step.timeline.drawn);
    // Zooms centred on the step's own top motif, not on the densest region.
    EXPECT_NE(step.timeline.zoom_centre.find("motif"), std::string::npos)
        << step.timeline.zoom_centre;
    EXPECT_EQ(step.timeline.overview.columns, kOverviewColumns);
  }
}

TEST(PerRankTest, OnlyTheRequestedStepIsDrawn) {
  synth::SynthOptions options;
  options.ranks = 1;
  options.steps = 3;
  auto loaded = testing::LoadSynthJob(options, "per_rank_requested", 1);
  ASSERT_TRUE(loaded.ok());
  AnalysisOptions analysis;
  analysis.step = options.first_step;  // the warm-up, asked for by name
  const JobContext context{FamilyRules::Builtin(), analysis, 1};
  auto result = AnalyzeRank(loaded->profiles[0], context);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->steps.size(), 3u);
  for (const RankStepResult& step : result->steps) {
    EXPECT_EQ(step.timeline.drawn, step.distribution.step == options.first_step)
        << step.distribution.step;
  }
  std::vector<RankResult> ranks;
  ranks.push_back(std::move(result).value());
  auto job = Combine(std::move(ranks), context);
  ASSERT_TRUE(job.ok());
  ASSERT_EQ(job->ranks.size(), 1u);
  EXPECT_TRUE(job->ranks[0].timeline.drawn);
  EXPECT_EQ(job->ranks[0].timeline.overview.columns, kOverviewColumns);
}

// Two ranks whose only common step is the first rank's warm-up: the job
// shows that step, without its picture on that rank, and says why.
TEST(PerRankTest, AnUndrawnWarmUpStepShownForTheJobIsAWarning) {
  synth::SynthOptions options;
  options.ranks = 2;
  options.steps = 2;
  auto loaded = testing::LoadSynthJob(options, "per_rank_undrawn", 1);
  ASSERT_TRUE(loaded.ok());
  const JobContext context{FamilyRules::Builtin(), AnalysisOptions{}, 1};
  std::vector<RankResult> ranks;
  for (const model::RankProfile& profile : loaded->profiles) {
    auto result = AnalyzeRank(profile, context);
    ASSERT_TRUE(result.ok());
    ranks.push_back(std::move(result).value());
  }
  // Rank 1 lost its second step: the first step is the only common one.
  const int32_t second = options.first_step + 1;
  RankResult& partial = ranks[1];
  std::erase_if(partial.steps,
                [&](const RankStepResult& s) { return s.distribution.step == second; });
  std::erase(partial.steps_info.present, second);
  partial.steps_info.spans_ns.erase(second);
  auto job = Combine(std::move(ranks), context);
  ASSERT_TRUE(job.ok());
  ASSERT_EQ(job->ranks.size(), 2u);
  EXPECT_EQ(job->ranks[0].selected_step, options.first_step);
  EXPECT_FALSE(job->ranks[0].timeline.drawn);
  const auto& warnings = job->ranks[0].header.warnings;
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) {
    return w.find(fmt::format("--step {}", options.first_step)) != std::string::npos;
  })) << fmt::format("{}", fmt::join(warnings, "\n"));
  // Unknown, not none: the undrawn step's gaps and zooms are null in the JSON.
  const std::string json = report::RenderJson(*job, "test");
  {
    // Streamed in chunks (analyze --json), the bytes are the same.
    std::string streamed;
    size_t chunks = 0;
    report::StreamJson(*job, "test", [&](std::string_view chunk) {
      streamed.append(chunk);
      ++chunks;
    });
    EXPECT_EQ(streamed, json);
    EXPECT_GE(chunks, 1u);
  }
  EXPECT_NE(json.find("\"longest_free_gaps\": null"), std::string::npos);
  EXPECT_NE(json.find("\"zooms\": null"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::analysis
