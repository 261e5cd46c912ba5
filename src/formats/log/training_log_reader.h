// Reads a training log (docs/health.md) into a model::TrainingLog: one
// record per training line of Megatron-LM / MindSpeed-LLM, TorchTitan,
// Hugging Face Trainer (dict or JSON lines) or generic key=value lines,
// whatever the mix; error lines (device out of memory, collective timeouts,
// segfaults) classified with the last step before them. Every line is
// counted in the ledger: used (a record or an error line) or skipped with a
// reason (core/row_issues.h).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/row_ledger.h"
#include "core/status.h"
#include "model/training_log.h"

namespace trainscope::formats {

struct ReadTrainingLog {
  model::TrainingLog log;
  RowLedger ledger;
  // Set when the gzip stream is damaged or cut off: the lines before the
  // damage were read, the message names the file and the inflated offset.
  std::string warning;
};

// A user's key names for the JSON-lines / dict / key=value forms
// (`--map loss=train/loss,step=global_step`, docs/health.md): field -> the
// log's key. A mapped field reads only its mapped key (the built-in names
// for it are passed over).
struct LogKeyMap {
  // Fields: step, loss, grad_norm, lr, step_time_ms, step_time_s,
  // tokens_per_s, tflops, mfu.
  std::vector<std::pair<std::string, std::string>> field_to_key;
  const std::string* KeyFor(std::string_view field) const;
};

// "field=key,field=key" inline, or the name of a file of "field=key" lines
// (# comments). Errors name the unknown field or the unreadable file.
Result<LogKeyMap> ParseLogKeyMap(std::string_view spec);

// How a log is read; what is read never depends on it.
struct LogReadOptions {
  // With threads >= 2, a big log's lines are parsed ahead on threads - 1
  // more threads (preparsed_lines.h).
  unsigned threads = 1;
  // Bytes of text from which they are: below, starting the threads costs
  // more than they save. Tests and the fuzzer set 0 to take that path on
  // small logs.
  int64_t parse_ahead_bytes = int64_t{4} << 20;
};

// |path|: a plain or gzip file (by its magic bytes). Errors: an unreadable
// file; a damaged gzip stream is a warning (see ReadTrainingLog::warning).
Result<ReadTrainingLog> ReadTrainingLogFile(const std::string& path, const LogKeyMap* map = nullptr,
                                            const LogReadOptions& options = {});
// The same over bytes (tests, fuzzing, benchmarks).
Result<ReadTrainingLog> ReadTrainingLogBytes(std::string_view bytes, bool gzip,
                                             const std::string& name,
                                             const LogKeyMap* map = nullptr,
                                             const LogReadOptions& options = {});

// Why |bytes| (a file's start) is no text log: a NUL byte in the first
// 64 KiB of a file that is not gzip (a binary file, an ELF, UTF-16); empty
// for text.
std::string NotTextReason(std::string_view bytes);

// One line's parse, exposed for tests. Returns kNone and fills |record| for a
// training line; kLogNotTrainingLine or kLogUnparsableNumber otherwise.
RowIssue ParseTrainingLine(std::string_view line, model::TrainingRecord* record,
                           model::LogFormat* format, const LogKeyMap* map = nullptr);
// "YYYY-MM-DD HH:MM:SS[.,fff]" (or a 'T') in the first 96 bytes: ns since the
// epoch, reading the printed time as UTC; false (|ns| left alone) when none.
bool ParseLineTimestamp(std::string_view line, int64_t* ns);
[[gnu::always_inline]] inline std::optional<int64_t> ParseLineTimestamp(std::string_view line) {
  int64_t ns = 0;
  if (!ParseLineTimestamp(line, &ns)) return std::nullopt;
  return ns;
}

}  // namespace trainscope::formats
