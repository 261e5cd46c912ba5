// TrainingLog: what a training log says about a run, one record per printed
// step (docs/health.md). Every metric is optional: a log prints what its
// framework prints, and a number it does not print is unknown, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::model {

enum class LogFormat : uint8_t { kUnknown, kMegatron, kTorchTitan, kHfTrainer, kKeyValue };

std::string_view LogFormatName(LogFormat format);

// One training line. NaN and Inf are kept as such: they are the finding.
struct TrainingRecord {
  int64_t step = 0;              // the iteration the line reports
  bool step_is_ordinal = false;  // the log prints no step: 1-based record number
  std::optional<double> loss;
  std::optional<double> grad_norm;
  std::optional<double> step_time_ms;  // per iteration, as printed
  std::optional<double> tokens_per_s;  // TorchTitan tps is per device
  std::optional<double> tflops;        // per device
  std::optional<double> mfu_pct;
  std::optional<double> learning_rate;
  std::optional<int64_t> skipped_iterations;  // in the log interval (Megatron)
  std::optional<int64_t> nan_iterations;      // in the log interval (Megatron)
  std::optional<int64_t> wall_ns;  // the line's timestamp, ns since the epoch (UTC as printed)
  int64_t offset = 0;              // byte offset of the line (decompressed for .gz)
  int64_t line = 0;                // 1-based
};

enum class LogErrorKind : uint8_t { kDeviceOom, kCollectiveTimeout, kSegfault };

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
  std::vector<TrainingRecord> records;
  std::vector<LogErrorLine> errors;
  int64_t error_counts[3] = {0, 0, 0};  // per LogErrorKind, all of them
  std::vector<LogGap> largest_gaps;
  int64_t bytes = 0;  // bytes read (decompressed)
};

}  // namespace trainscope::model
