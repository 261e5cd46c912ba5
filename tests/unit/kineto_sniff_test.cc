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
  EXPECT_EQ(ScanWhole("garbage"), State::kNotObject);
  EXPECT_EQ(ScanWhole("\"text\""), State::kNotObject);
  EXPECT_EQ(ScanWhole(""), State::kMore);
  EXPECT_EQ(ScanWhole("{\"a\": [1, 2"), State::kMore);
  EXPECT_EQ(ScanWhole("{\"a\": \"unterminated"), State::kMore);
}

// The Trace Event Format's "JSON Array Format": a top-level array of events,
// the closing ']' optional. Decided by the first element alone: an object
// with a "ph" key (every trace event has one).
TEST(KinetoSniffTest, JsonArrayFormatIsDecidedByItsFirstEvent) {
  for (const char* text :
       {"[{\"ph\": \"X\", \"name\": \"k\", \"ts\": 1}]",
        "\xef\xbb\xbf [ {\"name\": \"a ph\", \"args\": {\"x\": [1]}, \"ph\": \"M\"",  // no ']'
        "[{\"ph\""}) {
    SCOPED_TRACE(text);
    TopLevelKeyScanner scanner;
    EXPECT_EQ(scanner.Feed(text), State::kFound);
    EXPECT_TRUE(scanner.array());
    EXPECT_EQ(ScanBytewise(text), State::kFound);
  }
  // Not a trace: the first element is no event (a nested "ph", a value, no
  // element), whatever follows it.
  for (const char* text :
       {"[{\"traceEvents\": []}]", "[{\"args\": {\"ph\": 1}}, {\"ph\": \"X\"}]",
        "[{\"name\": \"ph\"}]", "[1, 2, 3]", "[[{\"ph\": \"X\"}]]", "[]", "[{}]"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(ScanWhole(text), State::kEnded);
    EXPECT_EQ(ScanBytewise(text), State::kEnded);
  }
  EXPECT_EQ(ScanWhole("[{\"name\": \"unterminated"), State::kMore);
  EXPECT_EQ(ScanWhole("["), State::kMore);
}

}  // namespace
}  // namespace trainscope::formats
