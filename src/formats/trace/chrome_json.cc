#include "formats/trace/chrome_json.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/mapped_file.h"
#include "core/parallel.h"
#include "formats/gzip_magic.h"
#include "formats/trace/chunked_scan.h"
#include "formats/trace/event_capture.h"
#include "formats/trace/event_wise_scan.h"
#include "formats/trace/gzip_feeder.h"
#include "formats/trace/json_layout.h"

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// The whole document stays parsed (and its unescaped strings in the
// parser's buffer) until the scan ends, so events are committed in batches.
constexpr size_t kWholeDocumentBatch = 16384;

error_code FastEvents(od::array& events, EventSink* sink, size_t* count) {
  RawEvent ev;
  std::unique_ptr<EventBatch> batch = sink->NewBatch();
  size_t pending = 0;
  for (auto element : events) {
    od::object obj;
    if (error_code e = element.get_object().get(obj)) return e;
    if (error_code e = CaptureEvent(obj, &ev)) return e;
    sink->Convert(ev, 0, batch.get());
    ++*count;
    if (++pending == kWholeDocumentBatch) {
      sink->Commit(batch.get());
      pending = 0;
    }
  }
  sink->Commit(batch.get());
  return simdjson::SUCCESS;
}

error_code FastPath(std::string_view padded, EventSink* sink, size_t* count) {
  od::parser& parser = ThreadParser();
  od::document doc;
  if (error_code e =
          parser.iterate(padded.data(), padded.size(), padded.size() + simdjson::SIMDJSON_PADDING)
              .get(doc)) {
    return e;
  }
  od::json_type type;
  if (error_code e = doc.type().get(type)) return e;
  if (type == od::json_type::array) {
    od::array events;
    if (error_code e = doc.get_array().get(events)) return e;
    if (error_code e = FastEvents(events, sink, count)) return e;
  } else if (type == od::json_type::object) {
    od::object top;
    if (error_code e = doc.get_object().get(top)) return e;
    for (auto field_result : top) {
      od::field field;
      if (error_code e = std::move(field_result).get(field)) return e;
      std::string_view key;
      if (error_code e = KeyOf(field, &key)) return e;
      od::value v = field.value();
      if (key == "traceEvents") {
        od::array events;
        if (error_code e = v.get_array().get(events)) return e;
        if (error_code e = FastEvents(events, sink, count)) return e;
        continue;
      }
      od::json_type vt;
      if (error_code e = v.type().get(vt)) return e;
      if (vt == od::json_type::object || vt == od::json_type::array) {
        sink->OnTopLevel(key, v);
      } else {
        std::string_view raw;
        raw = v.raw_json_token();
        sink->OnTopLevelScalar(key, raw);
      }
    }
  } else {
    return simdjson::TAPE_ERROR;
  }
  // "{...} garbage": the event-wise scan reports where the garbage starts.
  if (!AtDocumentEnd(doc)) return simdjson::TRAILING_CONTENT;
  return simdjson::SUCCESS;
}

// Documents up to this size try the one-pass whole-document parse first.
constexpr size_t kFastPathMaxBytes = size_t{64} << 20;
constexpr const char* kDamageHint =
    "the file is damaged (cut short, corrupt, or not a Chrome trace); re-export it, or check how "
    "it was copied";

// Scans running right now: LoadProfiles reads ranks in parallel, and each
// scan taking every core would oversubscribe the machine (and hold
// threads + 2 chunks per rank); concurrent scans share the cores instead.
std::atomic<unsigned> active_scans{0};

class ActiveScan {
 public:
  ActiveScan() { active_scans.fetch_add(1); }
  ~ActiveScan() { active_scans.fetch_sub(1); }
  ActiveScan(const ActiveScan&) = delete;
  ActiveScan& operator=(const ActiveScan&) = delete;
};

// A mapped file's chunks are read with pread into the workers' buffers
// rather than through the mapping: on this project's VMs the first touch of
// each mapped page cost more than parsing it (the x28 trace: 2.42-2.87 s ->
// 1.90-1.99 s at 2 threads, docs/benchmarks.md). Document offsets are file
// offsets.
void ReadChunksFrom(const MappedFile* file, TextFeeder* feeder) {
  if (file == nullptr) return;
  feeder->set_read_at([file](size_t offset, size_t length, char* out) {
    return file->ReadAt(offset, length, out);
  });
}

unsigned Threads(const ScanOptions& options) {
  if (options.threads) return options.threads;
  return std::max(1u, DefaultThreadCount() / std::max(1u, active_scans.load()));
}

// What a chunked scan counted, into the report (one place for every path:
// a count taken over on one path only was the 2026-12-03 fuzz finding).
void CountsInto(const ChunkScanResult& result, ScanReport* report) {
  report->events = result.events;
  report->unreadable_events = result.unreadable_events;
  report->chunks = std::max<size_t>(result.chunks, 1);
  report->chunks_read = result.chunks_read;
  report->plain_events = result.plain_events;
}

// The chunked scan of an uncompressed document; false (sink possibly fed)
// when it cannot prove the document intact.
// |file|: the mapped file |doc| is, whose chunks are then read with pread
// (MappedFile::ReadAt), or nullptr.
bool TryChunked(std::string_view doc, const MappedFile* file, bool release_pages,
                const ScanOptions& options, EventSink* sink, ScanReport* report) {
  ActiveScan active;
  EventsStart start;
  if (LocateEventsStart(doc, /*complete=*/true, &start) != LocateResult::kFound) return false;
  simdjson::padded_string meta;
  std::string_view body = doc.substr(start.begin);
  size_t close = FindEventsEnd(doc.substr(0, start.begin), body, &meta);
  if (close == std::string_view::npos) return false;
  if (ReadMetadata(meta, sink) != simdjson::SUCCESS) return false;
  TextFeeder feeder(body.substr(0, close), options.chunk_bytes, release_pages);
  feeder.set_base_offset(start.begin);
  feeder.set_max_event_bytes(options.max_event_bytes);
  ReadChunksFrom(file, &feeder);
  unsigned threads = Threads(options);
  // Under 16 chunks (64 MiB by default) worker start-up and the first-touch
  // faults of their buffers cost more than they save (216k-event trace:
  // 0.16-0.28 s and 34 MB with one thread, 0.27 s and 120 MB with two).
  if (options.threads == 0 && close / 16 < options.chunk_bytes) threads = 1;
  ChunkScanResult result = ScanChunks(&feeder, threads, sink, options.plain_event_reader);
  if (!result.ok) return false;
  CountsInto(result, report);
  return true;
}

// Whether the document stops inside its structure (a job killed while the
// profiler wrote it): the last non-space byte closes nothing.
bool LooksTruncated(std::string_view doc) {
  size_t end = doc.find_last_not_of(" \t\r\n");
  return end != std::string_view::npos && doc[end] != '}' && doc[end] != ']';
}

// A document cut short: the complete events go through the chunked scan,
// only the tail is read event by event up to the damage, so a truncated
// 1.4 GB trace costs about what an intact one does (it was 19 s and 2.8 GB
// through the whole-document path). False (sink possibly fed) when the
// document is not of that shape or the prefix does not parse.
bool TryTruncated(std::string_view doc, const MappedFile* file, const ScanOptions& options,
                  EventSink* sink, ScanReport* report) {
  if (!LooksTruncated(doc)) return false;
  ActiveScan active;
  EventsStart start;
  if (LocateEventsStart(doc, /*complete=*/true, &start) != LocateResult::kFound) return false;
  const std::string_view body = doc.substr(start.begin);
  size_t prefix_end = 0, tail_begin = 0;
  if (!LastEventBoundary(body, 0, &prefix_end, &tail_begin)) return false;
  // The keys before the array (deviceProperties, distributedInfo, ...), with
  // the array closed empty; the ones after it were never written.
  std::string head(doc.substr(0, start.begin));
  head += start.top_level_array ? "]" : "]}";
  simdjson::padded_string meta(head);
  if (ReadMetadata(meta, sink) != simdjson::SUCCESS) return false;
  TextFeeder feeder(body.substr(0, prefix_end), options.chunk_bytes, /*release_pages=*/true);
  feeder.set_base_offset(start.begin);
  feeder.set_max_event_bytes(options.max_event_bytes);
  ReadChunksFrom(file, &feeder);
  ChunkScanResult result = ScanChunks(&feeder, Threads(options), sink, options.plain_event_reader);
  if (!result.ok) return false;
  CountsInto(result, report);
  const simdjson::padded_string tail(body.substr(tail_begin));
  EventWiseScanner(std::string_view(tail.data(), tail.size()), sink, report,
                   start.begin + tail_begin, options.max_event_bytes)
      .RunEvents();
  report->slow_path = true;
  // The array closed after all: the damage is after it (trailing content,
  // cut metadata); the whole-document path reports that exactly.
  return report->damaged;
}

bool TryChunkedGzip(std::string_view gz, const ScanOptions& options, EventSink* sink,
                    ScanReport* report) {
  ActiveScan active;
  GzipFeeder feeder(gz, options.chunk_bytes, options.max_event_bytes);
  if (!feeder.Start()) return false;
  ChunkScanResult result = ScanChunks(&feeder, Threads(options), sink, options.plain_event_reader);
  if (!result.ok) return false;
  CountsInto(result, report);
  // The metadata after the array is only known at the end of the stream.
  if (!feeder.truncated()) return ReadMetadata(feeder.metadata(), sink) == simdjson::SUCCESS;
  // The text ended inside the event array (a truncated or corrupt gzip
  // stream, a cut document): as TryTruncated, the keys before the array with
  // the array closed empty, and the cut tail read event by event up to the
  // damage. Nothing of it was held whole.
  std::string head = feeder.prefix();
  head += feeder.start().top_level_array ? "]" : "]}";
  if (ReadMetadata(simdjson::padded_string(head), sink) != simdjson::SUCCESS) return false;
  report->slow_path = true;
  if (feeder.ended_in_long_event()) {
    report->damaged = true;
    report->damage_offset = feeder.long_event_offset();
    report->damage_reason = "truncated mid-event (in an event over the size limit)";
    return true;
  }
  const simdjson::padded_string& tail = feeder.tail();
  EventWiseScanner(std::string_view(tail.data(), tail.size()), sink, report, feeder.tail_offset(),
                   options.max_event_bytes)
      .RunEvents();
  // The array closed after all: the damage is after it (trailing data, cut
  // metadata); the whole-document path reports that exactly.
  return report->damaged;
}

}  // namespace

namespace {

// The events of a chunk with their offsets; views valid until Commit.
struct RawEventBatch : EventBatch {
  std::vector<std::pair<RawEvent, size_t>> events;
};

}  // namespace

std::unique_ptr<EventBatch> SerialEventSink::NewBatch() const {
  return std::make_unique<RawEventBatch>();
}

void SerialEventSink::Convert(const RawEvent& event, size_t offset, EventBatch* batch) const {
  static_cast<RawEventBatch*>(batch)->events.emplace_back(event, offset);
}

void SerialEventSink::Commit(EventBatch* batch) {
  auto* raw = static_cast<RawEventBatch*>(batch);
  for (const auto& [event, offset] : raw->events) OnEvent(event, offset);
  raw->events.clear();
}

std::string DescribeDamage(const std::string& label, const ScanReport& report) {
  return fmt::format(
      "{}: damaged trace at byte {} ({}); {} the {} events {} it", label, report.damage_offset,
      report.damage_reason, report.damage_read_on ? "read" : "kept",
      report.events - report.unreadable_events, report.damage_read_on ? "around" : "before");
}

namespace {

// A read that met damage and no event it could read found no trace, on
// every path alike: the whole-document scan said so, while a file read as
// a truncated trace (TryTruncated) or a gzip stream cut inside its event
// array returned the same report as a success (fuzz, 2026-12-03).
Status OutcomeOf(const std::string& label, const ScanReport& report) {
  if (report.events == report.unreadable_events && report.damaged) {
    return InvalidInput(fmt::format("{}: no valid trace event (damage at byte {}: {})\nhint: {}",
                                    label, report.damage_offset, report.damage_reason,
                                    kDamageHint));
  }
  // Otherwise every problem is in the report or the ledger: events that do
  // not parse are skipped and counted, damage says where the read stopped.
  return Status::Ok();
}

}  // namespace

Status ScanChromeTrace(std::string_view padded, const std::string& label, EventSink* sink,
                       ScanReport* report, size_t max_event_bytes) {
  *report = ScanReport{};
  // The one-pass parse indexes the whole document (simdjson allocates ~5
  // bytes per input byte): only small documents take it, larger ones go
  // straight to the event-wise scan, whose parses are one event each.
  if (padded.size() <= kFastPathMaxBytes && padded.size() <= max_event_bytes) {
    size_t count = 0;
    if (!FastPath(padded, sink, &count)) {
      report->events = count;
      return Status::Ok();
    }
    sink->Reset();
  }
  report->slow_path = true;
  EventWiseScanner(padded, sink, report, 0, max_event_bytes).Run();
  return OutcomeOf(label, *report);
}

Status ScanJsonText(std::string_view json, const std::string& label, EventSink* sink,
                    ScanReport* report, const ScanOptions& options) {
  *report = ScanReport{};
  if (TryChunked(json, nullptr, /*release_pages=*/false, options, sink, report))
    return OutcomeOf(label, *report);
  sink->Reset();
  simdjson::padded_string padded(json.data(), json.size());
  return ScanChromeTrace(std::string_view(padded.data(), padded.size()), label, sink, report,
                         options.max_event_bytes);
}

Status ScanJsonFile(const std::string& path, EventSink* sink, ScanReport* report,
                    const ScanOptions& options) {
  *report = ScanReport{};
  {
    TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
    bool ok = IsGzip(file.data()) ? TryChunkedGzip(file.data(), options, sink, report)
                                  : TryChunked(file.data(), &file,
                                               /*release_pages=*/true, options, sink, report);
    if (ok) return file.Intact(OutcomeOf(path, *report));
    if (!IsGzip(file.data())) {
      sink->Reset();
      *report = ScanReport{};
      if (TryTruncated(file.data(), &file, options, sink, report)) {
        return file.Intact(OutcomeOf(path, *report));
      }
    }
    TS_RETURN_IF_ERROR(file.CheckIntact());
  }
  // Damaged or unusual: the reference whole-document scan.
  sink->Reset();
  bool capped = false;
  TS_ASSIGN_OR_RETURN(simdjson::padded_string json,
                      LoadJsonFile(path, options.max_inflated_bytes, &capped));
  Status status = ScanChromeTrace(std::string_view(json.data(), json.size()), path, sink, report,
                                  options.max_event_bytes);
  if (!capped) return status;
  // Only the first max_inflated_bytes were read: say so where the read
  // stopped at that end (or found nothing before it).
  const std::string why = fmt::format(
      "the damaged gzip stream inflates to more than {} bytes, the most read whole "
      "(TRAINSCOPE_MAX_INFLATED_BYTES); the rest was not read",
      options.max_inflated_bytes);
  if (!status.ok()) {
    return InvalidInput(
        fmt::format("{}: no valid trace event in the first {} inflated bytes: {}\nhint: {}", path,
                    json.size(), why, kDamageHint));
  }
  if (!report->damaged || report->damage_offset >= json.size()) {
    report->damaged = true;
    report->damage_offset = json.size();
    report->damage_reason = why;
  }
  return Status::Ok();
}

namespace {

// Inflates every member of |gz| into |out| (nullptr: only counts, through a
// scratch buffer), at most |limit| bytes; returns the bytes produced. A
// truncated or corrupt stream yields what inflated before the damage.
size_t InflateInto(std::string_view gz, char* out, size_t limit) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return 0;
  std::vector<char> scratch(out == nullptr ? size_t{1} << 16 : 0);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = 0;
  size_t remaining_in = gz.size(), produced = 0;
  while (produced < limit) {
    if (zs.avail_in == 0 && remaining_in > 0) {
      uInt window = static_cast<uInt>(std::min<size_t>(remaining_in, 1u << 30));
      zs.avail_in = window;
      remaining_in -= window;
    }
    const size_t room =
        std::min<size_t>(limit - produced, out != nullptr ? size_t{1} << 30 : scratch.size());
    zs.next_out = reinterpret_cast<Bytef*>(out != nullptr ? out + produced : scratch.data());
    zs.avail_out = static_cast<uInt>(room);
    int rc = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // A concatenated stream: the next member continues the text.
      if ((zs.avail_in > 0 || remaining_in > 0) && inflateReset(&zs) == Z_OK) continue;
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && remaining_in == 0)
      break;                                     // truncated: keep what inflated
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;  // corrupt: keep the prefix
  }
  inflateEnd(&zs);
  return produced;
}

}  // namespace

Result<simdjson::padded_string> LoadJsonFile(const std::string& path, size_t max_inflated_bytes,
                                             bool* capped) {
  if (capped != nullptr) *capped = false;
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  std::string_view data = file.data();
  if (!IsGzip(data)) {
    simdjson::padded_string copy(data.data(), data.size());
    TS_RETURN_IF_ERROR(file.CheckIntact());
    return copy;
  }

  // Two passes, the first only counting: the text is then inflated once
  // into a buffer of its size (a growing buffer held up to twice of it).
  const size_t limit = std::max<size_t>(max_inflated_bytes, 1);
  const size_t total = InflateInto(data, nullptr, limit + 1);
  if (total == 0)
    return InvalidInput(
        fmt::format("{}: gzip stream inflates to nothing\nhint: {}", path, kDamageHint));
  const size_t size = std::min(total, limit);
  if (capped != nullptr) *capped = total > limit;
  simdjson::padded_string text(size);
  InflateInto(data, text.data(), size);
  TS_RETURN_IF_ERROR(file.CheckIntact());
  return text;
}

namespace {

// Calls |fn| with each user frame of |call_stack|, innermost first, until it
// returns false.
template <typename Fn>
void ForEachUserFrame(std::string_view call_stack, Fn&& fn) {
  size_t begin = 0;
  while (begin < call_stack.size()) {
    size_t end = call_stack.find(';', begin);
    if (end == std::string_view::npos) end = call_stack.size();
    std::string_view frame = call_stack.substr(begin, end - begin);
    while (!frame.empty() &&
           (frame.front() == ' ' || frame.front() == '\r' || frame.front() == '\n'))
      frame.remove_prefix(1);
    while (!frame.empty() && (frame.back() == ' ' || frame.back() == '\r' || frame.back() == '\n'))
      frame.remove_suffix(1);
    const bool framework = frame.find("site-packages") != std::string_view::npos ||
                           frame.find("/torch/") != std::string_view::npos ||
                           frame.find("/lib/python") != std::string_view::npos ||
                           frame.find(".py(") == std::string_view::npos;
    // A frame is one line: a line break inside one would split it in two.
    if (!frame.empty() && !framework && frame.find('\n') == std::string_view::npos && !fn(frame))
      return;
    begin = end + 1;
  }
}

}  // namespace

std::string_view UserFrameOf(std::string_view call_stack) {
  std::string_view first;
  ForEachUserFrame(call_stack, [&first](std::string_view frame) {
    first = frame;
    return false;
  });
  return first;
}

std::string UserFramesOf(std::string_view call_stack) {
  std::string frames;
  ForEachUserFrame(call_stack, [&frames](std::string_view frame) {
    if (!frames.empty()) frames += '\n';
    frames += frame;
    return true;
  });
  return frames;
}

}  // namespace trainscope::formats::trace
