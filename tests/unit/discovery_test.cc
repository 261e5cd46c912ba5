#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "formats/load_profiles.h"
#include "formats/profile_discovery.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

using testing::WriteFileBytes;

namespace fs = std::filesystem;

constexpr std::string_view kKernels =
    "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n"
    "1,MatMul,MatMul,AI_CORE,100,5,0,8\n";

void MakeRank(const fs::path& dir, int rank, bool with_kernels = true) {
  if (with_kernels) WriteFileBytes(dir / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", kKernels);
  WriteFileBytes(dir / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                 "Step,Computing,Communication\n1,1,1\n");
  if (rank >= 0) {
    WriteFileBytes(dir / ("profiler_info_" + std::to_string(rank) + ".json"),
                   "{\"rank_id\": " + std::to_string(rank) + "}");
  }
}

TEST(DiscoveryTest, JobDirectoryWithRanksAtAnyDepthSortedByRank) {
  const fs::path job = testing::MakeTempDir("job");
  MakeRank(job / "node1/host_123_20250101_ascend_pt", 2);
  MakeRank(job / "rank_0_ascend_pt", 0);
  MakeRank(job / "deep/a/b/rank_10_ascend_pt", 10);
  MakeRank(job / "test_rank_1", 1);  // not *_ascend_pt, but has the output dir
  // Raw data inside a rank dir must not be walked into as ranks.
  MakeRank(job / "rank_0_ascend_pt/PROF_000/x_ascend_pt", 99);
  fs::create_directories(job / "unrelated/dir");

  Result<Discovery> found = DiscoverProfiles(job.string());
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_EQ(found->profiles.size(), 4u);
  EXPECT_EQ(found->profiles[0].rank_hint, 0);
  EXPECT_EQ(found->profiles[1].rank_hint, 1);
  EXPECT_EQ(found->profiles[2].rank_hint, 2);
  EXPECT_EQ(found->profiles[3].rank_hint, 10);
  EXPECT_EQ(found->profiles[0].path, (job / "rank_0_ascend_pt").string());
  EXPECT_EQ(found->profiles[3].path, (job / "deep/a/b/rank_10_ascend_pt").string());
}

TEST(DiscoveryTest, RankDirOutputDirAndFile) {
  const fs::path job = testing::MakeTempDir("job");
  const fs::path rank = job / "rank_3_ascend_pt";
  MakeRank(rank, 3);
  for (const fs::path& path :
       {rank, rank / "ASCEND_PROFILER_OUTPUT", rank / "ASCEND_PROFILER_OUTPUT/",
        rank / "ASCEND_PROFILER_OUTPUT/kernel_details.csv"}) {
    Result<Discovery> found = DiscoverProfiles(path.string());
    ASSERT_TRUE(found.ok()) << path << ": " << found.status().message();
    ASSERT_EQ(found->profiles.size(), 1u) << path;
    EXPECT_EQ(found->profiles[0].path, rank.string()) << path;
    EXPECT_EQ(found->profiles[0].rank_hint, 3) << path;
  }
}

TEST(DiscoveryTest, UnknownRanksSortLast) {
  const fs::path job = testing::MakeTempDir("job");
  MakeRank(job / "b_ascend_pt", -1);
  MakeRank(job / "a_ascend_pt", -1);
  MakeRank(job / "z_ascend_pt", 5);
  Result<Discovery> found = DiscoverProfiles(job.string());
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->profiles.size(), 3u);
  EXPECT_EQ(found->profiles[0].rank_hint, 5);
  EXPECT_EQ(found->profiles[1].path, (job / "a_ascend_pt").string());
  EXPECT_EQ(found->profiles[2].path, (job / "b_ascend_pt").string());
}

TEST(DiscoveryTest, NothingFoundIsNotFoundWithHint) {
  const fs::path job = testing::MakeTempDir("job");
  fs::create_directories(job / "empty");
  Result<Discovery> found = DiscoverProfiles(job.string());
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::kNotFound);
  EXPECT_NE(found.status().message().find("_ascend_pt"), std::string::npos);
  EXPECT_EQ(DiscoverProfiles((job / "missing").string()).status().code(), StatusCode::kNotFound);
}

TEST(DiscoveryLoadProfilesTest, LoadsInParallelSortedAndAssignsRanks) {
  const fs::path job = testing::MakeTempDir("job");
  MakeRank(job / "r3_ascend_pt", 3);
  MakeRank(job / "r1_ascend_pt", 1, /*with_kernels=*/false);  // like Qwen rank 1
  MakeRank(job / "r0_ascend_pt", 0);
  MakeRank(job / "nameless_ascend_pt", -1);
  // The same rank given twice (job dir + rank dir) loads once.
  Result<LoadedProfiles> loaded = LoadProfiles({job.string(), (job / "r0_ascend_pt").string()}, 2);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const std::vector<model::RankProfile>* profiles = &loaded->profiles;
  ASSERT_EQ(profiles->size(), 4u);
  EXPECT_EQ((*profiles)[0].rank, 0);
  EXPECT_EQ((*profiles)[1].rank, 1);
  EXPECT_EQ((*profiles)[1].device_events.size(), 0u);
  EXPECT_EQ((*profiles)[2].rank, 3);  // the nameless rank gets its index (3) too
  EXPECT_EQ((*profiles)[3].rank, 3);
  EXPECT_EQ((*profiles)[0].device_events.size(), 1u);
}

TEST(DiscoveryLoadProfilesTest, FailingRankIsListedAndTheRestLoads) {
  const fs::path job = testing::MakeTempDir("job");
  MakeRank(job / "r0_ascend_pt", 0);
  WriteFileBytes(job / "r1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "Name,Foo\nx,1\n");
  Result<LoadedProfiles> loaded = LoadProfiles({job.string()}, 2);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->profiles.size(), 1u);
  ASSERT_EQ(loaded->failed.size(), 1u);
  EXPECT_EQ(loaded->failed[0].path, (job / "r1_ascend_pt").string());
  EXPECT_NE(loaded->failed[0].reason.find("kernel_details.csv"), std::string::npos);
}

TEST(DiscoveryLoadProfilesTest, NoRankLoadsNamesEachPath) {
  const fs::path job = testing::MakeTempDir("job");
  WriteFileBytes(job / "r0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "Name,Foo\nx,1\n");
  WriteFileBytes(job / "r1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", "Name,Foo\nx,1\n");
  Result<LoadedProfiles> loaded = LoadProfiles({job.string()}, 2);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(loaded.status().message().find("no rank could be loaded"), std::string::npos);
  EXPECT_NE(loaded.status().message().find("r0_ascend_pt"), std::string::npos);
  EXPECT_NE(loaded.status().message().find("r1_ascend_pt"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::formats
