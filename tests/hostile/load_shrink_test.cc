// A file that shrinks while trainscope has it mapped (its writer truncated
// or rewrote it mid-read) never kills the process with SIGBUS: the pages
// past the new end read as zeros, and the read of that file fails with
// "the file shrank while it was read" (docs/hostile-input.md). Each case
// truncates the file in the middle of the read, after the mapping is made;
// a database SQLite reads with read() fails with the same words.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/bus_fault.h"
#include "core/mapped_file.h"
#include "core/sqlite_db.h"
#include "formats/ascend/csv_common.h"
#include "sqlite_exec.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBig = size_t{4} << 20;  // 4 MiB: far more pages than the one kept

// Touches every byte of |data|; the number of non-zero bytes.
size_t NonZeroBytes(std::string_view data) {
  size_t count = 0;
  for (const char c : data) count += c != 0 ? 1 : 0;
  return count;
}

TEST(HostileLoadShrink, MappedFileTruncatedMidReadReadsZerosAndFails) {
  const fs::path path = fs::path(MakeTempDir("shrink-mapped")) / "kernel_details.csv";
  WriteFileBytes(path, std::string(kBig, 'x'));
  Result<MappedFile> file = MappedFile::Open(path.string());
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_TRUE(file->CheckIntact().ok());
  // The first page is read before the writer cuts the file to one page.
  EXPECT_EQ(NonZeroBytes(file->data().substr(0, 4096)), 4096u);
  ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
  // Without the guard this read dies of SIGBUS (exit 135).
  EXPECT_EQ(NonZeroBytes(file->data()), 4096u);
  const Status intact = file->CheckIntact();
  ASSERT_FALSE(intact.ok());
  EXPECT_EQ(intact.code(), StatusCode::kInvalidInput);
  EXPECT_NE(intact.message().find("kernel_details.csv: the file shrank while it was read"),
            std::string::npos)
      << intact.message();
  EXPECT_NE(intact.message().find("4194304 bytes when opened, 4096 now"), std::string::npos)
      << intact.message();
  EXPECT_NE(intact.message().find("hint:"), std::string::npos);
}

TEST(HostileLoadShrink, CsvReaderFailsThatFileWhenItShrinksMidParse) {
  const fs::path path = fs::path(MakeTempDir("shrink-csv")) / "op_statistic.csv";
  std::string csv = "OP Type,Core Type,Count\n";
  while (csv.size() < kBig) csv += "MatMul,AI_CORE,12\n";
  WriteFileBytes(path, csv);
  size_t seen = 0;
  const Status status =
      formats::ParseMappedFile(path.string(), [&](std::string_view data) -> Status {
        seen += NonZeroBytes(data.substr(0, data.size() / 2));
        // Mid-parse: the writer truncates the file to its header.
        if (::truncate(path.c_str(), 24) != 0) return IoError("truncate failed");
        seen += NonZeroBytes(data.substr(data.size() / 2));
        return Status::Ok();  // the parser saw zeros and made what it could of them
      });
  EXPECT_GE(seen, csv.size() / 2);
  EXPECT_LT(seen, csv.size());  // the second half read as zeros, not as the old bytes
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("op_statistic.csv: the file shrank while it was read"),
            std::string::npos)
      << status.message();
}

TEST(HostileLoadShrink, MappingsNotReadByTrainscopeStillFaultAsBefore) {
  // A fault outside every registered mapping and scope is not served: the
  // handler only covers reads of inputs (checked in a child process).
  const fs::path path = fs::path(MakeTempDir("shrink-foreign")) / "other.bin";
  WriteFileBytes(path, std::string(kBig, 'y'));
  { Result<MappedFile> warm = MappedFile::Open(path.string()); }  // installs the handler
  EXPECT_EXIT(
      {
        const int fd = ::open(path.c_str(), O_RDONLY);
        void* addr = ::mmap(nullptr, kBig, PROT_READ, MAP_PRIVATE, fd, 0);
        if (::truncate(path.c_str(), 0) != 0) ::_exit(3);
        volatile char c = static_cast<const char*>(addr)[kBig - 1];
        (void)c;
        ::_exit(0);
      },
      // Not served: the read is never turned into zeros (which would exit
      // 0). Without a sanitizer the process dies of SIGBUS; under ASan the
      // handler before ours is the sanitizer's, which reports the fault and
      // exits 1.
      [](int status) {
        return (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) ||
               (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3);
      },
      "");
}

TEST(HostileLoadShrink, SqliteDatabaseTruncatedMidQueryFailsThatQuery) {
  const fs::path path = fs::path(MakeTempDir("shrink-db")) / "ascend_pytorch_profiler_0.db";
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ExecSql(db, "PRAGMA synchronous = OFF");
    ExecSql(db, "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)");
    ExecSql(db,
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000) "
            "INSERT INTO STRING_IDS SELECT i, printf('%.100c%d', 'k', i) FROM n");
    sqlite3_close(db);
  }
  ASSERT_GT(fs::file_size(path), kBig);
  // SQLite reads pages with read() (no map, no SIGBUS): the failed step
  // finds the file shorter than when it was opened.
  Result<SqliteDb> db = SqliteDb::OpenReadOnly(path.string());
  ASSERT_TRUE(db.ok()) << db.status().message();
  Result<SqliteStatement> stmt = db->Prepare("SELECT value FROM STRING_IDS", "STRING_IDS");
  ASSERT_TRUE(stmt.ok()) << stmt.status().message();
  size_t rows = 0;
  Status status = Status::Ok();
  for (;;) {
    Result<bool> row = stmt->Step();
    if (!row.ok()) {
      status = row.status();
      break;
    }
    if (!*row) break;
    if (++rows == 10) {
      ASSERT_EQ(::truncate(path.c_str(), 8192), 0);  // mid-query
    }
  }
  EXPECT_LT(rows, 60000u);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("the file shrank while it was read"), std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace trainscope::testing
