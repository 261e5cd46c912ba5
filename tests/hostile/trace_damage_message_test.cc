// Class 7: damage messages say what happened and where. Trailing data after
// the document is reported at the offset of its first byte as "trailing
// data after the JSON document" (it was "at byte 0"), through the text scan,
// the mapped file, the gzip stream and the CLI.
#include <gtest/gtest.h>

#include <string>

#include "formats/trace/kineto_reader.h"
#include "hostile/hostile_util.h"
#include "hostile/trace_fixture_util.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

using testing::Kernel;

void ExpectWarning(const model::RankProfile& p, const std::string& expected, size_t kept) {
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find(expected), std::string::npos) << p.warnings[0];
  EXPECT_EQ(p.warnings[0].find("at byte 0 "), std::string::npos) << p.warnings[0];
  EXPECT_EQ(p.device_events.size(), kept);
}

TEST(HostileTraceDamageMessage, TrailingDataIsReportedWhereItIs) {
  const std::string doc = testing::TraceOf({Kernel("k1", 1), Kernel("k2", 2)});
  const std::string text = doc + "garbage";
  const std::string expected =
      fmt::format("at byte {} (trailing data after the JSON document)", doc.size());
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(text, "t.json", &p).ok());
  ExpectWarning(p, expected, 2);

  const std::string dir = testing::MakeTempDir("trace_trailing");
  ASSERT_TRUE(testing::WriteBytes(dir + "/t.json", text));
  ASSERT_TRUE(testing::WriteGzip(dir + "/t.json.gz", {{text}}));
  for (const char* name : {"t.json", "t.json.gz"}) {
    model::RankProfile from_file;
    ASSERT_TRUE(formats::ReadKinetoTrace(dir + "/" + name, &from_file).ok());
    ExpectWarning(from_file, expected, 2);
  }
  // A top-level array (trace_view.json's shape) too.
  const std::string array = "[" + Kernel("k1", 1) + "]";
  model::RankProfile a;
  ASSERT_TRUE(formats::ParseKinetoTrace(array + " ]", "a.json", &a).ok());
  ExpectWarning(
      a, fmt::format("at byte {} (trailing data after the JSON document)", array.size() + 1), 1);

  const testing::TreeSnapshot before = testing::SnapshotTree(dir);
  const testing::CommandResult r = testing::RunTrainscopeIn(dir, {"analyze", "t.json.gz"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(expected), std::string::npos) << r.out;
  EXPECT_EQ(testing::DiffTrees(before, testing::SnapshotTree(dir)), "");
}

TEST(HostileTraceDamageMessage, OtherDamageNamesItsOffset) {
  const std::string k1 = Kernel("k1", 1), k2 = Kernel("k2", 2);
  struct Case {
    std::string text;
    size_t offset;
    const char* reason;
  };
  const std::string head = "{\"traceEvents\": [" + k1;
  const Case cases[] = {
      {head + " " + k2 + "]}", head.size() + 1, "expected ',' or ']' after an event"},
      {head + ",]}", head.size() + 1, "trailing comma"},
      {head + "]", head.size() + 1, "truncated (object not closed)"},
      {head + "], \"x\": 1 2}", head.size() + 10, "expected ',' or '}' after a top-level value"},
  };
  for (const Case& c : cases) {
    model::RankProfile p;
    ASSERT_TRUE(formats::ParseKinetoTrace(c.text, "d.json", &p).ok()) << c.text;
    ExpectWarning(p, fmt::format("at byte {} ({})", c.offset, c.reason), 1);
  }
}

// A damaged metadata value is reported where it is, and the events after it
// are still read.
TEST(HostileTraceDamageMessage, DamagedMetadataValueDoesNotStopTheEvents) {
  const std::string head = "{\"deviceProperties\": ";
  const std::string doc = head + "[\"bad \xff\"], \"traceEvents\": [" + Kernel("k1", 1) + ",\n" +
                          Kernel("k2", 2) + "]}";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(doc, "m.json", &p).ok());
  ExpectWarning(
      p,
      fmt::format("at byte {} (invalid value of top-level key \"deviceProperties\"", head.size()),
      2);
  EXPECT_NE(p.warnings[0].find("read the 2 events around it"), std::string::npos) << p.warnings[0];
}

}  // namespace
}  // namespace trainscope
