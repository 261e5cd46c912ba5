// Is this .json / .json.gz file a PyTorch profiler (Kineto) trace?
//
// Traces are recognised by content, not name: a JSON object with a top-level
// "traceEvents" or "schemaVersion" key, or the Trace Event Format's "JSON
// Array Format": a top-level array whose first element is an object with a
// "ph" key (`[{"ph": "X", ...}, ...`, the closing ']' optional). The top level is walked (nested
// values skipped by bracket depth), so however long the metadata before
// "traceEvents" ("deviceProperties", "distributedInfo"...), the key is found
// within the first kSniffLimitBytes of (inflated) text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trainscope::formats {

// How far the sniff reads, in bytes of inflated text, before it gives up.
inline constexpr size_t kSniffLimitBytes = size_t{64} << 20;

struct SniffResult {
  bool is_trace = false;
  std::string reason;  // why not (empty when is_trace): "not a gzip stream: ...", ...
  // One of trainscope's own files (synth's ground_truth.json, a --json
  // report): not a profile, and not worth a line in the input health. Its
  // annotated trace (--perfetto) is one too, and a trace (is_trace): read
  // when the user names it, passed over in a directory walk.
  bool own_output = false;
};

// Opens |path| only when it is a regular file (MappedFile): never blocks.
SniffResult SniffKinetoTrace(const std::string& path);

// The walk, on bytes in memory (fuzzable, tested): feed the text in pieces.
class TopLevelKeyScanner {
 public:
  enum class State { kMore, kFound, kNotObject, kEnded };
  State Feed(std::string_view bytes);
  State state() const { return state_; }
  // The document is a top-level array (JSON Array Format): kFound means its
  // first element has a "ph" key, kEnded that it has none (or is empty).
  bool array() const { return array_; }

 private:
  State state_ = State::kMore;
  bool started_ = false;
  bool array_ = false;  // '[' first: keys are those of the first element, at depth 2
  int bom_left_ = 3;    // a UTF-8 byte order mark may precede the '{'
  int64_t depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool expect_key_ = false;
  bool in_key_ = false;
  std::string key_;
};

}  // namespace trainscope::formats
