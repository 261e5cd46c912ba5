// `trainscope health` on files that are not training logs: a binary (ELF),
// UTF-16 text, a sparse file of zeros and a damaged .gz are never "healthy"
// with exit 0; each is refused or reported as read only up to the damage,
// with exit 2 (docs/health.md, "Not read is not healthy").
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "hostile/hostile_util.h"
#include "hostile/load_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// |lines| JSON training lines, the loss falling slowly.
std::string HealthyLogLines(int lines) {
  std::string out;
  for (int i = 1; i <= lines; ++i) {
    out += fmt::format("{{\"step\": {}, \"loss\": {:.4f}}}\n", i, 4.0 - 0.0005 * i);
  }
  return out;
}

TEST(HostileHealthInputs, FilesThatAreNotTextAreRefusedNeverHealthy) {
  const std::string root = MakeTempDir("health-not-text");
  // The control: the same lines as a plain log are read and judged.
  ASSERT_TRUE(WriteBytes(root + "/good.log", HealthyLogLines(2000)));
  const CommandResult good = RunTrainscopeIn(root, {"health", "good.log"});
  ASSERT_EQ(good.exit_code, 0) << good.out << good.err;
  ASSERT_TRUE(Contains(good.out, "healthy: no findings")) << good.out;

  std::string elf =
      "\x7f"
      "ELF\x02\x01\x01";
  elf += std::string(64, '\0') + HealthyLogLines(50);
  ASSERT_TRUE(WriteBytes(root + "/tool.bin", elf));
  std::string utf16 = "\xff\xfe";
  for (const char c : HealthyLogLines(50)) utf16 += std::string{c, '\0'};
  ASSERT_TRUE(WriteBytes(root + "/utf16.log", utf16));
  // 5 GB of zeros that take no disk: refused from its first bytes, never
  // read to the end.
  const std::string sparse = root + "/sparse.log";
  const int fd = ::open(sparse.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, int64_t{5} << 30), 0);
  ::close(fd);

  for (const std::string name : {"tool.bin", "utf16.log", "sparse.log"}) {
    SCOPED_TRACE(name);
    const CommandResult r = RunShell(root, "timeout 120 \"$TRAINSCOPE\" health " + name);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_FALSE(Contains(r.out, "healthy: no findings")) << r.out;
    EXPECT_TRUE(Contains(r.out + r.err, "a NUL byte at offset")) << r.out << r.err;
  }
  const CommandResult utf16_run = RunTrainscopeIn(root, {"health", "utf16.log"});
  EXPECT_TRUE(Contains(utf16_run.out + utf16_run.err, "UTF-16")) << utf16_run.out << utf16_run.err;
}

TEST(HostileHealthInputs, ADamagedGzipIsReadUpToTheDamageAndSaysSo) {
  const std::string root = MakeTempDir("health-bad-gz");
  const std::string gz = GzipBytes(HealthyLogLines(20000));
  ASSERT_TRUE(WriteBytes(root + "/intact.log.gz", gz));
  const CommandResult intact = RunTrainscopeIn(root, {"health", "intact.log.gz"});
  ASSERT_EQ(intact.exit_code, 0) << intact.out << intact.err;
  // Bytes overwritten in the middle of the deflate stream.
  std::string damaged = gz;
  for (size_t i = damaged.size() / 2; i < damaged.size() / 2 + 64; ++i) damaged[i] = '\xA5';
  ASSERT_TRUE(WriteBytes(root + "/damaged.log.gz", damaged));
  const CommandResult r = RunTrainscopeIn(root, {"health", "damaged.log.gz"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_FALSE(Contains(r.out, "healthy: no findings")) << r.out;
  // Cut short instead: the same.
  ASSERT_TRUE(WriteBytes(root + "/cut.log.gz", gz.substr(0, gz.size() * 2 / 3)));
  const CommandResult cut = RunTrainscopeIn(root, {"health", "cut.log.gz"});
  EXPECT_EQ(cut.exit_code, 2) << cut.out << cut.err;
  EXPECT_FALSE(Contains(cut.out, "healthy: no findings")) << cut.out;
}

}  // namespace
}  // namespace trainscope::testing
