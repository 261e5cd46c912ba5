// TrainingLog: what a training log says about a run, one record per printed
// step (docs/health.md). Every metric is optional: a log prints what its
// framework prints, and a number it does not print is unknown, never 0.
#pragma once

#include <bit>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::model {

// An optional number in 8 bytes instead of std::optional's 16: a log of
// millions of lines keeps a record per training line, so the record's size
// is the reader's memory. "Absent" is one quiet-NaN bit pattern no parser
// produces (a NaN read from the log is the standard quiet NaN and stays a
// value: it is the nan-inf finding). The subset of std::optional's interface
// the readers and analyses use.
class MaybeDouble {
 public:
  MaybeDouble() = default;
  MaybeDouble(std::nullopt_t) {}  // NOLINT(google-explicit-constructor)
  MaybeDouble(double v)
      : bits_(std::bit_cast<uint64_t>(v)) {}   // NOLINT(google-explicit-constructor)
  MaybeDouble(const std::optional<double>& v)  // NOLINT(google-explicit-constructor)
      : bits_(v ? std::bit_cast<uint64_t>(*v) : kAbsent) {}
  bool has_value() const { return bits_ != kAbsent; }
  explicit operator bool() const { return has_value(); }
  double operator*() const { return std::bit_cast<double>(bits_); }
  double value_or(double fallback) const { return has_value() ? **this : fallback; }

 private:
  static constexpr uint64_t kAbsent = 0x7ff8'0000'dead'beefULL;
  uint64_t bits_ = kAbsent;
};

// The same for counts and times: INT64_MIN is never a count or a time here.
class MaybeInt {
 public:
  MaybeInt() = default;
  MaybeInt(std::nullopt_t) {}                // NOLINT(google-explicit-constructor)
  MaybeInt(int64_t v) : value_(v) {}         // NOLINT(google-explicit-constructor)
  MaybeInt(const std::optional<int64_t>& v)  // NOLINT(google-explicit-constructor)
      : value_(v ? *v : kAbsent) {}
  bool has_value() const { return value_ != kAbsent; }
  explicit operator bool() const { return has_value(); }
  int64_t operator*() const { return value_; }
  int64_t value_or(int64_t fallback) const { return has_value() ? value_ : fallback; }
  operator std::optional<int64_t>() const {  // NOLINT(google-explicit-constructor)
    return has_value() ? std::optional<int64_t>(value_) : std::nullopt;
  }

 private:
  static constexpr int64_t kAbsent = INT64_MIN;
  int64_t value_ = kAbsent;
};

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

// One training line. NaN and Inf are kept as such: they are the finding.
struct TrainingRecord {
  int64_t step = 0;              // the iteration the line reports
  bool step_is_ordinal = false;  // the log prints no step: 1-based record number
  // The DeepSpeed engine the line is from (1-based: the k-th `step=N` line
  // of a step is engine k; DeepSpeed-Chat steps its actor, then its critic),
  // 0 for a line of no engine. In the padding: the size does not grow.
  uint8_t engine = 0;
  // The rank the line names (`[RANK 3]`, `[rank3]:`), -1 when it names none.
  // In the padding after the flag: the record's size is the reader's memory.
  int32_t rank = -1;
  MaybeDouble loss;
  MaybeDouble grad_norm;
  MaybeDouble step_time_ms;  // per iteration, as printed
  MaybeDouble tokens_per_s;  // TorchTitan tps is per device
  MaybeDouble tflops;        // per device
  MaybeDouble mfu_pct;
  MaybeDouble learning_rate;
  MaybeInt skipped_iterations;  // in the log interval (Megatron)
  MaybeInt nan_iterations;      // in the log interval (Megatron)
  MaybeInt wall_ns;             // the line's timestamp, ns since the epoch (UTC as printed)
  int64_t offset = 0;           // byte offset of the line (decompressed for .gz)
  int64_t line = 0;             // 1-based
};

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

// A deque, not a vector: millions of records grow in fixed blocks, with no
// doubling copy holding the old and the new array at once (the reader's
// peak memory; docs/benchmarks.md).
using TrainingRecords = std::deque<TrainingRecord>;

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
