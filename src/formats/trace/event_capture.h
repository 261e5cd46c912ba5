// Reading one Chrome-trace event object into a RawEvent (the per-event hot
// path shared by the whole-document scan and the chunked scan).
#pragma once

#include <simdjson.h>

#include <string_view>

#include "formats/trace/chrome_json.h"

namespace trainscope::formats::trace {

// Key text of |field|; keys without escapes are returned raw (no copy).
simdjson::error_code KeyOf(simdjson::ondemand::field& field, std::string_view* key);

// Fills |ev| from the fields of |obj| (unknown fields are skipped). Views
// point into the parsed buffer and the parser's string buffer.
simdjson::error_code CaptureEvent(simdjson::ondemand::object& obj, RawEvent* ev);

// Whether the iteration consumed the whole document (simdjson 3.0 has no
// document::at_end; current_location reports OUT_OF_BOUNDS there). Without
// this check "[{...}] garbage" would pass as intact.
inline bool AtDocumentEnd(simdjson::ondemand::document& doc) {
  return doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
}

}  // namespace trainscope::formats::trace
