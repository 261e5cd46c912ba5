// Which fields of a Chrome-trace event are read, into which RawEvent member
// and how: the one table both event readers use (CaptureEvent over
// simdjson, PlainEventReader over plain text), so that they can never
// disagree on a key.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "formats/trace/chrome_json.h"

namespace trainscope::formats::trace {

enum class FieldRead : uint8_t {
  kSkip,   // not read: the value is skipped
  kText,   // a string's text (unescaped); a number, true/false or null as its raw token
  kRaw,    // the raw token, quotes of a string kept (timestamps and ids as strings)
  kArray,  // an array's raw JSON text ("Input Dims"); anything else is left out
  kArgs,   // the "args" object, read with ArgsFieldOf
};

struct FieldTarget {
  FieldRead read = FieldRead::kSkip;
  std::string_view* into = nullptr;
};

namespace field_detail {

// key == literal for keys already known to have the literal's length: a
// fixed-size compare the compiler turns into one or two loads, not a call.
template <size_t N>
inline bool Is(std::string_view key, const char (&literal)[N]) {
  return std::memcmp(key.data(), literal, N - 1) == 0;
}

}  // namespace field_detail

// A field at the top level of an event. Inline: it runs for every field of
// every event.
inline FieldTarget EventFieldOf(std::string_view key, RawEvent* ev) {
  using field_detail::Is;
  switch (key.size()) {
    case 2:
      if (Is(key, "ph")) return {FieldRead::kText, &ev->ph};
      if (Is(key, "ts")) return {FieldRead::kRaw, &ev->ts};
      if (Is(key, "id")) return {FieldRead::kRaw, &ev->id};
      if (Is(key, "bp")) return {FieldRead::kText, &ev->bp};
      break;
    case 3:
      if (Is(key, "cat")) return {FieldRead::kText, &ev->cat};
      if (Is(key, "pid")) return {FieldRead::kRaw, &ev->pid};
      if (Is(key, "tid")) return {FieldRead::kRaw, &ev->tid};
      if (Is(key, "dur")) return {FieldRead::kRaw, &ev->dur};
      break;
    case 4:
      if (Is(key, "name")) return {FieldRead::kText, &ev->name};
      if (Is(key, "args")) return {FieldRead::kArgs, nullptr};
      break;
    default:
      break;
  }
  return {};
}

// A field of an event's "args" object.
// NOLINTNEXTLINE(readability-function-cognitive-complexity): one flat switch on the key's length
inline FieldTarget ArgsFieldOf(std::string_view key, RawEvent* ev) {
  using field_detail::Is;
  switch (key.size()) {
    case 4:
      if (Is(key, "name")) return {FieldRead::kText, &ev->arg_name};
      break;
    case 5:
      if (Is(key, "Bytes")) return {FieldRead::kRaw, &ev->bytes};
      if (Is(key, "dtype")) return {FieldRead::kText, &ev->dtype};
      if (Is(key, "count")) return {FieldRead::kRaw, &ev->hccl_count};
      break;
    case 6:
      if (Is(key, "stream")) return {FieldRead::kRaw, &ev->stream};
      if (Is(key, "device")) return {FieldRead::kRaw, &ev->device};
      if (Is(key, "labels")) return {FieldRead::kText, &ev->labels};
      break;
    case 9:
      if (Is(key, "Device Id")) return {FieldRead::kRaw, &ev->device_id};
      if (Is(key, "Task Type")) return {FieldRead::kText, &ev->task_type};
      if (Is(key, "data_type")) return {FieldRead::kText, &ev->hccl_data_type};
      if (Is(key, "rank_size")) return {FieldRead::kRaw, &ev->hccl_rank_size};
      break;
    case 10:
      if (Is(key, "Group size")) return {FieldRead::kRaw, &ev->group_size};
      if (Is(key, "Call stack")) return {FieldRead::kText, &ev->call_stack};
      if (Is(key, "Input Dims")) return {FieldRead::kArray, &ev->input_dims};
      if (Is(key, "Input type")) return {FieldRead::kArray, &ev->input_types};
      break;
    case 11:
      if (Is(key, "External id")) return {FieldRead::kRaw, &ev->external_id};
      if (Is(key, "correlation")) return {FieldRead::kRaw, &ev->correlation};
      if (Is(key, "Device Type")) return {FieldRead::kRaw, &ev->device_type};
      break;
    case 13:
      if (Is(key, "In msg nelems")) return {FieldRead::kRaw, &ev->in_nelems};
      break;
    case 14:
      if (Is(key, "Out msg nelems")) return {FieldRead::kRaw, &ev->out_nelems};
      if (Is(key, "Total Reserved")) return {FieldRead::kRaw, &ev->total_reserved};
      break;
    case 15:
      if (Is(key, "Collective name")) return {FieldRead::kText, &ev->coll_name};
      if (Is(key, "Total Allocated")) return {FieldRead::kRaw, &ev->total_allocated};
      break;
    case 18:
      if (Is(key, "Process Group Name")) return {FieldRead::kText, &ev->pg_name};
      break;
    case 19:
      if (Is(key, "Process Group Ranks")) return {FieldRead::kText, &ev->pg_ranks};
      break;
    case 25:
      if (Is(key, "Process Group Description")) return {FieldRead::kText, &ev->pg_desc};
      break;
    default:
      break;
  }
  return {};
}

}  // namespace trainscope::formats::trace
