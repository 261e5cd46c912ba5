// Class 3: only regular files are opened as profile data. A FIFO (or socket)
// given as the input, as a rank's kernel_details.csv, or lying in a job
// directory never blocks: it is rejected or skipped with the reason.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "hostile/load_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

namespace fs = std::filesystem;

TEST(HostileLoadFifo, FifoGivenAsTheInputIsRejectedWithoutBlocking) {
  const std::string dir = MakeTempDir("load-fifo");
  ASSERT_EQ(::mkfifo((dir + "/trace.json").c_str(), 0600), 0);
  const TreeSnapshot before = SnapshotTree(dir);
  // timeout: a regression blocks in open(); the test must fail, not hang.
  CommandResult run = RunShell(dir, "timeout 20 \"$TRAINSCOPE\" analyze trace.json");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "trace.json: not a regular file (FIFO)")) << run.err;
  EXPECT_TRUE(Has(run.err, "hint: ")) << run.err;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadFifo, FifoAsKernelDetailsFailsThatRankOnly) {
  const std::string dir = MakeSynthJob("load-fifo-rank");
  ASSERT_FALSE(dir.empty());
  const std::string kernels = SynthOutputFile(dir + "/job", 1, "kernel_details.csv");
  ASSERT_TRUE(fs::remove(kernels));
  ASSERT_EQ(::mkfifo(kernels.c_str(), 0600), 0);
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunShell(dir, "timeout 20 \"$TRAINSCOPE\" analyze job --no-color");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "not loaded: ")) << run.out;
  EXPECT_TRUE(Has(run.out, "kernel_details.csv: not a regular file (FIFO)")) << run.out;
  EXPECT_TRUE(Has(run.out, "Input: 1 ranks")) << run.out;
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

TEST(HostileLoadFifo, FifosAndSocketsInAJobDirAreSkippedAndListed) {
  const std::string dir = MakeSynthJob("load-fifo-job");
  ASSERT_FALSE(dir.empty());
  ASSERT_EQ(::mkfifo((dir + "/job/trace.json").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((dir + "/job/notes.txt").c_str(), 0600), 0);
  // A socket: bind() creates it in the file system.
  const std::string socket_path = dir + "/job/s.json.gz";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.size(), sizeof(address.sun_path));
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof(address.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ::close(fd);

  const std::string out = MakeTempDir("load-fifo-out");
  const TreeSnapshot before = SnapshotTree(dir);
  CommandResult run = RunShell(
      dir, "timeout 20 \"$TRAINSCOPE\" analyze job --no-color --json \"" + out + "/r.json\"");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "skipped: job/trace.json: not a regular file (FIFO): never opened"))
      << run.out;
  EXPECT_TRUE(Has(run.out, "skipped: job/notes.txt: not a regular file (FIFO)")) << run.out;
  EXPECT_TRUE(Has(run.out, "skipped: job/s.json.gz: not a regular file (socket)")) << run.out;
  const std::string json = ReadFileBytes(out + "/r.json");
  EXPECT_TRUE(Has(json, "\"skipped_inputs\"")) << json.substr(0, 400);
  EXPECT_TRUE(Has(json, "job/trace.json")) << json.substr(0, 400);
  EXPECT_EQ(DiffTrees(before, SnapshotTree(dir)), "");
}

}  // namespace
}  // namespace trainscope::testing
