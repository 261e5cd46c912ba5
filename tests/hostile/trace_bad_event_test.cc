// Class 5: one bad event must not end the read. Each event below sits
// between valid ones; through every path (chunked scan with big and tiny
// chunks, the whole-document event-wise scan, the gzip stream, the
// trace_view reader) it is skipped and counted with a reason, or its bad
// field is read as missing, and the events after it are kept.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/trace/chrome_json.h"
#include "formats/trace/kineto_reader.h"
#include "formats/trace/trace_view_reader.h"
#include "hostile/hostile_util.h"
#include "hostile/trace_fixture_util.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

using formats::trace::ScanOptions;
using testing::Kernel;

struct BadEvent {
  const char* label;
  std::string text;
  const char* skip_reason;  // nullptr: the event is kept
  const char* note_reason;  // the ledger note of a kept event, or nullptr
};

std::vector<BadEvent> BadEvents() {
  return {
      {"args_null", Kernel("bad", 500, R"(, "args": null)"), nullptr,
       "args is not an object (ignored)"},
      {"args_number", Kernel("bad", 500, R"(, "args": 5)"), nullptr,
       "args is not an object (ignored)"},
      {"args_array", Kernel("bad", 500, R"(, "args": [1, {"correlation": 2}])"), nullptr,
       "args is not an object (ignored)"},
      {"ts_text",
       R"({"ph": "X", "cat": "kernel", "name": "bad", "pid": 0, "tid": 7, "ts": "abc", "dur": 1})",
       "bad ts", nullptr},
      {"name_number",
       R"({"ph": "X", "cat": "kernel", "name": 3, "pid": 0, "tid": 7, "ts": 500, "dur": 1})",
       nullptr, nullptr},
      {"dur_object",
       R"({"ph": "X", "cat": "kernel", "name": "bad", "pid": 0, "tid": 7, "ts": 500, "dur": {}})",
       nullptr, nullptr},
      {"lone_surrogate", Kernel("bad\\ud800", 500), "invalid event", nullptr},
      {"nul_byte", Kernel(std::string("a\0b", 3), 500), "invalid event", nullptr},
      {"not_an_object", "5", "event is not an object", nullptr},
      {"invalid_utf8", Kernel("bad\xff\xfe", 500), "invalid UTF-8", nullptr},
      {"unescaped_quote", Kernel("a \"quoted\" b", 500), "invalid event", nullptr},
  };
}

// 30 kernels, the bad event, 30 kernels: the bad one lands mid-chunk with
// tiny chunks too.
std::string DocWith(const std::string& bad) {
  std::vector<std::string> events;
  for (int i = 0; i < 30; ++i) events.push_back(Kernel("before" + std::to_string(i), 10 + i));
  events.push_back(bad);
  for (int i = 0; i < 30; ++i) events.push_back(Kernel("after" + std::to_string(i), 1000 + i));
  return testing::TraceOf(events);
}

void ExpectRead(const BadEvent& c, const model::RankProfile& p, const std::string& path) {
  SCOPED_TRACE(std::string(c.label) + " via " + path);
  ASSERT_EQ(p.ledgers.size(), 1u);
  const RowLedger& l = p.ledgers[0];
  EXPECT_EQ(l.rows_read(), 61);
  EXPECT_EQ(l.rows_read(), l.rows_used() + l.rows_skipped());
  EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
  if (c.skip_reason != nullptr) {
    EXPECT_EQ(p.device_events.size(), 60u);
    EXPECT_EQ(l.rows_skipped(), 1);
    ASSERT_EQ(l.skipped_by_reason().count(c.skip_reason), 1u)
        << "reasons: " << l.skipped_by_reason().begin()->first;
    EXPECT_EQ(l.skipped_by_reason().at(c.skip_reason), 1);
  } else {
    EXPECT_EQ(p.device_events.size(), 61u);
    EXPECT_EQ(l.rows_skipped(), 0);
    if (c.note_reason != nullptr) {
      ASSERT_EQ(l.notes_by_reason().count(c.note_reason), 1u);
      EXPECT_EQ(l.notes_by_reason().at(c.note_reason), 1);
    }
  }
}

TEST(HostileTraceBadEvent, SkippedOrReadAsMissingThroughEveryKinetoPath) {
  const std::string dir = testing::MakeTempDir("trace_bad_event");
  for (const BadEvent& c : BadEvents()) {
    const std::string doc = DocWith(c.text);
    for (ScanOptions options : {ScanOptions{}, ScanOptions{64, 2}, ScanOptions{1, 1}}) {
      model::RankProfile p;
      ASSERT_TRUE(formats::ParseKinetoTrace(doc, "bad.json", &p, options).ok()) << c.label;
      ExpectRead(c, p, "chunked " + std::to_string(options.chunk_bytes));
    }
    // The mapped file and the gzip stream.
    const std::string plain = dir + "/" + c.label + ".json", gz = plain + ".gz";
    ASSERT_TRUE(testing::WriteBytes(plain, doc));
    ASSERT_TRUE(testing::WriteGzip(gz, {{doc}}));
    for (const std::string& path : {plain, gz}) {
      for (ScanOptions options : {ScanOptions{}, ScanOptions{64, 2}}) {
        model::RankProfile p;
        ASSERT_TRUE(formats::ReadKinetoTrace(path, &p, options).ok()) << c.label;
        ExpectRead(c, p, path + " " + std::to_string(options.chunk_bytes));
      }
    }
  }
}

// The whole-document scan (the fallback of every path) on its own: the
// event-wise reader skips the event and reports no damage.
class Counter : public formats::trace::SerialEventSink {
 public:
  void OnEvent(const formats::trace::RawEvent& e, size_t offset) override {
    if (e.skip != RowIssue::kNone) {
      skipped.push_back(RowIssueKey(e.skip));
      offsets.push_back(offset);
    } else {
      names.emplace_back(e.name);
    }
  }
  void Reset() override {
    skipped.clear();
    offsets.clear();
    names.clear();
  }
  std::vector<std::string> skipped, names;
  std::vector<size_t> offsets;
};

TEST(HostileTraceBadEvent, WholeDocumentScanSkipsWithTheOffset) {
  for (const BadEvent& c : BadEvents()) {
    // Only events the scan itself skips ("bad ts" is the reader's reason).
    if (c.skip_reason == nullptr || std::string(c.skip_reason) == "bad ts") continue;
    const std::string doc = DocWith(c.text);
    simdjson::padded_string padded(doc);
    Counter sink;
    formats::trace::ScanReport report;
    ASSERT_TRUE(formats::trace::ScanChromeTrace(std::string_view(padded.data(), padded.size()),
                                                "doc", &sink, &report)
                    .ok());
    EXPECT_FALSE(report.damaged) << c.label << ": " << report.damage_reason;
    EXPECT_EQ(report.events, 61u) << c.label;
    ASSERT_EQ(sink.skipped.size(), 1u) << c.label;
    EXPECT_EQ(sink.skipped[0], c.skip_reason) << c.label;
    EXPECT_EQ(sink.offsets[0], doc.find(",\n" + c.text + ",\n") + 2) << c.label;
    EXPECT_EQ(sink.names.size(), 60u) << c.label;
    EXPECT_EQ(sink.names.back(), "after29") << c.label;
  }
}

TEST(HostileTraceBadEvent, TraceViewReaderSkipsAndReadsOn) {
  for (const BadEvent& c : BadEvents()) {
    std::string doc =
        "[\n" +
        std::string(R"({"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "Python"}})");
    for (int i = 0; i < 20; ++i) {
      doc += ",\n" + Kernel("op" + std::to_string(i), 100 + i);
    }
    doc += ",\n" + c.text;
    for (int i = 0; i < 20; ++i) {
      doc += ",\n" + Kernel("late" + std::to_string(i), 900 + i);
    }
    doc += "\n]";
    for (ScanOptions options : {ScanOptions{}, ScanOptions{100, 2}}) {
      model::RankProfile p;
      ASSERT_TRUE(formats::ParseTraceView(doc, "trace_view.json", &p, options).ok()) << c.label;
      ASSERT_EQ(p.ledgers.size(), 1u);
      const RowLedger& l = p.ledgers[0];
      EXPECT_EQ(l.rows_read(), 42) << c.label;
      EXPECT_EQ(l.rows_read(), l.rows_used() + l.rows_skipped()) << c.label;
      EXPECT_TRUE(p.warnings.empty()) << c.label;
      if (c.skip_reason != nullptr) {
        EXPECT_EQ(l.skipped_by_reason().count(c.skip_reason), 1u) << c.label;
        EXPECT_EQ(l.rows_used(), 41) << c.label;
      } else {
        EXPECT_EQ(l.rows_used(), 42) << c.label;
      }
    }
  }
}

}  // namespace
}  // namespace trainscope
