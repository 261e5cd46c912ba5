#include "formats/kineto_sniff.h"

#include <gtest/gtest.h>

#include <string>

namespace trainscope::formats {
namespace {

using State = TopLevelKeyScanner::State;

State ScanWhole(const std::string& text) {
  TopLevelKeyScanner scanner;
  return scanner.Feed(text);
}

// The same text one byte at a time: the state carries across pieces (the
// gzip sniff feeds inflated steps).
State ScanBytewise(const std::string& text) {
  TopLevelKeyScanner scanner;
  for (char c : text) {
    if (scanner.Feed(std::string_view(&c, 1)) != State::kMore) break;
  }
  return scanner.state();
}

TEST(KinetoSniffTest, FindsTopLevelKeysAfterLongNestedMetadata) {
  const std::string trace =
      "\xef\xbb\xbf {\"deviceProperties\": [{\"name\": \"a \\\"traceEvents\\\" b\", \"x\": {\"y\": "
      "\"}]{[\"}}],"
      " \"distributedInfo\": {\"traceEvents\": 1}, \"traceEvents\": []}";
  EXPECT_EQ(ScanWhole(trace), State::kFound);
  EXPECT_EQ(ScanBytewise(trace), State::kFound);
  EXPECT_EQ(ScanWhole("{\"schemaVersion\": 1}"), State::kFound);
}

TEST(KinetoSniffTest, NestedOrValueMentionsAreNotTheKey) {
  EXPECT_EQ(ScanWhole("{\"config\": {\"traceEvents\": []}}"), State::kEnded);
  EXPECT_EQ(ScanWhole("{\"name\": \"traceEvents\"}"), State::kEnded);
  EXPECT_EQ(ScanWhole("{\"trace\\u0045vents\": []}"), State::kEnded);  // escaped: not ours
  EXPECT_EQ(ScanWhole("{}"), State::kEnded);
  EXPECT_EQ(ScanBytewise("{\"config\": {\"traceEvents\": []}}"), State::kEnded);
}

TEST(KinetoSniffTest, NotAnObjectOrUnfinished) {
  EXPECT_EQ(ScanWhole("[{\"traceEvents\": []}]"), State::kNotObject);
  EXPECT_EQ(ScanWhole("garbage"), State::kNotObject);
  EXPECT_EQ(ScanWhole(""), State::kMore);
  EXPECT_EQ(ScanWhole("{\"a\": [1, 2"), State::kMore);
  EXPECT_EQ(ScanWhole("{\"a\": \"unterminated"), State::kMore);
}

}  // namespace
}  // namespace trainscope::formats
