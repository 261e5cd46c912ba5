// Every field a training log's read fills, as text: two reads of one log
// compare record for record, field by field, with one EXPECT_EQ
// (tests/unit/preparsed_lines_test.cc, fuzz/log_fuzzer.cc).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>

#include "formats/log/training_log_reader.h"

namespace trainscope::testing {

// A member added to TrainingRecord, LogErrorLine or LogGap belongs here.
inline std::string EveryFieldOf(const formats::ReadTrainingLog& read) {
  std::string out = std::to_string(static_cast<int>(read.log.format)) + "|" + read.warning + "|" +
                    std::to_string(read.log.bytes) + "|" + read.log.not_text;
  const RowLedger& ledger = read.ledger;
  out += "|ledger " + std::to_string(ledger.rows_read()) + " " +
         std::to_string(ledger.rows_used()) + " " + std::to_string(ledger.rows_skipped());
  for (const auto& [reason, n] : ledger.skipped_by_reason())
    out += "|" + reason + std::to_string(n);
  for (const auto& [reason, n] : ledger.notes_by_reason()) out += "|" + reason + std::to_string(n);
  for (const RowIssueSample& s : ledger.samples()) {
    out += "|s" + std::to_string(s.line) + s.reason + s.detail;
  }
  auto bits = [](const model::MaybeDouble& v) {
    return v ? std::to_string(std::bit_cast<uint64_t>(*v)) : std::string("-");
  };
  auto maybe = [](const std::optional<int64_t>& v) {
    return v ? std::to_string(*v) : std::string("-");
  };
  for (const model::TrainingRecord& r : read.log.records) {
    out += "\n" + std::to_string(r.step) + " " + std::to_string(r.step_is_ordinal) + " " +
           std::to_string(r.engine) + " " + std::to_string(r.rank) + " " + bits(r.loss) + " " +
           bits(r.grad_norm) + " " + bits(r.step_time_ms) + " " + bits(r.tokens_per_s) + " " +
           bits(r.tflops) + " " + bits(r.mfu_pct) + " " + bits(r.learning_rate) + " " +
           maybe(r.skipped_iterations) + " " + maybe(r.nan_iterations) + " " + maybe(r.wall_ns) +
           " " + std::to_string(r.offset) + " " + std::to_string(r.line);
  }
  for (const model::LogErrorLine& e : read.log.errors) {
    out += "\ne" + std::to_string(static_cast<int>(e.kind)) + " " + std::to_string(e.line) + " " +
           std::to_string(e.offset) + " " + maybe(e.wall_ns) + " " + maybe(e.last_step) + e.text;
  }
  for (const int64_t n : read.log.error_counts) out += " " + std::to_string(n);
  for (const model::LogGap& g : read.log.largest_gaps) {
    out += "\ng" + std::to_string(g.gap_ns) + " " + std::to_string(g.line_before) + " " +
           std::to_string(g.line_after) + " " + maybe(g.last_step) + g.text_before;
  }
  for (const std::string& line : read.log.first_lines) out += "\nf" + line;
  return out;
}

}  // namespace trainscope::testing
