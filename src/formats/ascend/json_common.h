// Small helpers shared by the simdjson (ondemand) readers of profiler JSON.
#pragma once

#include <simdjson.h>

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace trainscope::formats {

// InvalidInput "<label>: invalid JSON (<simdjson message>)".
Status JsonError(const std::string& label, simdjson::error_code error);

// Strings as their text, numbers/bools as written, null as "".
simdjson::error_code JsonValueToString(simdjson::ondemand::value value, std::string* out);

// Called with each key (unescaped) and value of an object, in document order;
// a non-SUCCESS return stops the walk and is returned.
using JsonFieldFn =
    std::function<simdjson::error_code(std::string_view key, simdjson::ondemand::value value)>;

// Walks the fields of |object| with |on_field|.
simdjson::error_code ForEachJsonField(simdjson::ondemand::object object,
                                      const JsonFieldFn& on_field);

// Parses |json| as an object and walks its top-level fields with |on_field|.
// Any error, of the syntax or from |on_field|, becomes JsonError(|label|, ...).
Status ForEachTopLevelJsonField(std::string_view json, const std::string& label,
                                const JsonFieldFn& on_field);

// Options of ForEachTopLevelJsonFieldPiecewise.
struct PiecewiseOptions {
  // Documents smaller than this are parsed whole (0: always in pieces).
  size_t pieces_from = size_t{1} << 20;
  // Called with [begin, end) of |json| whose bytes may leave memory for now
  // (a mapped file's pages go back, and come back from the page cache when
  // read again): each field once the scan that cuts the pieces has passed
  // it, and again once it is copied to be parsed; may be empty.
  std::function<void(size_t begin, size_t end)> release;
};

// ForEachTopLevelJsonField for documents whose top-level values are large
// and independent (communication.json: one object per step, each a third
// of a 50 MB file): each field is parsed alone, as the document
// {"key": value}, by one parser sized to the largest field, so the
// structural index and the padded copy are of one field, not of the file.
// The cuts are found by a light scan (strings and brackets matched); where
// it cannot follow the text, the document is parsed whole, which is the
// reference behaviour. Unlike ForEachTopLevelJsonField, the views |on_field|
// is handed are valid during that call only.
Status ForEachTopLevelJsonFieldPiecewise(std::string_view json, const std::string& label,
                                         const JsonFieldFn& on_field,
                                         const PiecewiseOptions& options = {});

}  // namespace trainscope::formats
