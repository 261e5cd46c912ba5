// Finding the parts of a Chrome-trace document without parsing all of it:
// where the event array starts, where it ends, and where its body can be cut
// between two events. The chunked scan parses the pieces separately, so each
// function here is cheap (a short scan near one offset) and conservative: when
// in doubt it answers "not found" and the caller falls back to the whole-
// document scan, which is the reference behaviour.
#pragma once

#include <simdjson.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "formats/trace/chrome_json.h"

namespace trainscope::formats::trace {

// JSON's whitespace (what simdjson's structural index skips): a table, one
// load instead of four compares (the plain-event reader asks it for every
// byte of Kineto's indentation).
inline constexpr std::array<bool, 256> kJsonSpace = [] {
  std::array<bool, 256> table{};
  table[' '] = table['\n'] = table['\r'] = table['\t'] = true;
  return table;
}();
inline bool IsJsonSpace(char c) { return kJsonSpace[static_cast<unsigned char>(c)]; }

// The first non-whitespace offset at or after |i| (s.size() when none).
size_t SkipSpace(std::string_view s, size_t i);
// One past the JSON string starting at s[i] == '"' (escapes honoured), or
// npos when it runs off |s|.
size_t StringEnd(std::string_view s, size_t i);

// End (one past) of the JSON value starting at s[i] (strings and brackets
// matched, scalars up to the next delimiter), or npos when it runs off |s|.
size_t ValueEnd(std::string_view s, size_t i);

// Offset of the first invalid UTF-8 sequence in |s|, or npos.
size_t FirstBadUtf8(std::string_view s);

// False when a closing bracket of |s| (outside strings) meets an opening
// bracket of the other kind, or none: '[1}' or '{}]'. simdjson's On-Demand
// follows nesting by depth, not by kind, so it can read such text as valid
// (a chunk '[{"a":[1]]}]' as one event), where the whole-document scan,
// cutting the same bytes elsewhere, reports damage. Brackets left open at
// the end are not checked: every parse reports those.
bool BracketsPair(std::string_view s);

// ValueEnd for text that arrives in pieces and is not kept: finds where the
// object or array opened by the first byte fed closes (strings honoured).
class ValueEndScanner {
 public:
  // One past the closing bracket within |bytes|, or npos (feed more).
  size_t Feed(std::string_view bytes);

 private:
  int64_t depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
};

enum class LocateResult { kFound, kNeedMore, kUnsupported };

struct EventsStart {
  bool top_level_array = false;  // trace_view.json: the document is the array
  size_t begin = 0;              // offset just after the array's '['
};

// Scans |head| (the start of the document; |complete| when it is all of it)
// for the top-level `traceEvents` array or the top-level array itself.
LocateResult LocateEventsStart(std::string_view head, bool complete, EventsStart* out);

// Searches |body| (the document from EventsStart::begin to its end) from the
// back for the ']' closing the event array: the candidate whose metadata
// document (|prefix| + "]" + rest, where |prefix| = document[0, begin))
// parses completely is it. Returns its offset in |body| and the metadata
// document in |meta|, or npos.
size_t FindEventsEnd(std::string_view prefix, std::string_view body, simdjson::padded_string* meta);

// Parses a metadata document (the whole document with an empty event array):
// returns an error unless it is complete and has one `traceEvents` key; with
// a |sink|, hands it the top-level keys (OnTopLevel / OnTopLevelScalar).
simdjson::error_code ReadMetadata(const simdjson::padded_string& meta, EventSink* sink);

// First cut at or after |from| in an event-array body: body[.., *chunk_end)
// ends with an event's '}', body[*next_begin] is the next event's '{' (the
// separator `ws , ws` lies between). A cut must look like `} , { "key":` with
// an event key, so a cut inside a nested array of objects is possible but
// rare; the chunk parse then fails and the caller falls back.
bool NextEventBoundary(std::string_view body, size_t from, size_t* chunk_end, size_t* next_begin);

// Last cut in |body| at or after |from| (streaming input cuts behind the
// newest complete event).
bool LastEventBoundary(std::string_view body, size_t from, size_t* chunk_end, size_t* next_begin);

}  // namespace trainscope::formats::trace
