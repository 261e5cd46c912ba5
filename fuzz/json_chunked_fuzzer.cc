// libFuzzer harness for the chunk cutter of the Chrome-trace scan: the input
// is scanned in tiny chunks (the first byte picks 1..64 bytes and one or two
// threads) so that every cut, every refused chunk and its event-by-event
// recovery is exercised, and compared with the whole-document scan: both
// must hand over the same number of events and agree on damage. The chunked
// scan also runs without its plain-event reader (simdjson alone): the two
// must give the same events, field by field. Every other
// input is also written to a file and scanned from it (chunks read with
// pread, the truncated-file path), with the same checks.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "formats/trace/chrome_json.h"
#include "formats/trace/kineto_reader.h"
#include "fuzz_flags.h"
#include "model/rank_profile.h"
#include "raw_event_text.h"

namespace {

namespace trace = trainscope::formats::trace;

void Check(bool condition) {
  if (!condition) std::abort();
}

class CountingSink : public trace::SerialEventSink {
 public:
  void OnEvent(const trace::RawEvent& e, size_t /*offset*/) override {
    ++events;
    if (e.skip != trainscope::RowIssue::kNone) ++skipped;
  }
  void Reset() override { events = skipped = 0; }
  size_t events = 0, skipped = 0;
};

// One scan's outcome: its status, what its sink got and its report.
struct Outcome {
  CountingSink sink;
  trace::ScanReport report;
  trainscope::Status status = trainscope::Status::Ok();
};

// Two scans of the same text agree on status, events, skipped events,
// damage and where the damage is.
void CheckSameOutcome(const Outcome& a, const Outcome& b) {
  Check(a.status.ok() == b.status.ok());
  Check(a.sink.events == b.sink.events);
  Check(a.sink.skipped == b.sink.skipped);
  Check(a.report.damaged == b.report.damaged);
  Check(a.report.damage_offset == b.report.damage_offset);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  trace::ScanOptions options;
  options.chunk_bytes = 1 + data[0] % 64;
  options.threads = 1 + (data[0] >> 7);
  options.max_event_bytes = 512;  // small enough that long events are met
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);

  Outcome chunked;
  chunked.status = trace::ScanJsonText(input, "fuzz.json", &chunked.sink, &chunked.report, options);
  Check(chunked.status.ok() || !chunked.status.message().empty());
  Check(chunked.sink.events == chunked.report.events);
  {
    // The plain-event reader leaves to simdjson all it does not read the
    // same way: every event alike with and without it.
    trainscope::testing::EveryFieldSink with, without;
    trace::ScanReport with_report, without_report;
    const trainscope::Status with_status =
        trace::ScanJsonText(input, "fuzz.json", &with, &with_report, options);
    trace::ScanOptions simdjson_only = options;
    simdjson_only.plain_event_reader = false;
    const trainscope::Status without_status =
        trace::ScanJsonText(input, "fuzz.json", &without, &without_report, simdjson_only);
    Check(with_status.ok() == without_status.ok());
    Check(with.events == without.events);
    Check(with_report.damaged == without_report.damaged);
    Check(with_report.damage_offset == without_report.damage_offset);
    Check(with_report.plain_events <= with_report.events);
  }

  {
    // The reference: the whole-document scan of the same text.
    Outcome whole;
    simdjson::padded_string padded(input);
    whole.status =
        trace::ScanChromeTrace(std::string_view(padded.data(), padded.size()), "fuzz.json",
                               &whole.sink, &whole.report, options.max_event_bytes);
    Check(whole.sink.events == whole.report.events);
    CheckSameOutcome(whole, chunked);
  }
  if ((data[0] & 0x40) != 0) {
    // The same text as a file: chunks copied with pread by the workers.
    static const std::string path =
        std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/ts_json_fuzz_" +
        std::to_string(::getpid()) + ".json";
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(input.data(), static_cast<std::streamsize>(input.size()));
    Outcome from_file;
    from_file.status = trace::ScanJsonFile(path, &from_file.sink, &from_file.report, options);
    std::remove(path.c_str());
    CheckSameOutcome(from_file, chunked);
  }
  {
    trainscope::model::RankProfile profile;
    trainscope::Status status =
        trainscope::formats::ParseKinetoTrace(input, "fuzz.json", &profile, options);
    Check(status.ok() == chunked.status.ok());
    for (const auto& ledger : profile.ledgers) {
      Check(ledger.rows_read() == ledger.rows_used() + ledger.rows_skipped());
      Check(ledger.rows_read() == static_cast<int64_t>(chunked.report.events));
    }
  }
  return 0;
}
