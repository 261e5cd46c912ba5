// Class 7: the HTML report is valid UTF-8 and carries no raw control bytes,
// whatever the kernel names hold (markup escaping is tested elsewhere).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "hostile/csv_util.h"
#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

TEST(HostileOutputHtmlUtf8, IllFormedNamesAreReplaced) {
  std::string data = kKernelDetailsHeader;
  const char* const names[] = {"bad\xff\xfe", "cesu\xed\xa0\x80", "esc\x1b[31m", "nul\x01x"};
  int i = 0;
  for (int round = 0; round < 4; ++round) {
    for (const char* name : names) data += DeviceEvent(i++, name);
  }
  const std::string job = WriteAscendJob("html_utf8", data);
  const std::string out_dir = MakeTempDir("html_utf8_out");
  const std::string html = out_dir + "/report.html";
  const TreeSnapshot before = SnapshotTree(job);
  const CommandResult r = RunTrainscopeIn(out_dir, {"analyze", job, "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = ReadFileBytes(html);
  ASSERT_FALSE(page.empty());
  EXPECT_TRUE(simdjson::validate_utf8(page.data(), page.size()));
  for (char c : page) {
    const unsigned char u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 || c == '\n' || c == '\t' || c == '\r') << int(u);
  }
  EXPECT_NE(page.find("bad\xef\xbf\xbd\xef\xbf\xbd"), std::string::npos);
  EXPECT_EQ(DiffTrees(before, SnapshotTree(job)), "");
}

}  // namespace
}  // namespace trainscope::testing
