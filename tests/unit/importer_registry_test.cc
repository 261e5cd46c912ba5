// The importer registry: each importer claims its own inputs and declines
// the others', the guess picks the most confident, discovery asks it.
#include "formats/importer_registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "formats/ascend_db/ascend_db_importer.h"
#include "formats/load_profiles.h"
#include "formats/profile_discovery.h"
#include "test_paths.h"

namespace trainscope::formats {
namespace {

using testing::WriteFileBytes;

namespace fs = std::filesystem;

// The first 16 bytes of every SQLite database, then a page of zeros.
std::string SqliteBytes() { return std::string("SQLite format 3\0", 16) + std::string(84, '\0'); }

const Importer& Named(std::string_view name) {
  const Importer* importer = FindImporter(name);
  EXPECT_NE(importer, nullptr) << name;
  return *importer;
}

// A scratch job: a text rank, a .db-only rank, a text rank that also has
// the .db export, a Kineto trace, a .json that is no trace.
struct Inputs {
  fs::path job = testing::MakeTempDir("importers");
  fs::path text_rank = job / "rank_0_ascend_pt";
  fs::path db_rank = job / "rank_1_ascend_pt";
  fs::path both_rank = job / "rank_2_ascend_pt";
  fs::path trace = job / "traces/worker0.pt.trace.json";
  fs::path not_trace = job / "traces/config.json";
  fs::path fake_db = job / "fake_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_3.db";

  Inputs() {
    const std::string kernels = "Name,Start Time(us),Duration(us)\nMatMul,100,5\n";
    WriteFileBytes(text_rank / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", kernels);
    WriteFileBytes(text_rank / "profiler_info_0.json", "{}");
    WriteFileBytes(db_rank / "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db", SqliteBytes());
    WriteFileBytes(db_rank / "ASCEND_PROFILER_OUTPUT/analysis.db", SqliteBytes());
    WriteFileBytes(db_rank / "profiler_info_1.json", "{}");
    WriteFileBytes(both_rank / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", kernels);
    WriteFileBytes(both_rank / "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_2.db",
                   SqliteBytes());
    WriteFileBytes(trace, R"({"schemaVersion": 1, "traceEvents": []})");
    WriteFileBytes(not_trace, R"({"lr": 0.001})");
    WriteFileBytes(fake_db, "not a database, just text");
  }
};

TEST(ImporterRegistryTest, EveryImporterIsListedOnceWithItsShape) {
  std::set<std::string_view> names;
  for (const Importer* importer : Importers()) {
    EXPECT_TRUE(names.insert(importer->name).second) << importer->name;
    EXPECT_FALSE(importer->description.empty()) << importer->name;
    EXPECT_NE(importer->sniff, nullptr);
    EXPECT_NE(importer->load, nullptr);
  }
  EXPECT_EQ(Named("ascend-text").shape, InputShape::kDirectory);
  EXPECT_EQ(Named("ascend-db").shape, InputShape::kDirectory);
  EXPECT_EQ(Named("kineto").shape, InputShape::kFile);
  EXPECT_EQ(FindImporter("no-such-format"), nullptr);
}

TEST(ImporterRegistryTest, EachImporterClaimsItsInputsAndDeclinesTheOthers) {
  Inputs in;
  const Importer& text = Named("ascend-text");
  const Importer& db = Named("ascend-db");
  const Importer& kineto = Named("kineto");

  EXPECT_GT(text.sniff(in.text_rank.string(), false).confidence, 0);
  EXPECT_EQ(db.sniff(in.text_rank.string(), false).confidence, 0);
  EXPECT_EQ(kineto.sniff(in.text_rank.string(), false).confidence, 0);

  EXPECT_GT(db.sniff(in.db_rank.string(), false).confidence,
            text.sniff(in.db_rank.string(), false).confidence);

  EXPECT_GT(kineto.sniff(in.trace.string(), false).confidence, 0);
  EXPECT_EQ(text.sniff(in.trace.string(), false).confidence, 0);
  EXPECT_EQ(db.sniff(in.trace.string(), false).confidence, 0);

  // A .json that is no trace: declined with the reason discovery lists.
  SniffVerdict config = kineto.sniff(in.not_trace.string(), false);
  EXPECT_EQ(config.confidence, 0);
  EXPECT_NE(config.reason.find("not a trace"), std::string::npos) << config.reason;
  // A CSV is not looked at in a walk; named by the user, its content is.
  const std::string csv = (in.text_rank / "ASCEND_PROFILER_OUTPUT/kernel_details.csv").string();
  EXPECT_TRUE(kineto.sniff(csv, false).reason.empty());
  EXPECT_FALSE(kineto.sniff(csv, true).reason.empty());
  // A file named like the export but without the SQLite header.
  EXPECT_FALSE(HasSqliteHeader(in.fake_db.string()));
  EXPECT_EQ(db.sniff(in.fake_db.parent_path().parent_path().string(), false).confidence, 0);
}

TEST(ImporterRegistryTest, TheMostConfidentImporterWins) {
  Inputs in;
  EXPECT_EQ(GuessImporter(in.text_rank.string(), InputShape::kDirectory).importer->name,
            "ascend-text");
  EXPECT_EQ(GuessImporter(in.db_rank.string(), InputShape::kDirectory).importer->name, "ascend-db");
  // Newer torch_npu writes the .db files beside the CSVs: a text rank.
  EXPECT_EQ(GuessImporter(in.both_rank.string(), InputShape::kDirectory).importer->name,
            "ascend-text");
  EXPECT_EQ(GuessImporter(in.trace.string(), InputShape::kFile).importer->name, "kineto");
  Guess none = GuessImporter(in.not_trace.string(), InputShape::kFile);
  EXPECT_EQ(none.importer, nullptr);
  EXPECT_FALSE(none.reason.empty());
  EXPECT_EQ(GuessImporter((in.job / "traces").string(), InputShape::kDirectory).importer, nullptr);
}

TEST(ImporterRegistryTest, DiscoveryAsksTheRegistry) {
  Inputs in;
  Result<Discovery> found = DiscoverProfiles(in.job.string());
  ASSERT_TRUE(found.ok()) << found.status().message();
  std::map<std::string, std::string> importer_of;
  for (const ProfileLocation& location : found->profiles) {
    importer_of[fs::path(location.path).filename().string()] = location.importer->name;
  }
  EXPECT_EQ(importer_of["rank_0_ascend_pt"], "ascend-text");
  EXPECT_EQ(importer_of["rank_1_ascend_pt"], "ascend-db");
  EXPECT_EQ(importer_of["rank_2_ascend_pt"], "ascend-text");
  EXPECT_EQ(importer_of["worker0.pt.trace.json"], "kineto");
  EXPECT_EQ(importer_of["fake_ascend_pt"], "ascend-text");  // by name; its load says what lacks
  EXPECT_EQ(found->profiles.size(), 5u);
  ASSERT_EQ(found->skipped.size(), 1u);
  EXPECT_EQ(found->skipped[0].path, in.not_trace.string());
  EXPECT_TRUE(found->job_files.empty());  // no job-level importer yet
}

TEST(ImporterRegistryTest, DatabaseOnlyRankWithADamagedDatabaseFailsWithTheFile) {
  Inputs in;
  Result<Discovery> found = DiscoverProfiles(in.db_rank.string());
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_EQ(found->profiles.size(), 1u);
  EXPECT_EQ(found->profiles[0].importer->name, "ascend-db");
  EXPECT_EQ(found->profiles[0].rank_hint, 1);
  // The fixture's .db is a SQLite header and zeros: read, and refused with
  // the file and a hint (the reader's own cases: ascend_db_reader_test.cc).
  Result<model::RankProfile> loaded =
      LoadWith(*found->profiles[0].importer, found->profiles[0].path, ImportOptions{});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidInput);
  const std::string& message = loaded.status().message();
  EXPECT_NE(message.find("ascend_pytorch_profiler_1.db"), std::string::npos) << message;
  EXPECT_NE(message.find("hint:"), std::string::npos) << message;
}

// LoadWith checks the ledgers the importer returns: rows that do not add
// up become a warning of the rank, not a silent loss. (Unused where debug
// builds skip the test below.)
[[maybe_unused]] Result<model::RankProfile> LoadUnbalanced(const std::string& path,
                                                           const ImportOptions&) {
  model::RankProfile profile;
  profile.source_dir = path;
  RowLedger ledger(path + "/kernel_details.csv");
  ledger.CountRead(3);
  ledger.Use(1);
  ledger.Skip(RowIssue::kCsvWrongFieldCount, 2, "got 1 fields, header has 3");
  profile.ledgers.push_back(std::move(ledger));  // one row neither used nor skipped
  return profile;
}

[[maybe_unused]] SniffVerdict SniffNothing(const std::string&, bool) { return {}; }

TEST(ImporterRegistryTest, UnbalancedLedgerBecomesAWarning) {
#ifndef NDEBUG
  GTEST_SKIP() << "debug builds assert on an unbalanced ledger instead";
#else
  const Importer fake{"fake",       "test",        InputShape::kDirectory, ImportScope::kRank,
                      SniffNothing, LoadUnbalanced};
  Result<model::RankProfile> loaded = LoadWith(fake, "/x", ImportOptions{});
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_EQ(loaded->warnings[0],
            "/x/kernel_details.csv: rows do not add up: read 3, used 1, skipped 1 (1 "
            "unaccounted)\nhint: a reader dropped or double-counted rows; the counts above are "
            "what it reported, please report this file");
#endif
}

TEST(ImporterCorpusTest, DatabaseExportJobIsRecognisedAndRead) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-db-level1");
  const std::string job = corpus_path + "/ascend/msinsight-pytorch-2rank-db-level1";
  Result<Discovery> found = DiscoverProfiles(job);
  ASSERT_TRUE(found.ok()) << found.status().message();
  ASSERT_EQ(found->profiles.size(), 2u);
  for (const ProfileLocation& location : found->profiles) {
    EXPECT_EQ(location.importer->name, "ascend-db") << location.path;
  }
  Result<LoadedProfiles> loaded = LoadProfiles({job}, 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded->failed.empty());
  ASSERT_EQ(loaded->profiles.size(), 2u);
  EXPECT_EQ(loaded->profiles[0].rank, 0);
  EXPECT_EQ(loaded->profiles[1].rank, 1);
}

}  // namespace
}  // namespace trainscope::formats
