// Reading one Chrome-trace event object into a RawEvent (the per-event hot
// path shared by the whole-document scan and the chunked scan).
#pragma once

#include <simdjson.h>

#include <string_view>

#include "formats/trace/chrome_json.h"

namespace trainscope::formats::trace {

// Key text of |field|; keys without escapes are returned raw (no copy):
// keys in traces never contain escapes, so the raw bytes up to the closing
// quote are the key (escaped keys take the unescaping path). Inline: it runs
// for every field of every event, and a call made the compiler spill and
// reload the field around it.
inline simdjson::error_code KeyOf(simdjson::ondemand::field& field, std::string_view* key) {
  const char* raw = field.key().raw();
  const char* p = raw;
  while (*p != '"' && *p != '\\') ++p;
  if (*p == '"') {
    *key = std::string_view(raw, static_cast<size_t>(p - raw));
    return simdjson::SUCCESS;
  }
  return field.unescaped_key().get(*key);
}

// Fills |ev| from the fields of |obj| (unknown fields are skipped). Views
// point into the parsed buffer and the parser's string buffer.
simdjson::error_code CaptureEvent(simdjson::ondemand::object& obj, RawEvent* ev);

// One ondemand parser per thread, reused across documents and files: its
// buffers are the only large allocation of a whole-document scan.
simdjson::ondemand::parser& ThreadParser();

// Whether the iteration consumed the whole document (simdjson 3.0 has no
// document::at_end; current_location reports OUT_OF_BOUNDS there). Without
// this check "[{...}] garbage" would pass as intact.
inline bool AtDocumentEnd(simdjson::ondemand::document& doc) {
  return doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
}

}  // namespace trainscope::formats::trace
