// Streaming scan of Chrome-trace JSON (Kineto traces, Ascend trace_view.json).
//
// Intact documents are read by the chunked scan (chunked_scan.h): the event
// array is cut between events and the pieces are parsed in parallel; the
// rest of the document is parsed separately as a small metadata document.
// Anything the chunked scan cannot prove intact goes to ScanChromeTrace:
// Fast path: one simdjson ondemand pass over the whole document. When the
// document is damaged (truncated, trailing comma, invalid UTF-8, unescaped
// quote) simdjson fails somewhere, possibly before the first event, so the
// sink is reset and the event-wise scan (event_wise_scan.h) re-reads the
// document event by event, stopping at the first damaged event: every event
// complete before the damage is kept and the damage offset is exact to the
// event (to the byte for invalid UTF-8 and truncation). A file that is merely
// truncated reads its complete events through the chunked scan and only its
// tail event by event.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/row_issues.h"
#include "core/status.h"
#include "formats/trace/scan_options.h"

namespace trainscope::formats::trace {

// The fields of one event, read in one pass. ts/dur/id/pid/tid and numeric
// args are raw JSON tokens (quotes kept for strings, never through double);
// the others are unescaped strings. Views are valid only during OnEvent.
struct RawEvent {
  std::string_view ph, cat, name, ts, dur, id, bp;
  std::string_view pid, tid;
  bool has_args = false;
  // args
  std::string_view external_id, correlation, stream, device;
  std::string_view coll_name, in_nelems, out_nelems, group_size, dtype, pg_name, pg_desc, pg_ranks;
  std::string_view bytes, total_allocated, total_reserved, device_id, device_type;
  std::string_view arg_name, labels, task_type;
  std::string_view call_stack;  // "Call stack" (torch_npu trace_view.json, older Kineto)
  // HCCL's op-level event args in trace_view.json: elements, their type and
  // (newer CANN) the group's size.
  std::string_view hccl_count, hccl_data_type, hccl_rank_size;
  // record_shapes: "Input Dims" and "Input type" as their raw JSON arrays
  // ("[[4096, 2048], [2048, 8192]]", "[\"c10::BFloat16\", ...]").
  std::string_view input_dims, input_types;
  // Set on an event that cannot be used (invalid JSON in it, not an object,
  // over the size limit): the ledger reason and a detail.
  // The scans hand such events to the sink like any other, in document
  // order, so that they are counted where they were; every other field is
  // empty.
  RowIssue skip = RowIssue::kNone;
  std::string_view skip_detail;
  // A problem that costs a field, not the event ("args" that is not an
  // object is read as absent): a ledger note.
  RowIssue note = RowIssue::kNone;
};

// |ev| made a fresh event in place, for a reader that fills one event after
// another. A fresh event is zero bytes (empty views, false) but for its two
// issues, so it is cleared with memset, which libc does in a few wide
// stores: `*ev = RawEvent{}` built a ~600-byte temporary and copied it, and
// constructing it in place cleared it with `rep stos` (together 5 % of a
// trace's read).
inline void ResetEvent(RawEvent* ev) {
  static_assert(std::is_trivially_copyable_v<RawEvent>);
  std::memset(static_cast<void*>(ev), 0, sizeof(RawEvent));
  ev->skip = RowIssue::kNone;
  ev->note = RowIssue::kNone;
}

// The innermost frame of user code in a "Call stack" argument ("file.py(N):
// function" frames, innermost first, separated by ';' and line breaks):
// the first frame that is not the framework's or the interpreter's own
// (torch/, site-packages, lib/pythonX.Y). Empty when there is none.
std::string_view UserFrameOf(std::string_view call_stack);
// Every user frame of |call_stack| (the rule above), innermost first, one
// per line: what model::HostOp::source keeps. "" when there is none.
std::string UserFramesOf(std::string_view call_stack);

// The stand-in for an event the scan could not read (see RawEvent::skip).
inline RawEvent SkippedEvent(RowIssue reason, std::string_view detail = {}) {
  RawEvent ev;
  ev.skip = reason;
  ev.skip_detail = detail;
  return ev;
}

// What a sink makes of the events of one chunk: filled on a worker thread by
// EventSink::Convert, taken in by EventSink::Commit on the calling thread.
class EventBatch {
 public:
  virtual ~EventBatch() = default;
};

// Receives the events of a scan in two parts, so that the per-event work
// (number parsing, classification, string interning) runs on the parser
// threads and only the hand-over is serial:
//   Convert (any worker thread, one batch per thread at a time) turns events
//   into the sink's own records in a batch;
//   Commit (the calling thread, batches in document order) takes a batch in.
// The RawEvent views passed to Convert stay valid until that batch's Commit
// returns, so a batch may keep views instead of copies.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual std::unique_ptr<EventBatch> NewBatch() const = 0;
  // |offset| is the byte offset of the event's '{' (0 where the scan does
  // not track it). Must touch nothing but |batch| (runs concurrently).
  virtual void Convert(const RawEvent& event, size_t offset, EventBatch* batch) const = 0;
  // Takes the batch's records in and leaves |batch| empty for reuse.
  virtual void Commit(EventBatch* batch) = 0;
  // After a Commit: the share of the input read so far (0 < share <= 1),
  // where the scan can tell (the chunked scans), so that a sink can size its
  // lists for the whole input instead of regrowing them.
  virtual void OnShareRead(double /*share*/) {}
  // Top-level keys other than traceEvents (object documents only).
  virtual void OnTopLevel(std::string_view /*key*/, simdjson::ondemand::value& /*value*/) {}
  virtual void OnTopLevelScalar(std::string_view /*key*/, std::string_view /*raw*/) {}
  // Forget everything seen so far (the fast path failed; the slow path restarts).
  virtual void Reset() = 0;
};

// A sink that takes the events one at a time on the calling thread (tests,
// tools): its batches only carry the events to OnEvent.
class SerialEventSink : public EventSink {
 public:
  virtual void OnEvent(const RawEvent& event, size_t offset) = 0;

  std::unique_ptr<EventBatch> NewBatch() const final;
  void Convert(const RawEvent& event, size_t offset, EventBatch* batch) const final;
  void Commit(EventBatch* batch) final;
};

struct ScanReport {
  size_t events = 0;
  // Of |events|, those the scan itself could not read (not an object, over
  // the size limit, unparsable) and handed on only to be counted as skipped.
  size_t unreadable_events = 0;
  bool damaged = false;
  size_t damage_offset = 0;
  std::string damage_reason;
  // The damage did not stop the read (a bad metadata value): the events
  // after it were read too.
  bool damage_read_on = false;
  bool slow_path = false;
  size_t chunks = 0;       // > 0: read by the chunked scan (no whole-document pass)
  size_t chunks_read = 0;  // of which read from the file with pread (not through its mapping)
  size_t plain_events =
      0;  // of |events|, read by PlainEventReader (ScanOptions::plain_event_reader)
};

// The warning for a damaged scan: where the damage is and which events were
// read (events the scan could not read at all are not counted as read).
std::string DescribeDamage(const std::string& label, const ScanReport& report);

// |padded| must have simdjson::SIMDJSON_PADDING readable bytes after size().
// Returns InvalidInput (naming |label| and the offset) when not one event
// could be read; damage after at least one good event is reported in
// |report| only.
Status ScanChromeTrace(std::string_view padded, const std::string& label, EventSink* sink,
                       ScanReport* report, size_t max_event_bytes = DefaultMaxEventBytes());

// Scans a document held in memory (not necessarily padded): the chunked
// scan when the document is intact, else the whole-document scan above (same
// events, same damage report).
Status ScanJsonText(std::string_view json, const std::string& label, EventSink* sink,
                    ScanReport* report, const ScanOptions& options = {});

// Scans a .json (memory-mapped, pages released as chunks are parsed) or a
// .json.gz (inflated chunk by chunk). Damaged files fall back to reading the
// whole document into memory and the whole-document scan.
Status ScanJsonFile(const std::string& path, EventSink* sink, ScanReport* report,
                    const ScanOptions& options = {});

// Reads a whole .json or .json.gz file into a padded buffer (gzip is detected
// by its magic bytes and stream-inflated, every member of a concatenated
// stream). Inflation stops at |max_inflated_bytes| (then *capped is set, when
// given): the text is held whole, so a gzip bomb must not get further.
Result<simdjson::padded_string> LoadJsonFile(const std::string& path,
                                             size_t max_inflated_bytes = DefaultMaxInflatedBytes(),
                                             bool* capped = nullptr);

}  // namespace trainscope::formats::trace
