// PlainEventReader (the chunked trace scan's reader for plain events) must
// give every event exactly what simdjson gives it (CaptureEvent), field by
// field, and leave to simdjson everything it does not take, so that damage
// is judged as before: scans with and without it compared on random
// documents full of what is not plain, and its steps on hand-made chunks.
#include "formats/trace/plain_event_reader.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <random>
#include <string>
#include <vector>

#include "formats/trace/chrome_json.h"
#include "formats/trace/scan_options.h"
#include "raw_event_text.h"

namespace trainscope {
namespace {

using formats::trace::PlainEventReader;
using formats::trace::RawEvent;
using formats::trace::ScanOptions;
using formats::trace::ScanReport;

using testing::EveryFieldSink;

struct PlainScan {
  EveryFieldSink sink;
  ScanReport report;
  Status status = Status::Ok();
};

void ScanWith(std::string_view json, ScanOptions options, bool plain, PlainScan* out) {
  options.plain_event_reader = plain;
  out->status = formats::trace::ScanJsonText(json, "t.json", &out->sink, &out->report, options);
}

void ExpectSameScan(const PlainScan& with, const PlainScan& without, const std::string& json) {
  ASSERT_EQ(with.status.ok(), without.status.ok()) << json;
  EXPECT_EQ(with.status.message(), without.status.message()) << json;
  EXPECT_EQ(with.report.events, without.report.events) << json;
  EXPECT_EQ(with.report.unreadable_events, without.report.unreadable_events) << json;
  EXPECT_EQ(with.report.damaged, without.report.damaged) << json;
  EXPECT_EQ(with.report.damage_offset, without.report.damage_offset) << json;
  EXPECT_EQ(with.report.damage_reason, without.report.damage_reason) << json;
  ASSERT_EQ(with.sink.events, without.sink.events) << json;
  EXPECT_EQ(without.report.plain_events, 0U);
}

// Random trace documents from pieces that are plain and pieces that are not
// (escapes, non-ASCII and invalid UTF-8, control characters, numbers and
// literals JSON does not allow, deep nesting, missing values and colons,
// stray commas, values that are not objects), in Kineto's layouts.
class TraceSoup {
 public:
  explicit TraceSoup(uint64_t seed) : rng_(seed) {}

  std::string Document() {
    std::string json = Pick(0.5) ? "{\"schemaVersion\": 1, \"traceEvents\": [" : "[";
    const bool object = json[0] == '{';
    const int events = Uniform(0, 12);
    for (int i = 0; i < events; ++i) {
      if (i > 0) json += Separator();
      json += Pick(0.03) ? Value(2) : Event();
    }
    json += Space();
    json += object ? "]}" : "]";
    return json;
  }

 private:
  bool Pick(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  template <size_t N>
  const char* OneOf(const char* const (&options)[N]) {
    return options[Uniform(0, static_cast<int>(N) - 1)];
  }

  std::string Space() {
    static const char* const kSpaces[] = {"", "", " ", "\n    ", "\n      ", "\t", "\r\n", "  "};
    return OneOf(kSpaces);
  }
  std::string Separator() {
    if (Pick(0.02)) return Pick(0.5) ? ",," : " ";  // a stray or a missing comma
    return Space() + "," + Space();
  }

  std::string String() {
    static const char* const kPlain[] = {"aten::mm",
                                         "",
                                         "cudaLaunchKernel",
                                         "X",
                                         "kernel",
                                         "ac2g",
                                         "void gemm<float, 128>(int, int)",
                                         "a,b:c{d}[e]",  // structural bytes inside a string
                                         "nccl:all_reduce",
                                         "caf\xc3\xa9",
                                         "12",
                                         "[1, 2]"};
    if (Pick(0.9)) return "\"" + std::string(OneOf(kPlain)) + "\"";
    static const char* const kTexts[] = {"Memcpy DtoD (Device -> Device)",
                                         "\xe4\xb8\xad\xe6\x96\x87",
                                         "-3.5",
                                         "true",
                                         "{\\\"k\\\": 1}",
                                         "tab\\there",
                                         "quote\\\"d",
                                         "back\\\\slash",
                                         "\\u00e9t\\u00e9",
                                         "na\\u006de",
                                         "\xff\xfe",
                                         "cut\xc3",
                                         "ctl\x01",
                                         "raw\ttab",
                                         "nul",
                                         "over\xc0\xafl"};
    const char* text = OneOf(kTexts);
    // Texts with an embedded NUL keep it.
    const std::string body = std::string(text) == "nul" ? std::string("nul\0byte", 8) : text;
    return "\"" + body + "\"";
  }
  std::string Number() {
    static const char* const kPlain[] = {"0", "7", "785244", "1669783687464292", "3.5", "1e5"};
    if (Pick(0.9)) return OneOf(kPlain);
    static const char* const kNumbers[] = {"0",
                                           "-0",
                                           "7",
                                           "785244",
                                           "1669783687464292",
                                           "1669783687464292.125",
                                           "3.5",
                                           "-0.25",
                                           "1e5",
                                           "1E+5",
                                           "2.5e-3",
                                           "0.0",
                                           "18446744073709551616",
                                           "01",
                                           "1.",
                                           ".5",
                                           "-",
                                           "1e",
                                           "+1",
                                           "0x10",
                                           "1.2.3",
                                           "NaN",
                                           "Infinity",
                                           "--1",
                                           "1e+",
                                           "-.5"};
    return OneOf(kNumbers);
  }
  std::string Literal() {
    if (Pick(0.8)) return Pick(0.5) ? "true" : "null";
    static const char* const kLiterals[] = {"true", "false", "null",  "tru", "nul",
                                            "True", "truex", "nulll", "fals"};
    return OneOf(kLiterals);
  }
  std::string Key(bool args) {
    if (!args && Pick(0.9)) {
      static const char* const kPlain[] = {"ph", "cat", "name", "pid", "tid", "ts", "dur", "args"};
      return "\"" + std::string(OneOf(kPlain)) + "\"";
    }
    static const char* const kEventKeys[] = {"ph", "cat", "name",       "pid",      "tid",
                                             "ts", "dur", "id",         "bp",       "args",
                                             "s",  "tts", "n\\u0061me", "p\xc3\xa9"};
    static const char* const kArgsKeys[] = {"External id",
                                            "correlation",
                                            "stream",
                                            "device",
                                            "Collective name",
                                            "In msg nelems",
                                            "Out msg nelems",
                                            "Group size",
                                            "dtype",
                                            "Process Group Name",
                                            "Process Group Description",
                                            "Process Group Ranks",
                                            "Bytes",
                                            "Total Allocated",
                                            "Total Reserved",
                                            "Device Id",
                                            "Device Type",
                                            "name",
                                            "labels",
                                            "Task Type",
                                            "Call stack",
                                            "Input Dims",
                                            "Input type",
                                            "Ev Idx",
                                            "grid",
                                            "Sequence number"};
    return "\"" + std::string(args ? OneOf(kArgsKeys) : OneOf(kEventKeys)) + "\"";
  }
  std::string Value(int depth) {
    const int kind = Uniform(0, depth > 0 ? 5 : 2);
    if (kind == 0) return String();
    if (kind == 1) return Pick(0.8) ? Number() : Literal();
    if (kind == 2) return Pick(0.3) ? "\"" + std::string(Number()) + "\"" : String();
    if (kind == 3 || kind == 4) {
      std::string array = "[";
      const int n = Uniform(0, 3);
      for (int i = 0; i < n; ++i) {
        if (i > 0) array += "," + Space();
        array += Value(depth - 1);
      }
      if (Pick(0.02)) array += ",";  // a trailing comma
      return array + "]";
    }
    return Object(false, depth - 1);
  }
  std::string Nested() {
    const int depth = Uniform(20, 40);  // around PlainEventReader::kMaxDepth
    return std::string(static_cast<size_t>(depth), '[') + "1" +
           std::string(static_cast<size_t>(depth), ']');
  }
  std::string Object(bool args, int depth) {
    std::string object = "{" + Space();
    const int n = Uniform(0, args ? 6 : 3);
    for (int i = 0; i < n; ++i) {
      if (i > 0) object += Space() + "," + Space();
      object += Key(args) + Space();
      if (!Pick(0.01)) object += ":";  // a missing colon
      object += Space();
      if (Pick(0.01)) continue;  // a missing value
      if (Pick(0.03)) {
        object += Nested();
      } else {
        object += Value(depth);
      }
      if (Pick(0.005)) object += ":\"x\"";  // a string followed by ':'
    }
    if (Pick(0.01)) object += ",";  // a trailing comma
    return object + Space() + "}";
  }
  std::string Event() {
    std::string event = "{" + Space();
    const int n = Uniform(0, 9);
    for (int i = 0; i < n; ++i) {
      if (i > 0) event += Space() + "," + Space();
      std::string key = Key(false);
      event += key + Space() + ":" + Space();
      if (key == "\"args\"" && Pick(0.9)) {
        event += Object(true, 3);
      } else if (Pick(0.01)) {
        event += Nested();
      } else {
        event += Value(2);
      }
    }
    return event + Space() + "}";
  }

  std::mt19937_64 rng_;
};

TEST(PlainEventReaderTest, ScansAsSimdjsonAloneOnRandomDocuments) {
  size_t events = 0, plain = 0, documents_with_damage = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    TraceSoup soup(seed);
    const std::string json = soup.Document();
    ScanOptions options;
    options.chunk_bytes = seed % 3 == 0 ? 1 : 1 + seed % 200;
    options.threads = 1 + static_cast<unsigned>(seed % 2);
    PlainScan with, without;
    ScanWith(json, options, true, &with);
    ScanWith(json, options, false, &without);
    ExpectSameScan(with, without, json);
    if (HasFailure()) return;
    events += with.report.events;
    plain += with.report.plain_events;
    if (with.report.unreadable_events > 0 || with.report.damaged) ++documents_with_damage;
  }
  // Both readers at work: many events plain, many left to simdjson, and
  // documents with unreadable events or damage among them.
  EXPECT_GT(plain * 10, events * 2) << plain << " of " << events;
  EXPECT_LT(plain * 10, events * 8) << plain << " of " << events;
  EXPECT_GT(documents_with_damage, 100U);
}

// The reader's steps on one chunk: "[" events "]" followed by simdjson's
// zeroed padding, which the events' views point into.
struct ChunkSteps {
  explicit ChunkSteps(std::string_view chunk) : padded(chunk), unescaped(chunk.size(), '\0') {
    PlainEventReader reader(std::string_view(padded.data(), padded.size()), unescaped.data());
    for (;;) {
      RawEvent ev;
      const PlainEventReader::Step step = reader.Next(&ev);
      steps.push_back(step);
      if (step != PlainEventReader::Step::kEvent) break;
      events.push_back(ev);
    }
    stopped_at = reader.event_begin();
  }
  simdjson::padded_string padded;
  std::string unescaped;
  std::vector<PlainEventReader::Step> steps;
  std::vector<RawEvent> events;
  size_t stopped_at = 0;
};

using Step = PlainEventReader::Step;

TEST(PlainEventReaderTest, ReadsFieldsAsCaptureEventDoes) {
  const ChunkSteps read(
      "[{\"ph\": \"X\", \"ts\": 12.5 ,\n \"pid\": \"7\" , \"tid\":3,\"args\": {\"Input Dims\": "
      "[[1, 2], []] , \"External id\": 4 ,\"Call stack\": \"a.py(1): f\", \"grid\": [1]}, "
      "\"dur\": 2\n  }]");
  EXPECT_EQ(read.steps, (std::vector<Step>{Step::kEvent, Step::kEnd}));
  ASSERT_EQ(read.events.size(), 1U);
  const RawEvent& e = read.events[0];
  EXPECT_EQ(e.ph, "X");
  EXPECT_EQ(e.ts, "12.5 ");    // raw, with the whitespace up to the comma
  EXPECT_EQ(e.pid, "\"7\" ");  // raw: the quotes kept
  EXPECT_EQ(e.tid, "3");
  EXPECT_EQ(e.dur, "2\n  ");  // up to the closing brace
  EXPECT_TRUE(e.has_args);
  EXPECT_EQ(e.input_dims, "[[1, 2], []]");
  EXPECT_EQ(e.external_id, "4 ");
  EXPECT_EQ(e.call_stack, "a.py(1): f");
}

TEST(PlainEventReaderTest, UnescapesTextAndKeepsRawTokensAsWritten) {
  // torch_npu's call stacks and shapes: "\r\n" between frames.
  const ChunkSteps read(
      "[{\"name\": \"a\\\"b\\\\c\\/d\\b\\f\\t\", \"ts\": \"1\\n\", \"s\": \"\\u00e9\", \"args\": "
      "{\"Call stack\": \"x.py(1): f;\\r\\ny.py(2): g\", \"Input Dims\": \";\\r\\n\"}}, "
      "{\"name\": \"plain\"}]");
  EXPECT_EQ(read.steps, (std::vector<Step>{Step::kEvent, Step::kEvent, Step::kEnd}));
  ASSERT_EQ(read.events.size(), 2U);
  EXPECT_EQ(read.events[0].name, "a\"b\\c/d\b\f\t");
  EXPECT_EQ(read.events[0].ts, "\"1\\n\"");  // raw: as written
  EXPECT_EQ(read.events[0].call_stack, "x.py(1): f;\r\ny.py(2): g");
  EXPECT_EQ(read.events[0].input_dims, "");  // a string, not an array: left out
  EXPECT_EQ(read.events[1].name, "plain");
}

TEST(PlainEventReaderTest, ArgsThatAreNotAnObjectAreNoted) {
  const ChunkSteps read("[{\"args\": 5},{\"args\": [1]},{\"args\": {}}]");
  EXPECT_EQ(read.steps, (std::vector<Step>{Step::kEvent, Step::kEvent, Step::kEvent, Step::kEnd}));
  const std::vector<RawEvent>& events = read.events;
  ASSERT_EQ(events.size(), 3U);
  EXPECT_EQ(events[0].note, RowIssue::kArgsNotObject);
  EXPECT_FALSE(events[0].has_args);
  EXPECT_EQ(events[1].note, RowIssue::kArgsNotObject);
  EXPECT_TRUE(events[2].has_args);
  EXPECT_EQ(events[2].note, RowIssue::kNone);
}

TEST(PlainEventReaderTest, LeavesWhatIsNotPlainAtItsEvent) {
  const char* const not_plain[] = {
      "{\"name\": \"\\u0041\"}",  // "\u" in a string read as text
      "{\"n\\u0061me\": 1}",      // an escape in a key
      "{\"ts\": \"\\q\"}",        // an escape JSON does not have
      "{\"name\": \"\x01\"}",     // a control character
      "{\"name\": \"\xff\"}",     // invalid UTF-8
      "{\"ts\": 01}",             // not JSON's number
      "{\"ts\": tru}",            // nor a literal
      "{\"ts\": }",               // a missing value
      "{\"ts\" 1}",               // a missing colon
      "{\"a\": \"b\": 1}",        // a string followed by ':'
      "{\"a\": 1,}",              // a trailing comma in the event
      "5",                        // not an object
  };
  for (const char* event : not_plain) {
    const std::string chunk = std::string("[{\"ph\": \"i\"}, ") + event + "]";
    const ChunkSteps read(chunk);
    EXPECT_EQ(read.steps, (std::vector<Step>{Step::kEvent, Step::kLeave})) << event;
    EXPECT_EQ(read.stopped_at, chunk.find(event, 1)) << event;
  }
  // A comma where the first event should be: left at it, for simdjson.
  EXPECT_EQ(ChunkSteps("[,{}]").steps, (std::vector<Step>{Step::kLeave}));
  // Valid UTF-8 is plain.
  const ChunkSteps read("[{\"name\": \"caf\xc3\xa9\"}]");
  EXPECT_EQ(read.steps, (std::vector<Step>{Step::kEvent, Step::kEnd}));
  EXPECT_EQ(read.events.at(0).name, "caf\xc3\xa9");
}

TEST(PlainEventReaderTest, RefusesTextAroundTheEventsItDoesNotTake) {
  for (const char* chunk : {"[{}, ]", "[{} {}]", "[{}] ", "[{}]]", "{}]"}) {
    EXPECT_EQ(ChunkSteps(chunk).steps.back(), Step::kRefuse) << chunk;
  }
  EXPECT_EQ(ChunkSteps("[ ]").steps, (std::vector<Step>{Step::kEnd}));
}

TEST(PlainEventReaderTest, NestingPastTheLimitIsLeft) {
  auto nested = [](int depth) {
    return "[{\"args\": {\"grid\": " + std::string(static_cast<size_t>(depth), '[') +
           std::string(static_cast<size_t>(depth), ']') + "}}]";
  };
  // The event is depth 1, its args 2: arrays up to the limit are read.
  EXPECT_EQ(ChunkSteps(nested(PlainEventReader::kMaxDepth - 2)).steps.front(), Step::kEvent);
  EXPECT_EQ(ChunkSteps(nested(PlainEventReader::kMaxDepth - 1)).steps.front(), Step::kLeave);
}

// One RawEvent for every event of a chunk, as the scan reads them: each
// event is fresh, whatever the one before it set, also past the number of
// writes the reader keeps track of (a key repeated 70 times).
TEST(PlainEventReaderTest, EachEventIsFreshInTheSameRawEvent) {
  std::string repeated = "{\"ph\": \"X\"";
  for (int i = 0; i < 70; ++i) repeated += ", \"name\": \"n\"";
  repeated += ", \"cat\": \"c\"}";  // the 72nd write
  const std::string chunk =
      "[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 2, \"args\": {\"stream\": 7, "
      "\"Input Dims\": [[1]]}}, {\"ph\": \"i\", \"args\": 5}, {\"ph\": \"M\"}, " +
      repeated + ", {\"ts\": 3}]";
  simdjson::padded_string padded(chunk);
  std::string unescaped(chunk.size(), '\0');
  PlainEventReader reader(std::string_view(padded.data(), padded.size()), unescaped.data());
  RawEvent ev;
  ASSERT_EQ(reader.Next(&ev), Step::kEvent);
  EXPECT_EQ(ev.name, "a");
  EXPECT_EQ(ev.stream, "7");
  EXPECT_TRUE(ev.has_args);
  ASSERT_EQ(reader.Next(&ev), Step::kEvent);  // args that are not an object
  EXPECT_EQ(ev.ph, "i");
  EXPECT_TRUE(ev.name.empty() && ev.ts.empty() && ev.dur.empty() && ev.stream.empty());
  EXPECT_TRUE(ev.input_dims.empty());
  EXPECT_FALSE(ev.has_args);
  EXPECT_EQ(ev.note, RowIssue::kArgsNotObject);
  ASSERT_EQ(reader.Next(&ev), Step::kEvent);
  EXPECT_EQ(ev.ph, "M");
  EXPECT_EQ(ev.note, RowIssue::kNone);
  ASSERT_EQ(reader.Next(&ev), Step::kEvent);
  EXPECT_EQ(ev.name, "n");
  EXPECT_EQ(ev.cat, "c");
  ASSERT_EQ(reader.Next(&ev), Step::kEvent);
  EXPECT_TRUE(ev.ph.empty() && ev.name.empty() && ev.cat.empty());
  EXPECT_EQ(ev.ts, "3");
  EXPECT_EQ(reader.Next(&ev), Step::kEnd);
}

TEST(PlainEventReaderTest, WithoutTheNulAfterTheChunkItRefuses) {
  std::string buffer = "[{\"ph\": \"X\"}]";
  buffer += std::string(PlainEventReader::kReadAhead, 'x');
  std::string unescaped(buffer.size(), '\0');
  PlainEventReader reader(
      std::string_view(buffer.data(), buffer.size() - PlainEventReader::kReadAhead),
      unescaped.data());
  RawEvent ev;
  EXPECT_EQ(reader.Next(&ev), Step::kRefuse);
}

}  // namespace
}  // namespace trainscope
