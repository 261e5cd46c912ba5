// libFuzzer harness for the chunk cutter of the Chrome-trace scan: the input
// is scanned in tiny chunks (the first byte picks 1..64 bytes and one or two
// threads) so that every cut, every refused chunk and its event-by-event
// recovery is exercised, and compared with the whole-document scan: both
// must hand over the same number of events and agree on damage. Every other
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

  CountingSink chunked;
  trace::ScanReport chunked_report;
  trainscope::Status chunked_status =
      trace::ScanJsonText(input, "fuzz.json", &chunked, &chunked_report, options);
  Check(chunked_status.ok() || !chunked_status.message().empty());
  Check(chunked.events == chunked_report.events);

  {
    // The reference: the whole-document scan of the same text.
    CountingSink whole;
    trace::ScanReport whole_report;
    simdjson::padded_string padded(input);
    trainscope::Status whole_status =
        trace::ScanChromeTrace(std::string_view(padded.data(), padded.size()), "fuzz.json", &whole,
                               &whole_report, options.max_event_bytes);
    Check(whole.events == whole_report.events);
    Check(whole_status.ok() == chunked_status.ok());
    Check(whole.events == chunked.events);
    Check(whole.skipped == chunked.skipped);
    Check(whole_report.damaged == chunked_report.damaged);
    Check(whole_report.damage_offset == chunked_report.damage_offset);
  }
  if ((data[0] & 0x40) != 0) {
    // The same text as a file: chunks copied with pread by the workers.
    static const std::string path =
        std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/ts_json_fuzz_" +
        std::to_string(::getpid()) + ".json";
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(input.data(), static_cast<std::streamsize>(input.size()));
    CountingSink from_file;
    trace::ScanReport file_report;
    trainscope::Status file_status = trace::ScanJsonFile(path, &from_file, &file_report, options);
    std::remove(path.c_str());
    Check(file_status.ok() == chunked_status.ok());
    Check(from_file.events == chunked.events);
    Check(from_file.skipped == chunked.skipped);
    Check(file_report.damaged == chunked_report.damaged);
    Check(file_report.damage_offset == chunked_report.damage_offset);
  }
  {
    trainscope::model::RankProfile profile;
    trainscope::Status status =
        trainscope::formats::ParseKinetoTrace(input, "fuzz.json", &profile, options);
    Check(status.ok() == chunked_status.ok());
    for (const auto& ledger : profile.ledgers) {
      Check(ledger.rows_read() == ledger.rows_used() + ledger.rows_skipped());
      Check(ledger.rows_read() == static_cast<int64_t>(chunked_report.events));
    }
  }
  return 0;
}
