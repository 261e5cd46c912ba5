// A data-only reader of Python pickles (docs/hostile-input.md, "Pickles").
//
// Python's own unpickler runs code: GLOBAL imports any callable and REDUCE
// calls it. This reader builds values only: dict, list, tuple, set, str,
// bytes, int (big ones too), float, bool and None, with the memo (a value
// stored once and referenced again). Every opcode that would import, call,
// build an object, or fetch an object from outside the stream (GLOBAL,
// STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4,
// PERSID, BINPERSID, NEXT_BUFFER, READONLY_BUFFER) is refused with its name
// and byte offset, as is an opcode no protocol (0-5) defines. Truncation, a
// length beyond the end, a bad memo index, too deep nesting or too many
// values are errors with the byte offset; nothing on any input crashes.
//
// The values form a DAG: a memoized value may sit in several containers
// (a container holding itself is refused), so the work of walking it is
// bounded by the caller, not by the size of the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace trainscope::formats {

enum class PickleKind : uint8_t {
  kNone,
  kBool,
  kInt,     // fits in int64
  kBigInt,  // does not: its decimal text
  kFloat,
  kString,  // str (and protocol 0-2's byte strings, read as text): UTF-8,
            // ill-formed sequences replaced by U+FFFD
  kBytes,   // bytes and bytearray
  kList,
  kTuple,
  kSet,  // set and frozenset
  kDict,
};

// "dict", "list", ... for messages.
std::string_view PickleKindName(PickleKind kind);

struct PickleLimits {
  size_t max_bytes = size_t{1} << 30;         // input
  size_t max_values = size_t{1} << 25;        // values built (each ~50 bytes of memory)
  size_t max_depth = 200;                     // containers nested in one another
  size_t max_memo = size_t{1} << 24;          // memo indices
  size_t max_int_bytes = 1024;                // LONG1/LONG4 payload; LONG/INT digits x 2.5
  size_t max_string_bytes = size_t{1} << 30;  // one str/bytes value
};

class PickleDocument;

// A value of a PickleDocument (cheap to copy; valid while the document is).
class PickleValue {
 public:
  PickleKind kind() const;
  bool is_none() const { return kind() == PickleKind::kNone; }

  // The number when kind() is kInt (a bool is not an int here).
  std::optional<int64_t> AsInt() const;
  // kInt or kFloat as a double.
  std::optional<double> AsDouble() const;
  std::optional<bool> AsBool() const;
  // kString's text (kBigInt's decimal text via BigIntText()).
  std::optional<std::string_view> AsString() const;
  std::optional<std::string_view> AsBytes() const;
  std::string_view BigIntText() const;

  // List, tuple and set: items; dict: key/value pairs.
  size_t size() const;
  PickleValue at(size_t i) const;   // an item of a list, tuple or set
  PickleValue key(size_t i) const;  // pair i of a dict
  PickleValue value(size_t i) const;
  // A dict's value for the str key |key| (the last one when the stream set
  // it twice, as Python keeps); nullopt when absent or not a dict.
  std::optional<PickleValue> Get(std::string_view key) const;

  bool is_sequence() const { return kind() == PickleKind::kList || kind() == PickleKind::kTuple; }

 private:
  friend class PickleDocument;
  PickleValue(const PickleDocument* doc, uint32_t id) : doc_(doc), id_(id) {}
  const PickleDocument* doc_;
  uint32_t id_;
};

// What ReadPickle built: every value, and the one STOP returned.
class PickleDocument {
 public:
  PickleValue root() const { return {this, root_}; }
  size_t value_count() const { return nodes_.size(); }
  int protocol() const { return protocol_; }           // PROTO's number; 0 without one
  size_t stop_offset() const { return stop_offset_; }  // the STOP opcode's byte

 private:
  friend class PickleValue;
  friend class PickleParser;
  struct Node {
    PickleKind kind = PickleKind::kNone;
    bool flag = false;
    int64_t i = 0;
    double f = 0;
    std::string text;             // str, bytes, big int
    std::vector<uint32_t> items;  // containers; a dict's as key, value, key, value
  };
  std::vector<Node> nodes_;
  // Dicts with many pairs: pair indices sorted by str key, the last pair of
  // a repeated key only (built once the stream ended).
  std::unordered_map<uint32_t, std::vector<uint32_t>> dict_index_;
  uint32_t root_ = 0;
  int protocol_ = 0;
  size_t stop_offset_ = 0;
};

// Reads the pickle at the start of |bytes| up to its STOP (bytes after it
// are ignored). |name| starts every error message.
Result<std::unique_ptr<PickleDocument>> ReadPickle(std::string_view bytes, std::string_view name,
                                                   const PickleLimits& limits = {});

}  // namespace trainscope::formats
