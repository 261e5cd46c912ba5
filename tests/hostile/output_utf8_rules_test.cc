// Class 7: the UTF-8 rules behind the JSON, HTML and terminal outputs:
// U+FFFD per maximal subpart (Unicode §3.9), controls escaped.
#include <gtest/gtest.h>

#include <string>

#include "core/safe_text.h"
#include "report/html_writer.h"
#include "report/json_writer.h"

namespace trainscope {
namespace {

constexpr std::string_view R = kReplacementChar;

std::string Json(std::string_view text) {
  std::string out;
  report::AppendJsonEscaped(&out, text);
  return out;
}

TEST(HostileOutputUtf8Rules, MaximalSubpartsBecomeOneReplacementEach) {
  EXPECT_EQ(ValidUtf8("a\xff"
                      "b"),
            std::string("a") + std::string(R) + "b");
  EXPECT_EQ(ValidUtf8("\xe0\x80"), std::string(R) + std::string(R));  // overlong lead, then 80
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), std::string(R) + std::string(R));  // overlong '/'
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), std::string(R) + std::string(R) + std::string(R));  // CESU
  EXPECT_EQ(ValidUtf8("\xf4\x90\x80\x80").size(), 4 * R.size());  // past U+10FFFF
  EXPECT_EQ(ValidUtf8("\xf0\x9f\x98"), std::string(R));           // truncated: one
  EXPECT_EQ(ValidUtf8("\xe4\xb8x"), std::string(R) + "x");
  EXPECT_EQ(ValidUtf8("\xf0\x9f\x98\x80 \xe5\xbd\x92"), "\xf0\x9f\x98\x80 \xe5\xbd\x92");
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xed\xbf\xbf"));     // U+DFFF
}

TEST(HostileOutputUtf8Rules, JsonEscapesControlsAndReplacesBadBytes) {
  EXPECT_EQ(Json("\x1b[31m\x07\x7f"), "\"\\u001b[31m\\u0007\\u007f\"");
  EXPECT_EQ(Json("\xc2\x9b"
                 "2J"),
            "\"\\u009b2J\"");
  EXPECT_EQ(Json("a\xe2\x80\xa8"
                 "b"),
            "\"a\\u2028b\"");
  EXPECT_EQ(Json("\xff\xfe"), "\"\\ufffd\\ufffd\"");
  EXPECT_EQ(Json("\xe5\xbd\x92"), "\"\xe5\xbd\x92\"");
}

TEST(HostileOutputUtf8Rules, TerminalAndHtmlEscaping) {
  EXPECT_EQ(TerminalSafe("a\x1b[2J\x07\r\b\x7f"), "a\\x1b[2J\\x07\\x0d\\x08\\x7f");
  EXPECT_EQ(TerminalSafe("x\ny"), "x\\x0ay");
  EXPECT_EQ(TerminalSafe("x\ny", /*keep_newlines=*/true), "x\ny");
  EXPECT_EQ(TerminalSafe("\xc2\x9b\xe2\x80\xae\xff"), "\\u009b\\u202e" + std::string(R));
  EXPECT_EQ(TerminalSafe("\xe5\xbd\x92 ok"), "\xe5\xbd\x92 ok");
  EXPECT_EQ(report::HtmlEscape("<b>\xff\x01</b>"),
            "&lt;b&gt;" + std::string(R) + std::string(R) + "&lt;/b&gt;");
}

}  // namespace
}  // namespace trainscope
