#include "formats/trace/chrome_json.h"

#include <zlib.h>

#include <cstdio>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/mapped_file.h"
#include "core/parallel.h"
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
    if (error_code e = std::move(element).get_object().get(obj)) return e;
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
  if (error_code e = parser.iterate(padded.data(), padded.size(),
                                    padded.size() + simdjson::SIMDJSON_PADDING)
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
  return simdjson::SUCCESS;
}

constexpr size_t kNpos = std::string_view::npos;

bool IsGzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

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

unsigned Threads(const ScanOptions& options) {
  if (options.threads) return options.threads;
  return std::max(1u, DefaultThreadCount() / std::max(1u, active_scans.load()));
}

// The chunked scan of an uncompressed document; false (sink possibly fed)
// when it cannot prove the document intact.
// |writable_doc|: the same bytes in a copy-on-write mapping (chunks are then
// bracketed in place), or nullptr.
bool TryChunked(std::string_view doc, char* writable_doc, bool release_pages, const ScanOptions& options,
                EventSink* sink, ScanReport* report) {
  ActiveScan active;
  EventsStart start;
  if (LocateEventsStart(doc, /*complete=*/true, &start) != LocateResult::kFound) return false;
  simdjson::padded_string meta;
  std::string_view body = doc.substr(start.begin);
  size_t close = FindEventsEnd(doc.substr(0, start.begin), body, &meta);
  if (close == kNpos) return false;
  if (ReadMetadata(meta, sink) != simdjson::SUCCESS) return false;
  // Bytes after the array body: its ']' and the rest of the document.
  const size_t readable_after = body.size() - close;
  TextFeeder feeder(body.substr(0, close), options.chunk_bytes, release_pages,
                    writable_doc ? writable_doc + start.begin : nullptr, readable_after);
  unsigned threads = Threads(options);
  // Under 16 chunks (64 MiB by default) worker start-up and the first-touch
  // faults of their buffers cost more than they save (216k-event trace:
  // 0.16-0.28 s and 34 MB with one thread, 0.27 s and 120 MB with two).
  if (options.threads == 0 && close / 16 < options.chunk_bytes) threads = 1;
  ChunkScanResult result = ScanChunks(&feeder, threads, sink);
  if (!result.ok) return false;
  report->events = result.events;
  report->chunks = std::max<size_t>(result.chunks, 1);
  report->chunks_in_place = result.chunks_in_place;
  return true;
}

// Whether the document stops inside its structure (a job killed while the
// profiler wrote it): the last non-space byte closes nothing.
bool LooksTruncated(std::string_view doc) {
  size_t end = doc.find_last_not_of(" \t\r\n");
  return end != kNpos && doc[end] != '}' && doc[end] != ']';
}

// A document cut short: the complete events go through the chunked scan,
// only the tail is read event by event up to the damage, so a truncated
// 1.4 GB trace costs about what an intact one does (it was 19 s and 2.8 GB
// through the whole-document path). False (sink possibly fed) when the
// document is not of that shape or the prefix does not parse.
bool TryTruncated(std::string_view doc, char* writable_doc, const ScanOptions& options, EventSink* sink,
                  ScanReport* report) {
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
  TextFeeder feeder(body.substr(0, prefix_end), options.chunk_bytes, /*release_pages=*/true,
                    writable_doc ? writable_doc + start.begin : nullptr, body.size() - prefix_end);
  ChunkScanResult result = ScanChunks(&feeder, Threads(options), sink);
  if (!result.ok) return false;
  report->events = result.events;
  report->chunks = std::max<size_t>(result.chunks, 1);
  report->chunks_in_place = result.chunks_in_place;
  const simdjson::padded_string tail(body.substr(tail_begin));
  EventWiseScanner(std::string_view(tail.data(), tail.size()), sink, report, start.begin + tail_begin).RunEvents();
  report->slow_path = true;
  // The array closed after all: the damage is after it (trailing content,
  // cut metadata); the whole-document path reports that exactly.
  return report->damaged;
}

bool TryChunkedGzip(std::string_view gz, const ScanOptions& options, EventSink* sink,
                    ScanReport* report) {
  ActiveScan active;
  GzipFeeder feeder(gz, options.chunk_bytes);
  if (!feeder.Start()) return false;
  ChunkScanResult result = ScanChunks(&feeder, Threads(options), sink);
  if (!result.ok) return false;
  // The metadata after the array is only known at the end of the stream.
  if (ReadMetadata(feeder.metadata(), sink) != simdjson::SUCCESS) return false;
  report->events = result.events;
  report->chunks = std::max<size_t>(result.chunks, 1);
  return true;
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

Status ScanChromeTrace(std::string_view padded, const std::string& label, EventSink* sink,
                       ScanReport* report) {
  *report = ScanReport{};
  size_t count = 0;
  error_code e = FastPath(padded, sink, &count);
  if (!e) {
    report->events = count;
    return Status::Ok();
  }
  sink->Reset();
  report->slow_path = true;
  EventWiseScanner(padded, sink, report).Run();
  if (report->events == 0 && report->damaged) {
    return InvalidInput(fmt::format("{}: no valid trace event (damage at byte {}: {})", label,
                                    report->damage_offset, report->damage_reason));
  }
  if (!report->damaged) {
    // simdjson refused the document but the event-wise reader found nothing
    // wrong in the events (e.g. damage in ignored metadata): say so anyway.
    report->damaged = true;
    report->damage_offset = 0;
    report->damage_reason = simdjson::error_message(e);
  }
  return Status::Ok();
}

Status ScanJsonText(std::string_view json, const std::string& label, EventSink* sink,
                    ScanReport* report, const ScanOptions& options) {
  *report = ScanReport{};
  if (TryChunked(json, nullptr, /*release_pages=*/false, options, sink, report)) return Status::Ok();
  sink->Reset();
  simdjson::padded_string padded(json.data(), json.size());
  return ScanChromeTrace(std::string_view(padded.data(), padded.size()), label, sink, report);
}

Status ScanJsonFile(const std::string& path, EventSink* sink, ScanReport* report,
                    const ScanOptions& options) {
  *report = ScanReport{};
  {
    // Copy-on-write: chunks are bracketed in place (the file is never written).
    TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::OpenCopyOnWrite(path));
    bool ok = IsGzip(file.data())
                  ? TryChunkedGzip(file.data(), options, sink, report)
                  : TryChunked(file.data(), file.copy_on_write_data(), /*release_pages=*/true, options, sink,
                               report);
    if (ok) return Status::Ok();
    if (!IsGzip(file.data())) {
      sink->Reset();
      *report = ScanReport{};
      if (TryTruncated(file.data(), file.copy_on_write_data(), options, sink, report)) return Status::Ok();
    }
  }
  // Damaged or unusual: the reference whole-document scan.
  sink->Reset();
  TS_ASSIGN_OR_RETURN(simdjson::padded_string json, LoadJsonFile(path));
  return ScanChromeTrace(std::string_view(json.data(), json.size()), path, sink, report);
}

Result<simdjson::padded_string> LoadJsonFile(const std::string& path) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  std::string_view data = file.data();
  if (!IsGzip(data)) return simdjson::padded_string(data.data(), data.size());

  // Inflate into a growing buffer, then one copy into the padded string.
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return InternalError("zlib inflateInit2 failed");
  std::vector<char> out(data.size() * 8 + 4096);
  size_t used = 0;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (used == out.size()) out.resize(out.size() * 2);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    zs.avail_out = static_cast<uInt>(out.size() - used);
    rc = inflate(&zs, Z_NO_FLUSH);
    used = out.size() - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // truncated gzip: keep what inflated
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;        // corrupt gzip: keep the prefix
  }
  inflateEnd(&zs);
  if (used == 0) return InvalidInput(fmt::format("{}: gzip stream inflates to nothing", path));
  return simdjson::padded_string(out.data(), used);
}

}  // namespace trainscope::formats::trace
