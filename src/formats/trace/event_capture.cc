#include "formats/trace/event_capture.h"

#include <cstring>
#include <utility>

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// key == literal for keys already known to have the literal's length: a
// fixed-size compare the compiler turns into one or two loads, not a call.
template <size_t N>
bool Is(std::string_view key, const char (&literal)[N]) {
  return std::memcmp(key.data(), literal, N - 1) == 0;
}

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

// NOLINTNEXTLINE(readability-function-cognitive-complexity): HACKING.md, "Complexity debt"
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
    std::string_view* target = nullptr;
    std::string_view* array = nullptr;
    bool raw = true;
    switch (key.size()) {
      case 4:
        if (Is(key, "name")) target = &ev->arg_name, raw = false;
        break;
      case 5:
        if (Is(key, "Bytes"))
          target = &ev->bytes;
        else if (Is(key, "dtype"))
          target = &ev->dtype, raw = false;
        break;
      case 6:
        if (Is(key, "stream"))
          target = &ev->stream;
        else if (Is(key, "device"))
          target = &ev->device;
        else if (Is(key, "labels"))
          target = &ev->labels, raw = false;
        break;
      case 9:
        if (Is(key, "Device Id"))
          target = &ev->device_id;
        else if (Is(key, "Task Type"))
          target = &ev->task_type, raw = false;
        break;
      case 10:
        if (Is(key, "Group size"))
          target = &ev->group_size;
        else if (Is(key, "Call stack"))
          target = &ev->call_stack, raw = false;
        else if (Is(key, "Input Dims"))
          array = &ev->input_dims;
        else if (Is(key, "Input type"))
          array = &ev->input_types;
        break;
      case 11:
        if (Is(key, "External id"))
          target = &ev->external_id;
        else if (Is(key, "correlation"))
          target = &ev->correlation;
        else if (Is(key, "Device Type"))
          target = &ev->device_type;
        break;
      case 13:
        if (Is(key, "In msg nelems")) target = &ev->in_nelems;
        break;
      case 14:
        if (Is(key, "Out msg nelems"))
          target = &ev->out_nelems;
        else if (Is(key, "Total Reserved"))
          target = &ev->total_reserved;
        break;
      case 15:
        if (Is(key, "Collective name"))
          target = &ev->coll_name, raw = false;
        else if (Is(key, "Total Allocated"))
          target = &ev->total_allocated;
        break;
      case 18:
        if (Is(key, "Process Group Name")) target = &ev->pg_name, raw = false;
        break;
      case 19:
        if (Is(key, "Process Group Ranks")) target = &ev->pg_ranks, raw = false;
        break;
      case 25:
        if (Is(key, "Process Group Description")) target = &ev->pg_desc, raw = false;
        break;
      default:
        break;
    }
    if (target != nullptr) {
      if (error_code e = raw ? RawToken(v, target) : Token(v, target)) return e;
    } else if (array != nullptr) {
      if (error_code e = RawArray(v, array)) return e;
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

od::parser& ThreadParser() {
  thread_local od::parser parser;
  return parser;
}

error_code CaptureEvent(od::object& obj, RawEvent* ev) {
  *ev = RawEvent{};
  for (auto field_result : obj) {
    if (error_code e = field_result.error()) return e;
    od::field&& field = std::move(field_result).value_unsafe();  // no copy, see CaptureArgs
    std::string_view key;
    if (error_code e = KeyOf(field, &key)) return e;
    od::value v = field.value();
    if (error_code e = CheckValueEnd(v)) return e;
    error_code e = simdjson::SUCCESS;
    switch (key.size()) {
      case 2:
        if (Is(key, "ph"))
          e = Token(v, &ev->ph);
        else if (Is(key, "ts"))
          e = RawToken(v, &ev->ts);
        else if (Is(key, "id"))
          e = RawToken(v, &ev->id);
        else if (Is(key, "bp"))
          e = Token(v, &ev->bp);
        break;
      case 3:
        if (Is(key, "cat"))
          e = Token(v, &ev->cat);
        else if (Is(key, "pid"))
          e = RawToken(v, &ev->pid);
        else if (Is(key, "tid"))
          e = RawToken(v, &ev->tid);
        else if (Is(key, "dur"))
          e = RawToken(v, &ev->dur);
        break;
      case 4:
        if (Is(key, "name"))
          e = Token(v, &ev->name);
        else if (Is(key, "args"))
          e = CaptureArgs(v, ev);
        break;
      default:
        break;
    }
    if (e) return e;
  }
  return simdjson::SUCCESS;
}

}  // namespace trainscope::formats::trace
