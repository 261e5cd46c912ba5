// Class 7: whatever bytes a profile holds, `analyze --json -` writes valid
// UTF-8 JSON (RFC 8259): ill-formed sequences become U+FFFD and control
// characters \u00XX escapes.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "hostile/csv_util.h"
#include "hostile/hostile_util.h"

namespace trainscope::testing {
namespace {

TEST(HostileOutputJsonUtf8, EvilKernelNamesGiveValidUtf8Json) {
  const std::string job = WriteAscendJob("json_utf8", EvilKernelDetails());
  const TreeSnapshot before = SnapshotTree(job);
  const CommandResult r = RunTrainscopeIn(job, {"analyze", "--json", "-", job});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(simdjson::validate_utf8(r.out.data(), r.out.size()));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 400);
  for (char c : r.out) {
    const unsigned char u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 || c == '\n') << "raw control byte " << int(u);
    EXPECT_NE(u, 0x7F);
  }
  EXPECT_NE(r.out.find("\\u001b[31mred\\u001b[0m"), std::string::npos);
  EXPECT_NE(r.out.find("bell\\u0007"), std::string::npos);
  EXPECT_NE(r.out.find("bad\\ufffd\\ufffd"), std::string::npos);
  EXPECT_NE(r.out.find("cesu\\ufffd\\ufffd\\ufffd"), std::string::npos);  // one per byte
  EXPECT_NE(r.out.find("over\\ufffd\\ufffd"), std::string::npos);
  EXPECT_NE(r.out.find("cut\\ufffd"), std::string::npos);  // the maximal subpart: one
  EXPECT_NE(r.out.find("c1\\u009b2J"), std::string::npos);
  EXPECT_NE(r.out.find("\xe5\xbd\x92\xe4\xb8\x80\xe5\x8c\x96_ok"), std::string::npos);
  EXPECT_NE(r.out.find("\\u001b]0;pwned\\u0007"), std::string::npos);  // the ledger sample
  EXPECT_EQ(DiffTrees(before, SnapshotTree(job)), "");
}

}  // namespace
}  // namespace trainscope::testing
