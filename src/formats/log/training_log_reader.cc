#include "formats/log/training_log_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include "core/mapped_file.h"
#include "core/safe_text.h"
#include "formats/gzip_magic.h"
#include "formats/log/bar_fields.h"
#include "formats/log/line_reader.h"
#include "formats/log/preparsed_lines.h"

namespace trainscope::formats {
namespace {

using model::LogFormat;
using model::TrainingRecord;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A printed number: decimal or exponent form, thousands commas (TorchTitan's
// "tps: 1,234"), nan / inf in any case and sign (Python's repr and JSON's
// NaN / Infinity). Nothing else may follow it. False when |s| is not one
// (the value, into |out|, left alone). Out-of-line parsers return a flag:
// GCC returns an optional<double> or optional<int64_t> through memory with
// a byte store its caller's wider load waits for (core/numbers.h).
bool ReadNumber(std::string_view s, double* out) {
  constexpr size_t kLongest = 64;  // characters a number may have (commas left out)
  s = TrimBlanks(s);
  if (s.empty()) return false;
  // Most numbers are digits with no thousands comma: parsed where they are,
  // without the copy below (a training log has a few per line and
  // millions of lines). A comma stops the parse before the end: the copy
  // without commas is parsed below, as is any text that is no number (the
  // same answer, later).
  if (s.size() <= kLongest) {
    std::string_view t = s;
    if (t.front() == '+') t.remove_prefix(1);
    const std::string_view digits = !t.empty() && t.front() == '-' ? t.substr(1) : t;
    if (!digits.empty() && (IsDigit(digits.front()) || digits.front() == '.')) {
      double value = 0;
      const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
      if (ec == std::errc() && ptr == t.data() + t.size()) {
        *out = value;
        return true;
      }
    }
  }
  std::array<char, kLongest> buf{};
  size_t n = 0;
  for (char c : s) {
    if (c == ',') continue;
    if (n == buf.size()) return false;
    buf[n++] = c;
  }
  std::string_view t(buf.data(), n);
  bool negative = false;
  std::string_view word = t;
  if (!word.empty() && (word.front() == '-' || word.front() == '+')) {
    negative = word.front() == '-';
    word.remove_prefix(1);
  }
  auto lower_is = [&](std::string_view w) {
    if (word.size() != w.size()) return false;
    for (size_t i = 0; i < w.size(); ++i) {
      if ((word[i] | 0x20) != w[i]) return false;
    }
    return true;
  };
  if (lower_is("nan")) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (lower_is("inf") || lower_is("infinity")) {
    *out = negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
    return true;
  }
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || ptr != t.data() + t.size()) return false;
  *out = value;
  return true;
}

// Inlined into each caller, so that no optional crosses a call.
[[gnu::always_inline]] inline std::optional<double> ParseNumber(std::string_view s) {
  double value = 0;
  if (!ReadNumber(s, &value)) return std::nullopt;
  return value;
}

bool ReadCount(std::string_view s, int64_t* out) {
  s = TrimBlanks(s);
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || value < 0) return false;
  *out = value;
  return true;
}

[[gnu::always_inline]] inline std::optional<int64_t> ParseCount(std::string_view s) {
  int64_t value = 0;
  if (!ReadCount(s, &value)) return std::nullopt;
  return value;
}

// ---- Megatron-LM / MindSpeed-LLM (training.py training_log) ----
// " [2024-05-01 10:00:00] iteration       10/    1000 | consumed samples: ... |
//  elapsed time per iteration (ms): 1234.5 | ... | lm loss: 7.123E+00 | ... |"
// Returns kNone on a record, kLogNotTrainingLine when the anchor is absent.
// Finds "iteration N/M" and the first bar after it: the step and the text
// after that bar; kLogNotTrainingLine without the anchor.
RowIssue FindIteration(std::string_view* line, TrainingRecord* r) {
  size_t at = line->find("iteration ");
  for (; at != std::string_view::npos; at = line->find("iteration ", at + 1)) {
    size_t p = at + 10;
    while (p < line->size() && (*line)[p] == ' ') ++p;
    size_t q = p;
    while (q < line->size() && IsDigit((*line)[q])) ++q;
    if (q == p || q >= line->size() || (*line)[q] != '/') continue;
    const std::optional<int64_t> step = ParseCount(line->substr(p, q - p));
    const size_t bar = line->find('|', q);
    if (!step || bar == std::string_view::npos) return RowIssue::kLogUnparsableNumber;
    r->step = *step;
    line->remove_prefix(bar + 1);
    return RowIssue::kNone;
  }
  return RowIssue::kLogNotTrainingLine;
}

// Whether |key| is |text|: the sizes first, then the bytes with a
// constant-length compare the compiler writes out (a dozen keys a line
// against a dozen names went to memcmp through std::string_view's ==).
template <size_t N>
[[gnu::always_inline]] inline bool KeyIs(std::string_view key, const char (&text)[N]) {
  return key.size() == N - 1 && __builtin_memcmp(key.data(), text, N - 1) == 0;
}
template <size_t N>
[[gnu::always_inline]] inline bool KeyStartsWith(std::string_view key, const char (&text)[N]) {
  return key.size() >= N - 1 && __builtin_memcmp(key.data(), text, N - 1) == 0;
}
template <size_t N>
[[gnu::always_inline]] inline bool KeyEndsWith(std::string_view key, const char (&text)[N]) {
  return key.size() >= N - 1 &&
         __builtin_memcmp(key.data() + key.size() - (N - 1), text, N - 1) == 0;
}

RowIssue ApplyMegatronField(std::string_view key, std::string_view value, TrainingRecord* r,
                            bool* have_lm_loss) {
  model::MaybeDouble* target = nullptr;
  if (KeyIs(key, "elapsed time per iteration (ms)")) {
    target = &r->step_time_ms;
  } else if (KeyStartsWith(key, "throughput per GPU")) {
    target = &r->tflops;
  } else if (KeyIs(key, "learning rate")) {
    target = &r->learning_rate;
  } else if (KeyIs(key, "grad norm")) {
    // Megatron-DeepSpeed prints `grad norm: 0.000` when the engine did not
    // compute it (the DeepSpeed optimizer step owns it): no gradient of a
    // training model is exactly zero, so 0 is no value.
    const std::optional<double> v = ParseNumber(value);
    if (!v) return RowIssue::kLogUnparsableNumber;
    if (*v != 0) r->grad_norm = v;
    return RowIssue::kNone;
  } else if (const bool nan = KeyIs(key, "number of nan iterations");
             nan || KeyIs(key, "number of skipped iterations")) {
    const std::optional<int64_t> count = ParseCount(value);
    if (!count) return RowIssue::kLogUnparsableNumber;
    (nan ? r->nan_iterations : r->skipped_iterations) = count;
    return RowIssue::kNone;
  } else if (const bool lm_loss = KeyIs(key, "lm loss");
             lm_loss || (!*have_lm_loss && !r->loss && !KeyIs(key, "loss scale") &&
                         KeyEndsWith(key, "loss"))) {
    *have_lm_loss = *have_lm_loss || lm_loss;
    target = &r->loss;
  }
  if (target == nullptr) return RowIssue::kNone;
  const std::optional<double> v = ParseNumber(value);
  if (!v) return RowIssue::kLogUnparsableNumber;
  *target = v;
  return RowIssue::kNone;
}

RowIssue ParseMegatron(std::string_view line, TrainingRecord* r) {
  if (const RowIssue found = FindIteration(&line, r); found != RowIssue::kNone) return found;
  // Every field ends in " |": text after the last bar is a line cut off (or
  // another process's output written into it).
  const size_t last_bar = line.rfind('|');
  if (last_bar == std::string_view::npos || !TrimBlanks(line.substr(last_bar + 1)).empty()) {
    return RowIssue::kLogUnparsableNumber;
  }
  bool have_lm_loss = false;
  const RowIssue issue =
      ForEachBarField(line.substr(0, last_bar), [&](std::string_view key, std::string_view value) {
        return ApplyMegatronField(key, value, r, &have_lm_loss);
      });
  if (issue != RowIssue::kNone) return issue;
  // A loss averaged over no advanced iteration (every iteration of the
  // interval skipped) prints as 0: no value.
  if (r->loss && *r->loss == 0 && r->skipped_iterations && *r->skipped_iterations > 0) {
    r->loss = std::nullopt;
  }
  return RowIssue::kNone;
}

// ---- DeepSpeed-Chat (step3_rlhf_finetuning/main.py) ----
// "epoch: 0|step: 3|ppo_ep: 1|act_loss: 0.31298828125|cri_loss: 0.2052|
//  unsuper_loss: 0.0": the PPO step and the actor's loss (the first loss).
RowIssue ParseDeepSpeedChat(std::string_view line, TrainingRecord* r) {
  const size_t at = line.find("epoch: ");
  if (at == std::string_view::npos || line.find("|step: ", at) == std::string_view::npos ||
      line.find("_loss: ", at) == std::string_view::npos) {
    return RowIssue::kLogNotTrainingLine;
  }
  line.remove_prefix(at);
  bool have_step = false;
  const RowIssue issue = ForEachBarField(line, [&](std::string_view key, std::string_view value) {
    if (key == "step") {
      const std::optional<int64_t> step = ParseCount(value);
      if (!step) return RowIssue::kLogUnparsableNumber;
      r->step = *step;
      have_step = true;
    } else if (!r->loss && key.ends_with("_loss")) {
      const std::optional<double> v = ParseNumber(value);
      if (!v) return RowIssue::kLogUnparsableNumber;
      r->loss = v;
    }
    return RowIssue::kNone;
  });
  if (issue != RowIssue::kNone) return issue;
  return have_step && r->loss ? RowIssue::kNone : RowIssue::kLogUnparsableNumber;
}

// The digits from |at| as a count (nullopt: none); |end| is past them.
std::optional<int64_t> CountAfter(std::string_view line, size_t at, size_t* end) {
  size_t q = at;
  while (q < line.size() && IsDigit(line[q])) ++q;
  *end = q;
  return q == at ? std::nullopt : ParseCount(line.substr(at, q - at));
}

// ---- DeepSpeed's engine (runtime/engine.py, _report_progress) ----
// log_dist(f"step={step}, skipped={self.skipped_steps}, lr={lr}, mom={mom}",
// ranks=[0]) after `[Rank 0] `: "[Rank 0] step=10, skipped=4, lr=[5.79e-07,
// 5.79e-07], mom=[(0.9, 0.95), (0.9, 0.95)]" (lr a list per parameter group,
// or one number). The step and the first group's lr; |skipped| is the
// engine's count of skipped steps since its start, left in
// skipped_iterations (the reader turns it into the count since the engine's
// previous line).
RowIssue ParseDeepSpeedEngine(std::string_view line, TrainingRecord* r) {
  constexpr std::string_view kStep = "step=";
  constexpr std::string_view kSkipped = ", skipped=";
  constexpr std::string_view kLr = ", lr=";
  // A key=value line that names a loss is the generic form's.
  if (line.find("loss=") != std::string_view::npos) return RowIssue::kLogNotTrainingLine;
  for (size_t at = line.find(kStep); at != std::string_view::npos; at = line.find(kStep, at + 1)) {
    if (at > 0 && line[at - 1] != ' ') continue;  // not global_step= / micro_step=
    size_t end = 0;
    const std::optional<int64_t> step = CountAfter(line, at + kStep.size(), &end);
    if (line.substr(end, kSkipped.size()) != kSkipped) continue;
    const std::optional<int64_t> skipped = CountAfter(line, end + kSkipped.size(), &end);
    if (!step || !skipped) return RowIssue::kLogUnparsableNumber;
    if (line.substr(end, kLr.size()) != kLr) return RowIssue::kLogUnparsableNumber;
    std::string_view lr = line.substr(end + kLr.size());
    if (!lr.empty() && lr.front() == '[') lr.remove_prefix(1);
    const std::optional<double> v = ParseNumber(lr.substr(0, lr.find_first_of(",]")));
    if (!v) return RowIssue::kLogUnparsableNumber;
    r->step = *step;
    r->skipped_iterations = *skipped;
    r->learning_rate = *v;
    return RowIssue::kNone;
  }
  return RowIssue::kLogNotTrainingLine;
}

// DeepSpeed's ThroughputTimer (utils/timer.py) after the engine's line:
// "epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=86.7,
// CurrSamplesPerSec=78.8, MemAllocated=10.77GB, MaxMemAllocated=20.55GB".
// Samples per second (the global batch over the step's time) have no field
// of a record; the line is recognised and not kept.
bool IsDeepSpeedThroughput(std::string_view line) {
  return line.find("/global_step=") != std::string_view::npos &&
         line.find("SamplesPerSec=") != std::string_view::npos;
}

// DeepSpeed-Chat's timing line after a step:
// "|E2E latency=3.73s |Gather latency=0.00s (0.00%) |Generate time=...": the
// step's wall time in ms.
std::optional<double> DeepSpeedChatLatencyMs(std::string_view line) {
  constexpr std::string_view kKey = "|E2E latency=";
  if (line.rfind(kKey, 0) != 0) return std::nullopt;
  line.remove_prefix(kKey.size());
  const size_t s = line.find("s ");
  if (s == std::string_view::npos) return std::nullopt;
  const std::optional<double> v = ParseNumber(line.substr(0, s));
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return *v * 1e3;
}

// DeepSpeed's fp16 loss scaler (runtime/fp16/loss_scaler.py, update_scale):
// "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536,
// reducing to 32768": the optimizer step was skipped.
// The fused and unfused fp16 optimizers print "[deepspeed] fp16 dynamic loss
// scale overflow! Skipping step. Attempted loss scale: 65536.0, reducing to
// 32768.0"; older versions "[deepscale] OVERFLOW! Rank 0 Skipping step. ...".
bool IsDeepSpeedOverflow(std::string_view line) {
  return (line.find("OVERFLOW! Rank") != std::string_view::npos &&
          line.find("Skipping step") != std::string_view::npos) ||
         line.find("overflow! Skipping step. Attempted loss scale") != std::string_view::npos;
}

// ---- XTuner V1 (xtuner/v1/train/trainer.py, _log_step) ----
// "[XTuner][2025-01-01 10:00:00][INFO] Epoch 1 Step 10/1000 data_time: 0.0123
//  lr: 1.000000e-05 time: 1.2345 text_tokens: 32768 total_consumed_tokens: ...
//  local_loss: 1.23456789, reduced_llm_loss: 1.23456789 grad_norm: 0.12345678
//  max_memory: 30.12 GB reserved_memory: 35.00 GB tgs: 26543.2 e2e_tgs: ...
//  eta: 1:23:45 ". |time| is seconds; tgs is this rank's tokens per second.
// Finds "Step N/M": the step, and the text after it.
std::optional<int64_t> FindXTunerStep(std::string_view* line) {
  for (size_t at = line->find("Step "); at != std::string_view::npos;
       at = line->find("Step ", at + 1)) {
    if (at > 0 && (*line)[at - 1] != ' ' && (*line)[at - 1] != ']') continue;
    size_t p = at + 5;
    size_t q = p;
    while (q < line->size() && IsDigit((*line)[q])) ++q;
    if (q == p || q >= line->size() || (*line)[q] != '/') continue;
    const std::optional<int64_t> step = ParseCount(line->substr(p, q - p));
    if (!step) continue;
    line->remove_prefix(q);
    return step;
  }
  return std::nullopt;
}

// The loss XTuner prints first among its losses: reduced_llm_loss (the
// loss reduced over ranks), else total_loss, loss, then any other *_loss.
int XTunerLossRank(std::string_view key) {
  if (key == "reduced_llm_loss") return 4;
  if (key == "total_loss") return 3;
  if (key == "loss" || key == "llm_loss") return 2;
  return key.ends_with("loss") ? 1 : 0;
}

RowIssue ParseXTuner(std::string_view line, TrainingRecord* r) {
  const std::optional<int64_t> step = FindXTunerStep(&line);
  if (!step) return RowIssue::kLogNotTrainingLine;
  if (line.find(" time: ") == std::string_view::npos &&
      line.find("grad_norm: ") == std::string_view::npos) {
    return RowIssue::kLogNotTrainingLine;
  }
  r->step = *step;
  // Every version ends with e2e_tgs (then eta): without it the line was cut.
  if (line.find("e2e_tgs: ") == std::string_view::npos) return RowIssue::kLogUnparsableNumber;
  int loss_rank = 0;
  while (!line.empty()) {
    const size_t sp = line.find(' ');
    const std::string_view token = line.substr(0, sp);
    line = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
    if (token.size() < 2 || token.back() != ':') continue;
    const std::string_view key = token.substr(0, token.size() - 1);
    const size_t end = line.find(' ');
    std::string_view value = line.substr(0, end);
    if (!value.empty() && value.back() == ',') value.remove_suffix(1);
    model::MaybeDouble* target = nullptr;
    double scale = 1;
    const int rank = XTunerLossRank(key);
    if (key == "time") {
      target = &r->step_time_ms;
      scale = 1e3;
    } else if (key == "lr") {
      target = &r->learning_rate;
    } else if (key == "grad_norm") {
      target = &r->grad_norm;
    } else if (key == "tgs") {
      target = &r->tokens_per_s;
    } else if (rank > loss_rank) {
      target = &r->loss;
    }
    if (target == nullptr) continue;
    const std::optional<double> v = ParseNumber(value);
    if (!v) return RowIssue::kLogUnparsableNumber;
    *target = *v * scale;
    if (target == &r->loss) loss_rank = rank;
    line = end == std::string_view::npos ? std::string_view() : line.substr(end + 1);
  }
  if (!r->loss) return RowIssue::kLogUnparsableNumber;
  return RowIssue::kNone;
}

// ---- TorchTitan (train.py) ----
// "[rank0]:[titan] 2025-01-01 10:00:00,123 - root - INFO - step:  5  loss:  7.9
// memory: 30.1GiB(38.1%)
//  tps: 6,123  tflops: 350.1  mfu: 35.4%" (ANSI colours stripped before).
std::optional<std::string_view> ValueAfter(std::string_view line, std::string_view key) {
  size_t at = line.find(key);
  while (at != std::string_view::npos && at > 0 && line[at - 1] != ' ') {
    at = line.find(key, at + 1);
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  const size_t end = rest.find(' ');
  return rest.substr(0, end);
}

RowIssue ParseTorchTitan(std::string_view line, TrainingRecord* r) {
  const size_t at = line.find("step:");
  if (at == std::string_view::npos || line.find("loss:", at) == std::string_view::npos) {
    return RowIssue::kLogNotTrainingLine;
  }
  const std::optional<std::string_view> step = ValueAfter(line.substr(at), "step:");
  const std::optional<int64_t> n = step ? ParseCount(*step) : std::nullopt;
  if (!n) return RowIssue::kLogUnparsableNumber;
  r->step = *n;
  line.remove_prefix(at);
  struct Field {
    std::string_view key;
    model::MaybeDouble* target;
    bool percent;
  };
  const Field fields[] = {{"loss:", &r->loss, false},
                          {"grad_norm:", &r->grad_norm, false},
                          {"tps:", &r->tokens_per_s, false},
                          {"tflops:", &r->tflops, false},
                          {"mfu:", &r->mfu_pct, true}};
  for (const Field& f : fields) {
    std::optional<std::string_view> text = ValueAfter(line, f.key);
    if (!text) continue;
    if (f.percent) {
      // "35.4%" closes the line: without its '%' the line was cut off.
      if (text->empty() || text->back() != '%') return RowIssue::kLogUnparsableNumber;
      text->remove_suffix(1);
    }
    const std::optional<double> v = ParseNumber(*text);
    if (!v) return RowIssue::kLogUnparsableNumber;
    *f.target = v;
  }
  if (!r->loss) return RowIssue::kLogUnparsableNumber;
  return RowIssue::kNone;
}

// ---- Hugging Face Trainer: {'loss': 2.1, 'grad_norm': 1.3, 'learning_rate': 5e-05,
// 'epoch': 0.1} (Python dict) or the same as a JSON line; any JSON line with a
// loss. Values that are strings, lists or objects are passed over.
constexpr std::string_view kMapFields[] = {"step",         "loss",         "grad_norm",
                                           "lr",           "step_time_ms", "step_time_s",
                                           "tokens_per_s", "tflops",       "mfu"};

// The built-in field a key names (nullopt: none).
std::optional<std::string_view> BuiltinField(std::string_view key) {
  if (key == "loss" || key == "lm_loss") return "loss";
  if (key == "grad_norm" || key == "gradient_norm") return "grad_norm";
  if (key == "learning_rate" || key == "lr") return "lr";
  if (key == "step_time_ms" || key == "elapsed_time_per_iteration_ms") return "step_time_ms";
  if (key == "tokens_per_second" || key == "tps" || key == "tokens_per_sec") return "tokens_per_s";
  if (key == "tflops") return "tflops";
  if (key == "mfu") return "mfu";
  // LLaMA-Factory's trainer_log.jsonl counts optimizer steps in current_steps.
  if (key == "step" || key == "global_step" || key == "iteration" || key == "iter" ||
      key == "current_steps") {
    return "step";
  }
  return std::nullopt;
}

// The field |key| feeds: the user's map first; a built-in name only for a
// field the map does not name.
std::optional<std::string_view> FieldOf(std::string_view key, const LogKeyMap* map) {
  if (map != nullptr) {
    for (const auto& [field, user_key] : map->field_to_key) {
      if (user_key == key) return std::string_view(field);
    }
  }
  const std::optional<std::string_view> builtin = BuiltinField(key);
  if (builtin && map != nullptr && map->KeyFor(*builtin) != nullptr) return std::nullopt;
  return builtin;
}

bool ApplyKey(std::string_view key, std::string_view value, TrainingRecord* r, bool* bad,
              bool* has_step, const LogKeyMap* map) {
  const std::optional<std::string_view> field = FieldOf(key, map);
  if (!field) return false;
  key = *field;
  double scale = 1;
  model::MaybeDouble* target = nullptr;
  if (key == "loss") {
    target = &r->loss;
  } else if (key == "grad_norm") {
    target = &r->grad_norm;
  } else if (key == "lr") {
    target = &r->learning_rate;
  } else if (key == "step_time_ms" || key == "step_time_s") {
    target = &r->step_time_ms;
    scale = key == "step_time_s" ? 1e3 : 1;
  } else if (key == "tokens_per_s") {
    target = &r->tokens_per_s;
  } else if (key == "tflops") {
    target = &r->tflops;
  } else if (key == "mfu") {
    target = &r->mfu_pct;
  } else if (key == "step") {
    const std::optional<double> v = ParseNumber(value);
    if (!v || !std::isfinite(*v) || *v < 0 || *v > 9e15) {
      *bad = true;
      return false;
    }
    r->step = static_cast<int64_t>(*v);
    *has_step = true;
    return true;
  }
  if (target == nullptr) return false;
  std::string_view v = TrimBlanks(value);
  if (target == &r->mfu_pct && !v.empty() && v.back() == '%') v.remove_suffix(1);
  const std::optional<double> number = ParseNumber(v);
  if (!number) {
    *bad = true;
    return false;
  }
  *target = *number * scale;
  return true;
}

// The value at the start of |s| runs to the ',' or '}' at depth 0 (a nested
// object, list or string is passed over); s.size() when it never ends.
size_t ValueEnd(std::string_view s) {
  int depth = 0;
  char in_string = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string != 0) {
      if (c == in_string) in_string = 0;
    } else if (c == '\'' || c == '"') {
      in_string = c;
    } else if (c == '{' || c == '[' || c == '(') {
      ++depth;
    } else if (c == '}' || c == ']' || c == ')') {
      if (depth == 0) return i;
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return s.size();
}

RowIssue ParseDict(std::string_view line, TrainingRecord* r, bool* has_step, const LogKeyMap* map) {
  const size_t open = line.find('{');
  if (open == std::string_view::npos) return RowIssue::kLogNotTrainingLine;
  std::string_view s = line.substr(open + 1);
  bool bad = false;
  bool closed = false;
  while (true) {
    s = TrimBlanks(s);
    if (s.empty()) break;
    if (s.front() == '}') {
      closed = true;
      break;
    }
    const char quote = s.front();
    if (quote != '\'' && quote != '"') return RowIssue::kLogNotTrainingLine;
    const size_t end = s.find(quote, 1);
    if (end == std::string_view::npos) break;
    const std::string_view key = s.substr(1, end - 1);
    s = TrimBlanks(s.substr(end + 1));
    if (s.empty() || s.front() != ':') break;
    s.remove_prefix(1);
    s = TrimBlanks(s);
    const size_t i = ValueEnd(s);
    if (i == s.size()) break;  // cut off inside the value
    const std::string_view value = s.substr(0, i);
    ApplyKey(key, value, r, &bad, has_step, map);
    s.remove_prefix(s[i] == ',' ? i + 1 : i);
  }
  if (!r->loss && !r->grad_norm) {
    return bad ? RowIssue::kLogUnparsableNumber : RowIssue::kLogNotTrainingLine;
  }
  if (bad || !closed) return RowIssue::kLogUnparsableNumber;
  return RowIssue::kNone;
}

// ---- Generic key=value: "step=10 loss=2.31 grad_norm=0.9 tps=5200" ----
RowIssue ParseKeyValue(std::string_view line, TrainingRecord* r, bool* has_step,
                       const LogKeyMap* map) {
  const std::string* loss_key = map != nullptr ? map->KeyFor("loss") : nullptr;
  if (line.find(loss_key != nullptr ? *loss_key + "=" : std::string("loss=")) ==
      std::string_view::npos) {
    return RowIssue::kLogNotTrainingLine;
  }
  bool bad = false;
  while (!line.empty()) {
    const size_t sep = line.find_first_of(" \t,|");
    const std::string_view token = line.substr(0, sep);
    line = sep == std::string_view::npos ? std::string_view() : line.substr(sep + 1);
    const size_t eq = token.find('=');
    if (eq == std::string_view::npos) continue;
    ApplyKey(token.substr(0, eq), token.substr(eq + 1), r, &bad, has_step, map);
  }
  if (bad) return RowIssue::kLogUnparsableNumber;
  return r->loss ? RowIssue::kNone : RowIssue::kLogNotTrainingLine;
}

// ANSI SGR sequences (TorchTitan colours its metrics) removed into |buf|.
std::string_view StripAnsi(std::string_view line, std::string* buf) {
  if (line.find('\x1b') == std::string_view::npos) return line;
  buf->clear();
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      size_t j = i + 2;
      while (j < line.size() && (IsDigit(line[j]) || line[j] == ';')) ++j;
      i = j;  // the final letter ('m') is skipped by the loop
      continue;
    }
    buf->push_back(line[i]);
  }
  return *buf;
}

int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// How a run ended: Slurm's `*** JOB 12 ON n1 CANCELLED AT ... DUE TO TIME
// LIMIT ***`, a signal (SIGTERM, SIGKILL, torchrun's `Signals.SIGKILL`,
// a cancelled job), a Python traceback, torchrun's `ChildFailedError`.
std::optional<model::LogErrorKind> ClassifyRunEnd(std::string_view line) {
  using model::LogErrorKind;
  const auto has = [&](std::string_view what) { return line.find(what) != std::string_view::npos; };
  if (has("DUE TO TIME LIMIT")) return LogErrorKind::kTimeLimit;
  if (has("SIGTERM") || has("SIGKILL") || has("CANCELLED AT")) return LogErrorKind::kSignal;
  if (has("Traceback (most recent call last)")) return LogErrorKind::kTraceback;
  if (has("ChildFailedError")) return LogErrorKind::kChildFailed;
  return std::nullopt;
}

std::optional<model::LogErrorKind> ClassifyError(std::string_view line) {
  using model::LogErrorKind;
  if (line.find("out of memory") != std::string_view::npos ||
      line.find("ACL_ERROR_RT_MEMORY_ALLOCATION") != std::string_view::npos ||
      line.find("OutOfMemoryError") != std::string_view::npos) {
    return LogErrorKind::kDeviceOom;
  }
  if (line.find("imeout") != std::string_view::npos ||
      line.find("EI0002") != std::string_view::npos) {
    if (line.find("HCCL") != std::string_view::npos ||
        line.find("NCCL") != std::string_view::npos ||
        line.find("Watchdog") != std::string_view::npos ||
        line.find("collective") != std::string_view::npos ||
        line.find("EI0002") != std::string_view::npos) {
      return LogErrorKind::kCollectiveTimeout;
    }
  }
  if (line.find("Segmentation fault") != std::string_view::npos ||
      line.find("SIGSEGV") != std::string_view::npos) {
    return LogErrorKind::kSegfault;
  }
  return ClassifyRunEnd(line);
}

std::string Cut(std::string_view text) {
  return std::string(text.substr(0, model::TrainingLog::kMaxErrorText));
}

// The rank a line names in its prefix: XTuner's `[RANK 3]`, torchrun's
// `[rank3]:` (any case, a space allowed); -1 when none.
int32_t LineRank(std::string_view line) {
  const std::string_view head = line.substr(0, 96);
  for (size_t at = head.find('['); at != std::string_view::npos; at = head.find('[', at + 1)) {
    std::string_view rest = head.substr(at + 1);
    if (rest.size() < 5 || (rest[0] | 0x20) != 'r' || (rest[1] | 0x20) != 'a' ||
        (rest[2] | 0x20) != 'n' || (rest[3] | 0x20) != 'k') {
      continue;
    }
    rest.remove_prefix(4);
    if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    int32_t rank = 0;
    const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), rank);
    if (ec == std::errc() && ptr != rest.data() && ptr < rest.data() + rest.size() && *ptr == ']' &&
        rank >= 0) {
      return rank;
    }
  }
  return -1;
}

// ---- Pretty-printed JSON documents, read line by line ----
// HF Trainer's trainer_state.json is written with json.dumps(indent=2): each
// log_history entry is a flat object over several lines, "{" alone on its
// first. Such an object (no object or list opened inside it) is joined into
// one line and read as a dict line; a longer one is not held.
constexpr size_t kMaxJoinedObjectBytes = size_t{64} << 10;

// A line that opens a nested object or list: `"log_history": [`, `"x": {`.
bool OpensContainer(std::string_view t) {
  return !t.empty() && (t.back() == '{' || t.back() == '[');
}

// CI baselines of MindSpeed-LLM (tests/.../baseline/*.json: {"lm loss":
// [v, ...], "grad norm": [...], "time info": [...], "throughput": [...]},
// one value per iteration from 1) and Megatron-LM's golden values
// ({"lm loss": {"start_step": 0, "end_step": 50, "step_interval": 5,
// "values": [...] or {"1": v, ...}}}): which record field a metric's name
// feeds and the scale to ms for times.
struct MetricsJsonField {
  model::MaybeDouble TrainingRecord::*field = nullptr;
  double scale = 1;
};

std::optional<MetricsJsonField> MetricsJsonFieldOf(std::string_view name) {
  if (name == "lm loss" || name == "lm-loss" || name == "lm_loss" || name == "reduced_train_loss") {
    return MetricsJsonField{&TrainingRecord::loss, 1};
  }
  if (name == "grad norm" || name == "grad-norm" || name == "grad_norm") {
    return MetricsJsonField{&TrainingRecord::grad_norm, 1};
  }
  // MindSpeed's "time info" is Megatron's elapsed time per iteration (ms);
  // Megatron's "iteration-time" is its TensorBoard scalar (s).
  if (name == "time info") return MetricsJsonField{&TrainingRecord::step_time_ms, 1};
  if (name == "iteration-time" || name == "iteration_time") {
    return MetricsJsonField{&TrainingRecord::step_time_ms, 1e3};
  }
  // MindSpeed's "throughput" is Megatron's throughput per GPU (TFLOP/s/GPU).
  if (name == "throughput") return MetricsJsonField{&TrainingRecord::tflops, 1};
  return std::nullopt;
}

// `"NAME": [` or `"NAME": {` (a metric of a metrics JSON): NAME and the
// bracket; nullopt otherwise.
std::optional<std::pair<std::string_view, char>> JsonMemberOpening(std::string_view t) {
  if (t.size() < 5 || t.front() != '"') return std::nullopt;
  const size_t close = t.find('"', 1);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = TrimBlanks(t.substr(close + 1));
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  rest = TrimBlanks(rest.substr(1));
  if (rest != "[" && rest != "{") return std::nullopt;
  return std::make_pair(t.substr(1, close - 1), rest.front());
}

// What a line's text says alone, whatever came before it: its clock and
// its parse as a training line (with the rank it names). Pure, so a
// worker can compute it ahead of the builder (PreparsedLines).
struct LineAlone {
  std::optional<int64_t> wall;
  RowIssue issue = RowIssue::kLogNotTrainingLine;
  LogFormat format = LogFormat::kUnknown;
  TrainingRecord record;
};

// |text|: the line without its colour codes.
void ParseLineAlone(std::string_view text, const LogKeyMap* map, LineAlone* out) {
  out->wall = ParseLineTimestamp(text);
  out->issue = ParseTrainingLine(text, &out->record, &out->format, map);
  if (out->issue == RowIssue::kNone) out->record.rank = LineRank(text);
}

class LogBuilder {
 public:
  LogBuilder(ReadTrainingLog* out, const LogKeyMap* map) : out_(out), map_(map) {}

  // |alone|: the line's ParseLineAlone when computed ahead, or nullptr.
  void Line(const LogLine& l, const LineAlone* alone = nullptr) {
    RowLedger& ledger = out_->ledger;
    ledger.CountRead();
    if (l.too_long) {
      AbortObject();
      metric_.reset();
      ledger.Skip(RowIssue::kLogLineTooLong, l.number, "over 1 MiB");
      return;
    }
    const std::string_view text = StripAnsi(l.text, &ansi_);
    KeepFirstLine(text);
    if (JsonDocumentLine(TrimBlanks(text), l)) return;
    if (OneLineTrainerState(text, l)) return;
    if (alone == nullptr) {
      here_ = LineAlone();
      ParseLineAlone(text, map_, &here_);
      alone = &here_;
    }
    const std::optional<int64_t> wall = alone->wall;
    if (wall) Timestamp(*wall, l.number, text);
    const RowIssue issue = alone->issue;
    const LogFormat format = alone->format;
    if (issue == RowIssue::kNone) {
      TrainingRecord r = alone->record;
      r.wall_ns = wall;
      r.offset = l.offset;
      r.line = l.number;
      if (r.step_is_ordinal) r.step = static_cast<int64_t>(out_->log.records.size()) + 1;
      if (format == LogFormat::kDeepSpeed) {
        SetEngine(&r);
      } else {
        TakeOverflows(&r);
        last_plain_record_ = out_->log.records.size();
      }
      if (out_->log.format == LogFormat::kUnknown) out_->log.format = format;
      out_->log.records.push_back(r);
      if (!wall) untimed_records_ = true;
      ledger.Use();
      return;
    }
    if (DeepSpeedLine(text)) {
      ledger.Use();
      return;
    }
    if (const std::optional<model::LogErrorKind> kind = ClassifyError(text)) {
      Error(*kind, l, wall, text);
      ledger.Use();
      return;
    }
    ledger.Skip(issue, l.number, Cut(text.substr(0, 80)));
  }

  // After the last line: an object left open is counted skipped, overflows
  // after the last record go to it, a metrics JSON's records in step order.
  void Finish() {
    AbortObject();
    model::TrainingRecords& records = out_->log.records;
    if (pending_overflows_ > 0 && last_plain_record_) {
      // The last plain record, or the last record when it is already packed
      // (more than kAmendable engine lines after it): never lost.
      TrainingRecord* last = records.amendable(*last_plain_record_);
      if (last == nullptr) last = &records.back();
      last->skipped_iterations = last->skipped_iterations.value_or(0) + pending_overflows_;
      pending_overflows_ = 0;
    }
    if (metric_values_) MergeMetricRecords();
  }

 private:
  // DeepSpeed's own lines: an fp16 overflow (the step skipped; counted on
  // the next record), DeepSpeed-Chat's E2E latency (the step time of the
  // record before it). True when |text| was one.
  bool DeepSpeedLine(std::string_view text) {
    if (IsDeepSpeedOverflow(text)) {
      ++pending_overflows_;
      return true;
    }
    if (IsDeepSpeedThroughput(text)) return true;
    const std::optional<double> ms = DeepSpeedChatLatencyMs(text);
    if (!ms || !last_plain_record_) return false;
    TrainingRecord* before = out_->log.records.amendable(*last_plain_record_);
    if (before == nullptr || before->step_time_ms) return false;
    before->step_time_ms = *ms;
    return true;
  }

  // A DeepSpeed engine's line: the k-th line naming a step is engine k
  // (DeepSpeed-Chat steps its actor, then its critic, and each prints
  // `step=N`); the engine's running count of skipped steps becomes the count
  // since its previous line.
  void SetEngine(TrainingRecord* r) {
    if (engine_step_ && *engine_step_ == r->step) {
      engine_at_step_ = std::min(engine_at_step_ + 1, 255);
    } else {
      engine_step_ = r->step;
      engine_at_step_ = 1;
    }
    r->engine = static_cast<uint8_t>(engine_at_step_);
    if (engine_skipped_.size() < size_t{r->engine}) engine_skipped_.resize(r->engine, 0);
    int64_t& before = engine_skipped_[r->engine - 1];
    const int64_t total = r->skipped_iterations.value_or(0);
    // A count lower than before: the engine started over (a new job).
    r->skipped_iterations = total >= before ? total - before : total;
    before = total;
  }

  void TakeOverflows(TrainingRecord* r) {
    if (pending_overflows_ == 0) return;
    r->skipped_iterations = r->skipped_iterations.value_or(0) + pending_overflows_;
    pending_overflows_ = 0;
  }

  // A line of a pretty-printed JSON document (trainer_state.json, a
  // metrics JSON): true when it was consumed (counted used or held).
  bool JsonDocumentLine(std::string_view t, const LogLine& l) {
    if (object_open_) {
      if (!OpensContainer(t) && object_.size() + t.size() < kMaxJoinedObjectBytes) {
        object_ += ' ';
        object_ += t;
        ++object_lines_;
        if (t == "}" || t == "},") FinishObject();
        return true;
      }
      AbortObject();  // a document's outer object, or too long: this line is read anew
    }
    if (metric_) return MetricLine(t, l);
    if (t == "{") {
      object_open_ = true;
      object_ = "{";
      object_lines_ = 1;
      object_line_ = l.number;
      object_offset_ = l.offset;
      return true;
    }
    if (const auto opening = JsonMemberOpening(t)) {
      if (const std::optional<MetricsJsonField> field = MetricsJsonFieldOf(opening->first)) {
        metric_ = MetricState{};
        metric_->field = *field;
        metric_->in_values = opening->second == '[';
        metric_->direct_array = metric_->in_values;
        metric_->step = 1;  // MindSpeed's arrays: iterations from 1
        out_->ledger.Use();
        return true;
      }
    }
    return false;
  }

  // A trainer_state.json written on one line (json.dumps without indent):
  // each flat object of its log_history is read as a dict line. The line is
  // used when it held a record; evaluation entries and the summary are passed
  // over.
  bool OneLineTrainerState(std::string_view text, const LogLine& l) {
    const std::string_view t = TrimBlanks(text);
    constexpr std::string_view kKey = "\"log_history\"";
    if (t.empty() || t.front() != '{') return false;
    const size_t key = t.find(kKey);
    if (key == std::string_view::npos) return false;
    std::string_view rest = TrimBlanks(t.substr(key + kKey.size()));
    if (rest.empty() || rest.front() != ':') return false;
    rest = TrimBlanks(rest.substr(1));
    if (rest.empty() || rest.front() != '[') return false;
    rest.remove_prefix(1);
    const size_t before = out_->log.records.size();
    bool bad = false;
    while (true) {
      rest = TrimBlanks(rest);
      if (!rest.empty() && rest.front() == ',') rest = TrimBlanks(rest.substr(1));
      if (rest.empty() || rest.front() != '{') break;  // the list's end, or cut off
      const size_t end = ValueEnd(rest);
      if (end == rest.size()) {
        bad = true;  // cut off inside an entry
        break;
      }
      const std::string_view entry = TrimBlanks(rest.substr(0, end));
      TrainingRecord r;
      bool has_step = false;
      const RowIssue issue = ParseDict(entry, &r, &has_step, map_);
      if (issue == RowIssue::kNone) {
        r.step_is_ordinal = !has_step;
        r.line = l.number;
        // The entry's own offset, unless colour codes were removed from the
        // line (then the line's).
        r.offset = l.offset;
        if (text.data() == l.text.data()) r.offset += entry.data() - text.data();
        if (r.step_is_ordinal) r.step = static_cast<int64_t>(out_->log.records.size()) + 1;
        last_plain_record_ = out_->log.records.size();
        out_->log.records.push_back(r);
      } else if (issue == RowIssue::kLogUnparsableNumber) {
        bad = true;
      }
      rest.remove_prefix(end);
    }
    if (out_->log.records.size() == before) {
      out_->ledger.Skip(bad ? RowIssue::kLogUnparsableNumber : RowIssue::kLogNotTrainingLine,
                        l.number, Cut(t.substr(0, 80)));
      return true;
    }
    if (out_->log.format == LogFormat::kUnknown) out_->log.format = LogFormat::kHfTrainerState;
    untimed_records_ = true;
    out_->ledger.Use();
    return true;
  }

  void FinishObject() {
    object_open_ = false;
    std::string_view joined = object_;
    if (joined.ends_with(",")) joined.remove_suffix(1);
    TrainingRecord r;
    LogFormat format = LogFormat::kUnknown;
    bool has_step = false;
    RowIssue issue = ParseDict(joined, &r, &has_step, map_);
    RowLedger& ledger = out_->ledger;
    if (issue == RowIssue::kNone) {
      r.step_is_ordinal = !has_step;
      r.offset = object_offset_;
      r.line = object_line_;
      if (r.step_is_ordinal) r.step = static_cast<int64_t>(out_->log.records.size()) + 1;
      format = LogFormat::kHfTrainerState;
      if (out_->log.format == LogFormat::kUnknown) out_->log.format = format;
      last_plain_record_ = out_->log.records.size();
      out_->log.records.push_back(r);
      untimed_records_ = true;
      ledger.Use(object_lines_);
    } else {
      // An evaluation entry ({"eval_loss": ...}) or the run's summary.
      ledger.Skip(issue, object_line_, Cut(joined.substr(0, 80)));
      ledger.SkipUnsampled(issue, object_lines_ - 1);
    }
    object_.clear();
  }

  // The lines of an object left open are not a record (the first sampled).
  void AbortObject() {
    if (!object_open_) return;
    object_open_ = false;
    out_->ledger.Skip(RowIssue::kLogNotTrainingLine, object_line_, Cut(object_.substr(0, 80)));
    out_->ledger.SkipUnsampled(RowIssue::kLogNotTrainingLine, object_lines_ - 1);
    object_.clear();
  }

  struct MetricState {
    MetricsJsonField field;
    bool in_values = false;     // inside the list (or object) of values
    bool values_dict = false;   // values as {"step": v}
    bool direct_array = false;  // `"lm loss": [`: the list is the metric
    int64_t step = 1;           // the next value's step
    int64_t interval = 1;
  };

  // One line inside a metric of a metrics JSON; every such line is used.
  bool MetricLine(std::string_view t, const LogLine& l) {
    MetricState& m = *metric_;
    RowLedger& ledger = out_->ledger;
    if (!m.in_values) {
      // {"start_step": 0, "end_step": 50, "step_interval": 5, "values": ...}
      if (t == "}" || t == "},") {
        metric_.reset();
      } else if (const auto opening = JsonMemberOpening(t); opening && opening->first == "values") {
        m.in_values = true;
        m.values_dict = opening->second == '{';
      } else {
        const size_t colon = t.find(':');
        const std::string_view key =
            colon == std::string_view::npos ? std::string_view() : TrimBlanks(t.substr(0, colon));
        std::string_view value =
            colon == std::string_view::npos ? t : TrimBlanks(t.substr(colon + 1));
        if (value.ends_with(",")) value.remove_suffix(1);
        const std::optional<int64_t> n = ParseCount(value);
        if (key == "\"start_step\"" && n) m.step = *n;
        if (key == "\"step_interval\"" && n && *n > 0) m.interval = *n;
        if (key == "\"values\"" && !value.empty() && (value[0] == '[' || value[0] == '{')) {
          // "values": [1.0, 2.0] on one line.
          m.in_values = true;
          m.values_dict = value[0] == '{';
          return ValuesText(value.substr(1), t, l);
        }
      }
      ledger.Use();
      return true;
    }
    return ValuesText(t, t, l);
  }

  // Values of the metric being read: "12.6," lines, or several on one line,
  // up to ']' / '}'. |line_text| is the whole line (for a skip's sample).
  bool ValuesText(std::string_view t, std::string_view line_text, const LogLine& l) {
    MetricState& m = *metric_;
    RowLedger& ledger = out_->ledger;
    std::string_view rest = t;
    bool closed = false;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      std::string_view item = TrimBlanks(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      if (!item.empty() && (item.back() == ']' || item.back() == '}')) {
        closed = true;
        item = TrimBlanks(item.substr(0, item.size() - 1));
      }
      if (item.empty()) continue;
      int64_t step = m.step;
      if (m.values_dict) {
        const size_t colon = item.find(':');
        const std::optional<int64_t> key = colon == std::string_view::npos
                                               ? std::nullopt
                                               : ParseCount(Unquote(item.substr(0, colon)));
        if (!key) {
          ledger.Skip(RowIssue::kLogUnparsableNumber, l.number, Cut(line_text.substr(0, 80)));
          return true;
        }
        step = *key;
        item = TrimBlanks(item.substr(colon + 1));
      }
      const std::optional<double> v = ParseNumber(Unquote(item));
      if (!v) {
        ledger.Skip(RowIssue::kLogUnparsableNumber, l.number, Cut(line_text.substr(0, 80)));
        return true;
      }
      SetMetricValue(step, *v, l);
      m.step = step + m.interval;
    }
    if (closed) {
      m.in_values = false;
      // A MindSpeed array closes its metric; a golden-values object closes
      // with its own '}' after the values.
      if (m.direct_array) metric_.reset();
    }
    ledger.Use();
    return true;
  }

  static std::string_view Unquote(std::string_view s) {
    s = TrimBlanks(s);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
    return s;
  }

  // One value of a metrics JSON: a record of its own, merged with the other
  // metrics' records of its step after the last line (Finish): no index of
  // steps is held, so memory stays a record per value line.
  void SetMetricValue(int64_t step, double value, const LogLine& l) {
    TrainingRecord r;
    r.step = step;
    r.line = l.number;
    r.offset = l.offset;
    r.*(metric_->field.field) = value * metric_->field.scale;
    out_->log.records.push_back(r);
    metric_values_ = true;
    if (out_->log.format == LogFormat::kUnknown) out_->log.format = LogFormat::kMetricsJson;
  }

  // A metrics JSON's records in step order, those of one step merged (in
  // file order, so a step's line is its first metric's). A value for a
  // field its step already has (a step twice in a list) stays a record of
  // its own: it is never dropped.
  void MergeMetricRecords() {
    std::vector<TrainingRecord> records;
    records.reserve(out_->log.records.size());
    out_->log.records.Drain([&](const TrainingRecord& r) { records.push_back(r); });
    std::stable_sort(
        records.begin(), records.end(),
        [](const TrainingRecord& a, const TrainingRecord& b) { return a.step < b.step; });
    constexpr model::MaybeDouble TrainingRecord::*kFields[] = {
        &TrainingRecord::loss,         &TrainingRecord::grad_norm, &TrainingRecord::step_time_ms,
        &TrainingRecord::tokens_per_s, &TrainingRecord::tflops,    &TrainingRecord::mfu_pct,
        &TrainingRecord::learning_rate};
    size_t kept = 0;
    for (size_t i = 0; i < records.size(); ++i) {
      if (kept > 0) {
        TrainingRecord& into = records[kept - 1];
        const TrainingRecord& r = records[i];
        bool clash = into.step != r.step;
        for (const auto field : kFields) clash = clash || (into.*field && r.*field);
        if (!clash) {
          for (const auto field : kFields) {
            if (r.*field) into.*field = r.*field;
          }
          continue;
        }
      }
      records[kept++] = records[i];
    }
    for (size_t i = 0; i < kept; ++i) out_->log.records.push_back(records[i]);
  }

  void KeepFirstLine(std::string_view text) {
    std::vector<std::string>& first = out_->log.first_lines;
    if (first.size() >= model::TrainingLog::kFirstLinesKept) return;
    if (TrimBlanks(text).empty()) return;
    first.push_back(Cut(text));
  }

  // A silence is timed between two timestamped lines only when no training
  // line without a clock lies between them: the steps printed there say the
  // run was alive, and when is unknown.
  void Timestamp(int64_t wall, int64_t line, std::string_view text) {
    const bool untimed_between = untimed_records_;
    untimed_records_ = false;
    if (last_wall_ && !untimed_between && !out_->log.records.empty() && wall > *last_wall_) {
      model::LogGap gap;
      gap.gap_ns = wall - *last_wall_;
      gap.line_before = last_wall_line_;
      gap.line_after = line;
      gap.last_step = out_->log.records.back().step;
      auto& gaps = out_->log.largest_gaps;
      if (gaps.size() < model::TrainingLog::kGapsKept || gaps.back().gap_ns < gap.gap_ns) {
        gap.text_before = last_wall_text_;
        if (gaps.size() == model::TrainingLog::kGapsKept) gaps.pop_back();
        gaps.insert(std::upper_bound(gaps.begin(), gaps.end(), gap,
                                     [](const model::LogGap& a, const model::LogGap& b) {
                                       return a.gap_ns > b.gap_ns;
                                     }),
                    std::move(gap));
      }
    }
    last_wall_ = wall;
    last_wall_line_ = line;
    last_wall_text_.assign(text.substr(0, model::TrainingLog::kMaxErrorText));
  }

  void Error(model::LogErrorKind kind, const LogLine& l, std::optional<int64_t> wall,
             std::string_view text) {
    model::TrainingLog& log = out_->log;
    if (log.error_counts[static_cast<int>(kind)]++ >=
        static_cast<int64_t>(model::TrainingLog::kMaxErrorsKept)) {
      return;
    }
    model::LogErrorLine e;
    e.kind = kind;
    e.line = l.number;
    e.offset = l.offset;
    e.wall_ns = wall;
    if (!log.records.empty()) e.last_step = log.records.back().step;
    e.text = Cut(TrimBlanks(text));
    log.errors.push_back(std::move(e));
  }

  ReadTrainingLog* out_;
  const LogKeyMap* map_;
  std::string ansi_;
  LineAlone here_;                 // the current line's parse when none came ahead
  int64_t pending_overflows_ = 0;  // DeepSpeed overflows since the last record
  // The last record of no DeepSpeed engine (the one an overflow, or a
  // DeepSpeed-Chat latency line, belongs with).
  std::optional<size_t> last_plain_record_;
  // DeepSpeed engines: the step of the last engine line, the engines that
  // printed it so far, each engine's running count of skipped steps.
  std::optional<int64_t> engine_step_;
  int engine_at_step_ = 0;
  std::vector<int64_t> engine_skipped_;
  // A pretty-printed object being joined.
  bool object_open_ = false;
  std::string object_;
  int64_t object_lines_ = 0;
  int64_t object_line_ = 0;
  int64_t object_offset_ = 0;
  // A metrics JSON: the metric being read, and each step's record.
  std::optional<MetricState> metric_;
  bool metric_values_ = false;
  std::optional<int64_t> last_wall_;
  bool untimed_records_ = false;  // a record without a clock since the last timestamp
  int64_t last_wall_line_ = 0;
  std::string last_wall_text_;
};

}  // namespace

bool ParseLineTimestamp(std::string_view line, int64_t* ns) {
  const size_t limit = std::min<size_t>(line.size(), 96);
  for (size_t i = 0; i + 19 <= limit; ++i) {
    const char* p = line.data() + i;
    if (p[4] != '-' || p[7] != '-' || (p[10] != ' ' && p[10] != 'T') || p[13] != ':' ||
        p[16] != ':') {
      continue;
    }
    auto num = [&](size_t at, size_t len) -> int64_t {
      int64_t v = 0;
      for (size_t k = at; k < at + len; ++k) {
        if (!IsDigit(p[k])) return -1;
        v = v * 10 + (p[k] - '0');
      }
      return v;
    };
    const int64_t y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
                  s = num(17, 2);
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
        s < 0 || s > 60) {
      continue;
    }
    int64_t frac_ns = 0;
    size_t k = i + 19;
    if (k < line.size() && (line[k] == '.' || line[k] == ',')) {
      int64_t scale = 100'000'000;
      for (++k; k < line.size() && IsDigit(line[k]); ++k) {
        frac_ns += (line[k] - '0') * scale;
        scale /= 10;
      }
    }
    const int64_t seconds = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
    // Nanoseconds since 1970 in int64 end in April 2262: a later year is no
    // clock we can hold (and multiplying it out would overflow).
    if (seconds > std::numeric_limits<int64_t>::max() / 1'000'000'000 - 1) continue;
    *ns = seconds * 1'000'000'000 + frac_ns;
    return true;
  }
  return false;
}

RowIssue ParseTrainingLine(std::string_view line, TrainingRecord* record, LogFormat* format,
                           const LogKeyMap* map) {
  RowIssue issue = ParseMegatron(line, record);
  if (issue != RowIssue::kLogNotTrainingLine) {
    *format = LogFormat::kMegatron;
    return issue;
  }
  *record = TrainingRecord();
  issue = ParseXTuner(line, record);
  if (issue != RowIssue::kLogNotTrainingLine) {
    *format = LogFormat::kXTuner;
    return issue;
  }
  *record = TrainingRecord();
  issue = ParseDeepSpeedChat(line, record);
  if (issue != RowIssue::kLogNotTrainingLine) {
    *format = LogFormat::kDeepSpeedChat;
    return issue;
  }
  *record = TrainingRecord();
  issue = ParseTorchTitan(line, record);
  if (issue != RowIssue::kLogNotTrainingLine) {
    *format = LogFormat::kTorchTitan;
    return issue;
  }
  *record = TrainingRecord();
  issue = ParseDeepSpeedEngine(line, record);
  if (issue != RowIssue::kLogNotTrainingLine) {
    *format = LogFormat::kDeepSpeed;
    return issue;
  }
  bool has_step = false;
  *record = TrainingRecord();
  issue = ParseDict(line, record, &has_step, map);
  if (issue != RowIssue::kLogNotTrainingLine) {
    *format = line.find("\"current_steps\"") != std::string_view::npos ? LogFormat::kLlamaFactory
                                                                       : LogFormat::kHfTrainer;
    record->step_is_ordinal = !has_step;
    return issue;
  }
  *record = TrainingRecord();
  has_step = false;
  issue = ParseKeyValue(line, record, &has_step, map);
  if (issue != RowIssue::kLogNotTrainingLine) {
    *format = LogFormat::kKeyValue;
    record->step_is_ordinal = !has_step;
  }
  return issue;
}

namespace {

// About how many bytes of text |size| bytes of a file hold (a gzip log
// inflates to ~10x).
int64_t TextBytes(size_t size, bool gzip) { return static_cast<int64_t>(size) * (gzip ? 10 : 1); }

// |for_each_line| calls its argument for every line of the log, about
// |bytes| of text; with options.threads >= 2 and a big log the lines' own
// parse runs ahead on threads - 1 workers (PreparsedLines).
Result<ReadTrainingLog> ReadLog(
    const std::string& name, const LogKeyMap* map, int64_t bytes, const LogReadOptions& options,
    const std::function<Result<int64_t>(const std::function<void(const LogLine&)>&)>&
        for_each_line) {
  ReadTrainingLog out;
  out.ledger = RowLedger(name);
  out.log.path = name;
  LogBuilder builder(&out, map);
  Result<int64_t> n = int64_t{0};
  if (options.threads >= 2 && bytes >= options.parse_ahead_bytes) {
    PreparsedLines<LineAlone> lines(
        options.threads - 1,
        [map](const LogLine& l, LineAlone* alone) {
          if (l.too_long) return;
          std::string ansi;
          ParseLineAlone(StripAnsi(l.text, &ansi), map, alone);
        },
        [&builder](const LogLine& l, const LineAlone& alone) { builder.Line(l, &alone); });
    n = for_each_line([&lines](const LogLine& l) { lines.Add(l); });
    lines.Finish();
  } else {
    n = for_each_line([&](const LogLine& l) { builder.Line(l); });
  }
  builder.Finish();
  if (n.ok()) {
    out.log.bytes = *n;
  } else {
    // A damaged gzip stream: the lines before the damage are kept, the
    // damage is said.
    out.warning = n.status().message();
  }
  return out;
}

}  // namespace

std::string NotTextReason(std::string_view bytes) {
  if (IsGzip(bytes)) return {};
  const std::string_view head = bytes.substr(0, size_t{64} << 10);
  const size_t nul = head.find('\0');
  if (nul == std::string_view::npos) return {};
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(head[i]); };
  std::string what = "binary data";
  if (head.size() >= 4 && head.substr(0, 4) == std::string_view("\x7f"
                                                                "ELF",
                                                                4)) {
    what = "an ELF executable or library";
  } else if (head.size() >= 2 &&
             ((byte(0) == 0xff && byte(1) == 0xfe) || (byte(0) == 0xfe && byte(1) == 0xff))) {
    what = "UTF-16 text (convert it: iconv -f UTF-16 -t UTF-8)";
  } else if (head.size() >= 2 &&
             ((byte(0) != 0 && byte(1) == 0) || (byte(0) == 0 && byte(1) != 0))) {
    what = "UTF-16 text without a byte-order mark, or binary data";
  }
  return fmt::format("a NUL byte at offset {}: {}, not a text log", nul, what);
}

Result<ReadTrainingLog> ReadTrainingLogBytes(std::string_view bytes, bool gzip,
                                             const std::string& name, const LogKeyMap* map,
                                             const LogReadOptions& options) {
  if (std::string why = gzip ? std::string() : NotTextReason(bytes); !why.empty()) {
    ReadTrainingLog out;
    out.ledger = RowLedger(name);
    out.log.path = name;
    out.log.not_text = std::move(why);
    return out;
  }
  return ReadLog(name, map, TextBytes(bytes.size(), gzip), options,
                 [&](const std::function<void(const LogLine&)>& fn) {
                   return ForEachLogLineIn(bytes, gzip, name, fn);
                 });
}

Result<ReadTrainingLog> ReadTrainingLogFile(const std::string& path, const LogKeyMap* map,
                                            const LogReadOptions& options) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  if (std::string why = NotTextReason(file.data()); !why.empty()) {
    // Not a text log: not read at all (a sparse file of gigabytes of NULs
    // would otherwise be scanned to its end for nothing).
    ReadTrainingLog out;
    out.ledger = RowLedger(path);
    out.log.path = path;
    out.log.not_text = std::move(why);
    return out;
  }
  return ReadLog(
      path, map, TextBytes(file.size(), IsGzip(file.data())), options,
      [&](const std::function<void(const LogLine&)>& fn) { return ForEachLogLineOf(file, fn); });
}

const std::string* LogKeyMap::KeyFor(std::string_view field) const {
  for (const auto& [f, key] : field_to_key) {
    if (f == field) return &key;
  }
  return nullptr;
}

Result<LogKeyMap> ParseLogKeyMap(std::string_view spec) {
  std::string text(spec);
  std::string origin = "--map";
  if (spec.find('=') == std::string_view::npos) {
    // A file of field=key lines.
    TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(std::string(spec)));
    text.assign(file.data());
    TS_RETURN_IF_ERROR(file.CheckIntact());
    origin = std::string(spec);
  }
  LogKeyMap map;
  int64_t line_number = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t end = rest.find_first_of(",\n");
    std::string_view item = TrimBlanks(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++line_number;
    if (!item.empty() && item.back() == '\r') item.remove_suffix(1);
    if (item.empty() || item.front() == '#') continue;
    const size_t eq = item.find('=');
    const std::string_view field =
        eq == std::string_view::npos ? item : TrimBlanks(item.substr(0, eq));
    const std::string_view key =
        eq == std::string_view::npos ? std::string_view() : TrimBlanks(item.substr(eq + 1));
    const bool known =
        std::find(std::begin(kMapFields), std::end(kMapFields), field) != std::end(kMapFields);
    if (!known || key.empty()) {
      return UsageError("'" + origin + "' item " + std::to_string(line_number) + " '" +
                        CappedQuote(item) +
                        "': expected FIELD=KEY with FIELD one of step, loss, grad_norm, lr, "
                        "step_time_ms, step_time_s, tokens_per_s, tflops, mfu");
    }
    // The first item of a field wins (KeyFor); a repeat is not kept, so a
    // long file of repeats cannot make every lookup long.
    if (map.KeyFor(field) == nullptr) {
      map.field_to_key.emplace_back(std::string(field), std::string(key));
    }
  }
  if (map.field_to_key.empty()) return UsageError("'" + origin + "' maps no field");
  return map;
}

}  // namespace trainscope::formats
