// libFuzzer harness for the training-log reader (formats/log) and the
// health analysis on what it read. The first byte picks plain or gzip.
//
// Checks more than "does not crash": every line is accounted for (the
// ledger balances), every record's line number lies within the lines read,
// the log read with its lines parsed ahead on other threads (what a log
// over 4 MiB gets) is the log read line by line, field for field, and the
// analysis runs on whatever came out.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "analysis/common/findings_catalog.h"
#include "analysis/health/flight_recorder.h"
#include "analysis/health/training_health.h"
#include "formats/log/flight_recorder_reader.h"
#include "formats/log/training_log_reader.h"
#include "fuzz_flags.h"
#include "log_read_text.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The same bytes as a flight-recorder JSON dump (docs/health.md).
  if (auto dump = trainscope::formats::ParseFlightRecorderJson(
          std::string_view(reinterpret_cast<const char*>(data), size), "nccl_trace_rank_0.json");
      dump.ok()) {
    const auto fr = trainscope::analysis::AnalyzeFlightRecorder({*dump});
    if (fr.dumps != 1) std::abort();
  }
  const bool gzip = (data[0] & 1) != 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto read = trainscope::formats::ReadTrainingLogBytes(bytes, gzip, "fuzz.log");
  trainscope::formats::LogReadOptions ahead;
  ahead.threads = 2 + (data[0] >> 7);
  ahead.parse_ahead_bytes = 0;
  auto parsed_ahead =
      trainscope::formats::ReadTrainingLogBytes(bytes, gzip, "fuzz.log", nullptr, ahead);
  if (parsed_ahead.ok() != read.ok()) std::abort();
  if (!read.ok()) return 0;
  if (trainscope::testing::EveryFieldOf(*parsed_ahead) !=
      trainscope::testing::EveryFieldOf(*read)) {
    std::abort();
  }
  if (!read->ledger.Balanced()) std::abort();
  for (const auto& r : read->log.records) {
    if (r.line < 1 || r.line > read->ledger.rows_read()) std::abort();
  }
  // With a model (the MFU path) when the second bit of the first byte is set.
  trainscope::analysis::ModelSpec spec;
  spec.layers = 32;
  spec.hidden = 4096;
  spec.vocab = 32000;
  spec.seq = 4096;
  spec.batch = 256;
  spec.devices = 64;
  spec.device = "h100";
  const auto health = trainscope::analysis::AnalyzeTrainingLog(
      read->log, trainscope::analysis::FindingCatalog::Builtin().thresholds(),
      (data[0] & 2) != 0 ? &spec : nullptr);
  if (health.records != static_cast<int64_t>(read->log.records.size())) std::abort();
  for (const auto* curve : {&health.curves.loss, &health.curves.grad_norm, &health.curves.step_ms,
                            &health.curves.tokens_per_s, &health.curves.mfu_pct}) {
    if (curve->size() > trainscope::analysis::kCurveMaxPoints + 2) std::abort();
  }
  return 0;
}
