// ReadSmallFile (pipes, caps, refusals) and WriteFileAtomically (mode,
// symlinks, no leftovers on failure).
#include "core/read_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include "core/atomic_write.h"
#include "core/mapped_file.h"
#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope {
namespace {

namespace fs = std::filesystem;
using testing::MakeTempDir;
using testing::ReadFileBytes;
using testing::WriteBytes;

TEST(ReadSmallFile, ReadsARegularFileAndEnforcesTheCap) {
  const std::string dir = MakeTempDir("read-small");
  ASSERT_TRUE(WriteBytes(dir + "/rules.tsv", "a\tb\n"));
  auto text = ReadSmallFile(dir + "/rules.tsv");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "a\tb\n");
  auto capped = ReadSmallFile(dir + "/rules.tsv", 2);
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(capped.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(capped.status().message().find("larger than the"), std::string::npos);
}

// Released pages leave the process, not the view: reading them again reads
// the file (the chunked CSV reader releases what it has read).
TEST(MappedFileRelease, ReleasedBytesReadTheSameAfterwards) {
  const std::string dir = MakeTempDir("mapped-release");
  std::string bytes;
  for (int i = 0; i < 50000; ++i) bytes += static_cast<char>('a' + i % 26);
  ASSERT_TRUE(WriteBytes(dir + "/f.csv", bytes));
  auto file = MappedFile::Open(dir + "/f.csv");
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ(file->data(), bytes);
  file->Release(100, 30000);  // partial pages at both ends stay mapped
  file->Release(0, file->size());
  file->Release(40000, 10);  // an empty range is nothing
  EXPECT_EQ(file->data(), bytes);
}

// ReadAt copies bytes of the file without the mapping (the CSV reader's
// line-end count), follows the file through a move, refuses past the end.
TEST(MappedFileReadAt, CopiesRangesAndRefusesPastTheEnd) {
  const std::string dir = MakeTempDir("mapped-read-at");
  std::string bytes;
  for (int i = 0; i < 70000; ++i) bytes += static_cast<char>('a' + i % 26);
  ASSERT_TRUE(WriteBytes(dir + "/f.csv", bytes));
  auto opened = MappedFile::Open(dir + "/f.csv");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  MappedFile file = std::move(*opened);
  std::string out(5000, '?');
  ASSERT_TRUE(file.ReadAt(65000, 5000, out.data()));
  EXPECT_EQ(out, bytes.substr(65000));
  ASSERT_TRUE(file.ReadAt(0, 0, out.data()));
  EXPECT_FALSE(file.ReadAt(65001, 5000, out.data()));
  EXPECT_FALSE(file.ReadAt(70001, 0, out.data()));
  MappedFile empty;
  EXPECT_FALSE(empty.ReadAt(0, 1, out.data()));
}

TEST(ReadSmallFile, ReadsAFifoWithAWriter) {
  const std::string dir = MakeTempDir("read-fifo");
  const std::string fifo = dir + "/f";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    WriteBytes(fifo, std::string(200000, 'x'));  // several pipe buffers
  });
  auto text = ReadSmallFile(fifo);
  writer.join();
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text->size(), 200000u);
}

TEST(ReadSmallFile, RefusesDirectoriesAndDevicesAndNamesMissingFiles) {
  const std::string dir = MakeTempDir("read-refuse");
  auto directory = ReadSmallFile(dir);
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.status().message().find("is a directory"), std::string::npos);
  auto device = ReadSmallFile("/dev/zero");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().message().find("is a character device"), std::string::npos);
  auto missing = ReadSmallFile(dir + "/absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

// One table names a file type both ways: "is a FIFO" in sentences, "not a
// regular file (FIFO)" in the open errors; permission bits do not matter.
TEST(FileTypeNames, WithAndWithoutTheArticleFromTheTypeBitsOnly) {
  EXPECT_STREQ(FileTypeName(S_IFIFO | 0644), "a FIFO");
  EXPECT_STREQ(FileTypeWord(S_IFIFO | 0644), "FIFO");
  EXPECT_STREQ(FileTypeName(S_IFCHR), "a character device");
  EXPECT_STREQ(FileTypeWord(S_IFCHR | 0600), "character device");
  EXPECT_STREQ(FileTypeName(S_IFDIR | 0755), "a directory");
  EXPECT_STREQ(FileTypeWord(S_IFSOCK), "socket");
  EXPECT_STREQ(FileTypeName(0), "not a regular file");
  EXPECT_STREQ(FileTypeWord(0), "unknown file type");
}

TEST(WriteFileAtomically, ReplacesKeepingTheModeAndRefusesASymlink) {
  const std::string dir = MakeTempDir("atomic");
  ASSERT_TRUE(WriteBytes(dir + "/target.json", "old"));
  ::chmod((dir + "/target.json").c_str(), 0640);
  fs::create_symlink("target.json", dir + "/link.json");
  const Status through_link = WriteFileAtomically(dir + "/link.json", "new");
  EXPECT_EQ(through_link.code(), StatusCode::kUsage);
  EXPECT_NE(through_link.message().find("is a symlink (to target.json)"), std::string::npos)
      << through_link.message();
  EXPECT_TRUE(fs::is_symlink(dir + "/link.json"));
  EXPECT_EQ(ReadFileBytes(dir + "/target.json"), "old");
  ASSERT_TRUE(WriteFileAtomically(dir + "/target.json", "new").ok());
  EXPECT_EQ(ReadFileBytes(dir + "/target.json"), "new");
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/target.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  // Only the two entries: no temporary file left.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
}

TEST(WriteFileAtomically, AnEmptyPathIsAUsageError) {
  EXPECT_EQ(WriteFileAtomically("", "x").code(), StatusCode::kUsage);
}

TEST(AtomicFileWriter, TemporaryNamesAreRecognisedExactly) {
  int pid = 0;
  EXPECT_TRUE(IsTemporaryFileName(".o.db.trainscope-tmp-1234-0", &pid));
  EXPECT_EQ(pid, 1234);
  EXPECT_TRUE(IsTemporaryFileName(".job.trainscope-tmp-7-12", &pid));
  EXPECT_EQ(pid, 7);
  for (const char* name :
       {"o.db.trainscope-tmp-1234-0", ".o.db.trainscope-tmp-1234-", ".o.db.trainscope-tmp--0",
        ".o.db.trainscope-tmp-12a-0", ".o.db.trainscope-tmp-0-0", ".trainscope-tmp-5-0",
        "..trainscope-tmp-5-0", ".o.db.trainscope-tmp-99999999999-0", "report.json"}) {
    EXPECT_FALSE(IsTemporaryFileName(name, &pid)) << name;
  }
}

TEST(AtomicFileWriter, ChunksLandWholeOnCommitAndNotBefore) {
  const std::string dir = MakeTempDir("atomic-chunks");
  ASSERT_TRUE(WriteBytes(dir + "/out.json", "old"));
  {
    auto writer = AtomicFileWriter::Open(dir + "/out.json");
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    ASSERT_TRUE(writer->Append("{\"a\":").ok());
    ASSERT_TRUE(writer->Append("1}").ok());
    // Until Commit the old file is what a reader sees.
    EXPECT_EQ(ReadFileBytes(dir + "/out.json"), "old");
    ASSERT_TRUE(writer->Commit().ok());
  }
  EXPECT_EQ(ReadFileBytes(dir + "/out.json"), "{\"a\":1}");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(AtomicFileWriter, AWriterDroppedBeforeCommitLeavesTheOldFileAndNoTemporary) {
  const std::string dir = MakeTempDir("atomic-dropped");
  ASSERT_TRUE(WriteBytes(dir + "/out.json", "old"));
  {
    auto writer = AtomicFileWriter::Open(dir + "/out.json");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Append("half a docu").ok());
    // A render that fails: the writer goes out of scope uncommitted.
  }
  EXPECT_EQ(ReadFileBytes(dir + "/out.json"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(WriteFileAtomically, FailsWithTheOsReasonInAMissingDirectory) {
  const std::string dir = MakeTempDir("atomic-missing");
  Status status = WriteFileAtomically(dir + "/no/such/out.json", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(status.message().find("No such file or directory"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("hint: nothing was written"), std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace trainscope
