// Every member of a scanned trace event as one line of text, and a sink that
// records them: two scans compare event by event, field by field, with one
// EXPECT_EQ (tests/unit/plain_event_reader_test.cc, the trace corpus test).
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "formats/trace/chrome_json.h"

namespace trainscope::testing {

// A member added to RawEvent belongs here.
inline std::string EveryFieldOf(const formats::trace::RawEvent& e, size_t offset) {
  return fmt::format(
      "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|"
      "{}|{}|{}|{}|{}|{}|@{}",
      e.ph, e.cat, e.name, e.ts, e.dur, e.id, e.bp, e.pid, e.tid, e.has_args, e.external_id,
      e.correlation, e.stream, e.device, e.coll_name, e.in_nelems, e.out_nelems, e.group_size,
      e.dtype, e.pg_name, e.pg_desc, e.pg_ranks, e.bytes, e.total_allocated, e.total_reserved,
      e.device_id, e.device_type, e.arg_name, e.labels, e.task_type, e.call_stack, e.input_dims,
      e.input_types, static_cast<int>(e.skip), e.skip_detail, static_cast<int>(e.note), offset);
}

class EveryFieldSink : public formats::trace::SerialEventSink {
 public:
  void OnEvent(const formats::trace::RawEvent& e, size_t offset) override {
    events.push_back(EveryFieldOf(e, offset));
  }
  void Reset() override { events.clear(); }
  std::vector<std::string> events;
};

}  // namespace trainscope::testing
