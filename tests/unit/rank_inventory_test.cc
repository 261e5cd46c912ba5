// The input inventory (formats/ascend/rank_inventory.h): every entry of a
// rank directory and of its ASCEND_PROFILER_OUTPUT is listed, read or not
// read with the reason, for both export forms.
#include "formats/ascend/rank_inventory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "formats/ascend/ascend_rank_loader.h"
#include "formats/ascend_db/ascend_db_reader.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

const model::InputFile* Find(const model::RankProfile& p, const std::string& path) {
  for (const model::InputFile& file : p.inventory) {
    if (file.path == path) return &file;
  }
  return nullptr;
}

TEST(RankInventoryTest, TextRankListsEveryFileReadOrNotWithTheReason) {
  const fs::path rank = fs::path(testing::MakeTempDir("inventory_text")) / "rank0_ascend_pt";
  const fs::path out = rank / "ASCEND_PROFILER_OUTPUT";
  Write(out / "kernel_details.csv",
        "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
        "1,MatMul_1,MatMul,AI_CORE,1000.000,5.000\n");
  Write(out / "communication.json", "{}");
  Write(out / "l2_cache.csv", "Device_id,Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n");
  Write(out / "notes.txt", "mine");
  Write(out / "ascend_pytorch_profiler_0.db", "not read");
  Write(rank / "profiler_metadata.json", "{}");
  Write(rank / "FRAMEWORK" / "torch.op_mark", "");
  Result<model::RankProfile> loaded = LoadAscendRank(rank.string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::RankProfile& p = *loaded;
  ASSERT_EQ(p.inventory.size(), 7u);
  for (const char* read :
       {"ASCEND_PROFILER_OUTPUT/kernel_details.csv", "ASCEND_PROFILER_OUTPUT/communication.json",
        "ASCEND_PROFILER_OUTPUT/l2_cache.csv", "profiler_metadata.json"}) {
    const model::InputFile* file = Find(p, read);
    ASSERT_NE(file, nullptr) << read;
    EXPECT_TRUE(file->read) << read;
    EXPECT_EQ(file->reason, "") << read;
  }
  const std::pair<const char*, const char*> unread[] = {
      {"ASCEND_PROFILER_OUTPUT/notes.txt", "not a file trainscope knows"},
      {"ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", "read from its text export"},
      {"FRAMEWORK/", "raw profiler data"}};
  for (const auto& [path, why] : unread) {
    const model::InputFile* file = Find(p, path);
    ASSERT_NE(file, nullptr) << path;
    EXPECT_FALSE(file->read) << path;
    EXPECT_NE(file->reason.find(why), std::string::npos) << path << ": " << file->reason;
  }
}

TEST(RankInventoryTest, DbRankListsItsDatabasesAndTheFilesBesideThem) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-db-level1");
  Result<model::RankProfile> loaded =
      LoadAscendDbRank(corpus_path + "/ascend/msinsight-pytorch-2rank-db-level1/rank0_ascend_pt");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const model::RankProfile& p = *loaded;
  // profiler_info_0.json and the two databases read (this export has no
  // profiler_metadata.json); the empty -wal and the -shm beside the rank's
  // database not read.
  ASSERT_EQ(p.inventory.size(), 5u);
  int read = 0;
  for (const model::InputFile& file : p.inventory) read += file.read;
  EXPECT_EQ(read, 3);
  const model::InputFile* wal = Find(p, "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db-wal");
  ASSERT_NE(wal, nullptr);
  EXPECT_FALSE(wal->read);
  EXPECT_NE(wal->reason.find("opened immutable"), std::string::npos);
  const model::InputFile* db = Find(p, "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db");
  ASSERT_NE(db, nullptr);
  EXPECT_TRUE(db->read);
}

}  // namespace
}  // namespace trainscope::formats
