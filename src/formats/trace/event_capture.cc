#include "formats/trace/event_capture.h"

#include <cstring>
#include <utility>

#include "formats/trace/event_fields.h"

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// simdjson 3.0's skip of a string value it was not asked to read takes a
// ':' after it for a key separator and skips on to the next closing bracket:
// {"name":"a":"b"}} passed as one event ending at the second brace, where
// the event-wise scan (ValueEnd) ends it at the first and reports damage, so
// the chunked and whole-document reads of one file disagreed (fuzz soak
// 2026-11-30). A string value followed by ':' is refused here, before any
// skip: one look at the byte after the raw token (the next structural
// character).
//
// Likewise a missing value ("key":} or "key":,): On-Demand takes the
// structural character for the value and the next '}' for the object's end,
// where ValueEnd closes the event at the first '}' (fuzz, 2026-12-03). A
// value cannot start with a closing bracket, ',' or ':': refused here too.
error_code CheckValueEnd(od::value& value) {
  const std::string_view raw = value.raw_json_token();
  if (raw.empty()) return simdjson::SUCCESS;
  if (raw[0] == '}' || raw[0] == ']' || raw[0] == ',' || raw[0] == ':') {
    return simdjson::TAPE_ERROR;
  }
  if (raw[0] == '"' && raw.data()[raw.size()] == ':') return simdjson::TAPE_ERROR;
  return simdjson::SUCCESS;
}

// String -> unescaped text; number/bool/null -> raw token; objects and arrays
// are left for the iterator to skip. Strings without escapes (nearly all)
// are returned as a view of the input: no copy into the string buffer.
error_code Token(od::value& value, std::string_view* out) {
  std::string_view raw = value.raw_json_token();
  if (!raw.empty() && raw[0] == '"') {
    // The raw token runs to the next structural character: the string, its
    // closing quote, then whitespace. Without a backslash (memchr, SIMD) the
    // text between the quotes is the value.
    size_t close = raw.size() - 1;
    while (close > 0 && raw[close] != '"') --close;
    if (close > 0 && std::memchr(raw.data() + 1, '\\', close - 1) == nullptr) {
      *out = raw.substr(1, close - 1);
      return simdjson::SUCCESS;
    }
    return value.get_string().get(*out);
  }
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  if (type == od::json_type::object || type == od::json_type::array) return simdjson::SUCCESS;
  *out = raw;
  return simdjson::SUCCESS;
}

// An array as its raw JSON text (record_shapes' "Input Dims": interned as
// text, parsed by the analysis that needs it); anything else is left out.
error_code RawArray(od::value& value, std::string_view* out) {
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  if (type != od::json_type::array) return simdjson::SUCCESS;
  od::array array;
  if (error_code e = value.get_array().get(array)) return e;
  std::string_view raw;
  if (error_code e = array.raw_json().get(raw)) return e;
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) {
    raw.remove_suffix(1);
  }
  *out = raw;
  return simdjson::SUCCESS;
}

// Like Token but keeps the quotes of strings (timestamps as strings, ids as
// strings): the number parsers strip them.
error_code RawToken(od::value& value, std::string_view* out) {
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  if (type == od::json_type::object || type == od::json_type::array) return simdjson::SUCCESS;
  *out = value.raw_json_token();
  return simdjson::SUCCESS;
}

error_code CaptureArgs(od::value& value, RawEvent* ev);

// Reads |value| as |target| says (event_fields.h).
inline __attribute__((always_inline)) error_code ReadField(FieldTarget target, od::value& value,
                                                           RawEvent* ev) {
  switch (target.read) {
    case FieldRead::kText:
      return Token(value, target.into);
    case FieldRead::kRaw:
      return RawToken(value, target.into);
    case FieldRead::kArray:
      return RawArray(value, target.into);
    case FieldRead::kArgs:
      return CaptureArgs(value, ev);
    case FieldRead::kSkip:
      break;
  }
  return simdjson::SUCCESS;
}

error_code CaptureArgs(od::value& value, RawEvent* ev) {
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  if (type != od::json_type::object) {
    // "args": null / 5 / [] (hand-made or converted traces): read as absent;
    // the iterator skips the value.
    ev->note = RowIssue::kArgsNotObject;
    return simdjson::SUCCESS;
  }
  od::object args;
  if (error_code e = value.get_object().get(args)) return e;
  ev->has_args = true;
  for (auto field_result : args) {
    // A reference into the result, not a copy: copying the field struct
    // right after the iterator wrote it member by member stalled store
    // forwarding on every field (a third of the parse time).
    if (error_code e = field_result.error()) return e;
    od::field&& field = std::move(field_result).value_unsafe();
    std::string_view key;
    if (error_code e = KeyOf(field, &key)) return e;
    od::value v = field.value();
    if (error_code e = CheckValueEnd(v)) return e;
    const FieldTarget target = ArgsFieldOf(key, ev);
    if (target.read == FieldRead::kSkip) continue;
    if (error_code e = ReadField(target, v, ev)) return e;
  }
  return simdjson::SUCCESS;
}

}  // namespace

od::parser& ThreadParser() {
  thread_local od::parser parser;
  return parser;
}

error_code CaptureEvent(od::object& obj, RawEvent* ev) {
  ResetEvent(ev);
  for (auto field_result : obj) {
    if (error_code e = field_result.error()) return e;
    od::field&& field = std::move(field_result).value_unsafe();  // no copy, see CaptureArgs
    std::string_view key;
    if (error_code e = KeyOf(field, &key)) return e;
    od::value v = field.value();
    if (error_code e = CheckValueEnd(v)) return e;
    const FieldTarget target = EventFieldOf(key, ev);
    if (target.read == FieldRead::kSkip) continue;
    if (error_code e = ReadField(target, v, ev)) return e;
  }
  return simdjson::SUCCESS;
}

}  // namespace trainscope::formats::trace
