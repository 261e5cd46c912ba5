// TrainingRecord: one training line of a log (docs/health.md). Every
// metric is optional: a log prints what its framework prints, and a number
// it does not print is unknown, never 0.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>

namespace trainscope::model {

// An optional number in 8 bytes instead of std::optional's 16 (records
// are stored by column, model/training_records.h; a record is what is read
// and amended one at a time). "Absent" is one quiet-NaN bit pattern no parser
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

// One training line. NaN and Inf are kept as such: they are the finding.
struct TrainingRecord {
  int64_t step = 0;              // the iteration the line reports
  bool step_is_ordinal = false;  // the log prints no step: 1-based record number
  // The DeepSpeed engine the line is from (1-based: the k-th `step=N` line
  // of a step is engine k; DeepSpeed-Chat steps its actor, then its critic),
  // 0 for a line of no engine. In the padding: the size does not grow.
  uint8_t engine = 0;
  // The rank the line names (`[RANK 3]`, `[rank3]:`), -1 when it names none.
  // In the padding after the flag.
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

}  // namespace trainscope::model
