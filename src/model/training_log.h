// TrainingLog: what a training log says about a run, one record per printed
// step (docs/health.md). Every metric is optional: a log prints what its
// framework prints, and a number it does not print is unknown, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/training_record.h"
#include "model/training_records.h"

namespace trainscope::model {

enum class LogFormat : uint8_t {
  kUnknown,
  kMegatron,
  kTorchTitan,
  kHfTrainer,
  kKeyValue,
  kXTuner,
  kHfTrainerState,  // trainer_state.json's log_history (pretty-printed JSON)
  kDeepSpeedChat,   // `epoch: 0|step: 3|ppo_ep: 1|act_loss: ...`
  kLlamaFactory,    // trainer_log.jsonl (`current_steps`)
  kMetricsJson,     // CI baselines: {"lm loss": [...]} or {"lm loss": {"values": ...}}
  kDeepSpeed,       // DeepSpeed's engine: `[Rank 0] step=10, skipped=4, lr=[...], mom=[...]`
};

std::string_view LogFormatName(LogFormat format);

// What a classified line says went wrong, or how the run ended.
enum class LogErrorKind : uint8_t {
  kDeviceOom,
  kCollectiveTimeout,
  kSegfault,
  kTimeLimit,    // the scheduler ended the job at its time limit (Slurm)
  kSignal,       // SIGTERM / SIGKILL, a cancelled job
  kTraceback,    // a Python exception's traceback
  kChildFailed,  // torchrun / torch.distributed.elastic: a worker failed
};
inline constexpr int kLogErrorKinds = 7;

std::string_view LogErrorKindName(LogErrorKind kind);

struct LogErrorLine {
  LogErrorKind kind = LogErrorKind::kDeviceOom;
  int64_t line = 0;
  int64_t offset = 0;
  std::optional<int64_t> wall_ns;
  std::optional<int64_t> last_step;  // the last record before the line
  std::string text;                  // the line, cut to kMaxErrorText bytes
};

// A silence between two consecutive timestamped lines (after the first
// record: start-up is not a hang).
struct LogGap {
  int64_t gap_ns = 0;
  int64_t line_before = 0;  // the last line before the silence
  int64_t line_after = 0;
  std::optional<int64_t> last_step;
  std::string text_before;  // that line, cut to kMaxErrorText bytes
};

struct TrainingLog {
  static constexpr size_t kMaxErrorText = 240;
  static constexpr size_t kMaxErrorsKept = 64;  // per kind; the rest are counted
  static constexpr size_t kGapsKept = 8;        // the largest gaps, largest first

  std::string path;
  LogFormat format = LogFormat::kUnknown;  // the format of the first record
  TrainingRecords records;
  std::vector<LogErrorLine> errors;
  int64_t error_counts[kLogErrorKinds] = {};  // per LogErrorKind, all of them
  std::vector<LogGap> largest_gaps;
  int64_t bytes = 0;  // bytes read (decompressed)
  // The first non-blank lines, cut to kMaxErrorText bytes: shown when no
  // training line was recognised (the log was not read).
  static constexpr size_t kFirstLinesKept = 3;
  std::vector<std::string> first_lines;
  // Why the file was not read as text (a NUL byte: a binary file, an ELF,
  // UTF-16), empty when it was.
  std::string not_text;
};

}  // namespace trainscope::model
