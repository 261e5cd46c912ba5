// Class 4: a ts or dur outside [0, 2^62) ns is skipped with a reason, so no
// end = ts + dur overflows downstream (this test runs under UBSan in the
// debug build).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/numbers.h"
#include "formats/trace/kineto_reader.h"
#include "formats/trace/trace_view_reader.h"
#include "hostile/hostile_util.h"
#include "hostile/trace_fixture_util.h"
#include "model/rank_profile.h"

namespace trainscope {
namespace {

using testing::Kernel;

std::string Event(const std::string& ts, const std::string& dur, const char* ph = "X",
                  const char* cat = "kernel") {
  return fmt::format(
      R"({{"ph": "{}", "cat": "{}", "name": "n", "pid": 0, "tid": 7, "ts": {}, "dur": {}, "id": 1}})",
      ph, cat, ts, dur);
}

struct Case {
  std::string event;
  const char* reason;
};

std::vector<Case> Cases() {
  return {
      {Event("9.2e18", "1"), "timestamp out of range"},            // overflows int64 ns
      {Event("9223372036854775", "1"), "timestamp out of range"},  // fits int64 ns, past 2^62
      {Event("-5", "1"), "timestamp out of range"},
      {Event("\"-1.5\"", "1"), "timestamp out of range"},
      {Event("100", "-5"), "duration out of range"},
      {Event("100", "9.2e18"), "duration out of range"},
      {Event("100", "4611686018427388"), "duration out of range"},  // 2^62 ns and a bit
      {Event("-7", "1", "s", "ac2g"), "timestamp out of range"},    // a flow point
      {R"({"ph": "i", "name": "[memory]", "pid": 0, "tid": 7, "ts": -3, "args": {"Bytes": 5}})",
       "timestamp out of range"},
  };
}

TEST(HostileTraceTimeRange, OutOfRangeEventsAreSkippedWithTheReason) {
  for (const Case& c : Cases()) {
    const std::string doc = testing::TraceOf({Kernel("k1", 10), c.event, Kernel("k2", 20)});
    for (formats::trace::ScanOptions options :
         {formats::trace::ScanOptions{}, formats::trace::ScanOptions{16, 2}}) {
      model::RankProfile p;
      ASSERT_TRUE(formats::ParseKinetoTrace(doc, "range.json", &p, options).ok()) << c.event;
      const RowLedger& l = p.ledgers.at(0);
      EXPECT_EQ(l.rows_read(), 3) << c.event;
      EXPECT_EQ(l.rows_used(), 2) << c.event;
      ASSERT_EQ(l.skipped_by_reason().count(c.reason), 1u)
          << c.event << " -> " << l.skipped_by_reason().begin()->first;
      EXPECT_EQ(p.device_events.size(), 2u) << c.event;
      for (size_t i = 0; i < p.device_events.size(); ++i) {
        EXPECT_TRUE(ValidSpanNs(p.device_events.start_ns[i], p.device_events.duration_ns[i]));
      }
    }
  }
}

TEST(HostileTraceTimeRange, TraceViewSkipsTheSame) {
  for (const Case& c : Cases()) {
    const std::string doc =
        "[" + Kernel("k1", 10) + ",\n" + c.event + ",\n" + Kernel("k2", 20) + "]";
    model::RankProfile p;
    ASSERT_TRUE(formats::ParseTraceView(doc, "trace_view.json", &p).ok()) << c.event;
    const RowLedger& l = p.ledgers.at(0);
    EXPECT_EQ(l.rows_read(), 3) << c.event;
    if (std::string(c.event).find("[memory]") != std::string::npos)
      continue;  // instant: not read by trace_view
    EXPECT_EQ(l.rows_used(), 2) << c.event;
    EXPECT_EQ(l.skipped_by_reason().count(c.reason), 1u) << c.event;
  }
}

}  // namespace
}  // namespace trainscope
