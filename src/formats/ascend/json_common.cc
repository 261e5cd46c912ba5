#include "formats/ascend/json_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "formats/trace/json_layout.h"

namespace trainscope::formats {

Status JsonError(const std::string& label, simdjson::error_code error) {
  return InvalidInput(fmt::format("{}: invalid JSON ({})", label, simdjson::error_message(error)));
}

simdjson::error_code JsonValueToString(simdjson::ondemand::value value, std::string* out) {
  simdjson::ondemand::json_type type;
  if (auto error = value.type().get(type)) return error;
  if (type == simdjson::ondemand::json_type::string) {
    std::string_view text;
    if (auto error = value.get_string().get(text)) return error;
    out->assign(text);
    return simdjson::SUCCESS;
  }
  if (type == simdjson::ondemand::json_type::null) {
    out->clear();
    return simdjson::SUCCESS;
  }
  std::string_view raw = value.raw_json_token();
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) {
    raw.remove_suffix(1);
  }
  out->assign(raw);
  return simdjson::SUCCESS;
}

simdjson::error_code ForEachJsonField(simdjson::ondemand::object object,
                                      const JsonFieldFn& on_field) {
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    if (auto error = on_field(key, field.value())) return error;
  }
  return simdjson::SUCCESS;
}

Status ForEachTopLevelJsonField(std::string_view json, const std::string& label,
                                const JsonFieldFn& on_field) {
  simdjson::padded_string padded(json.data(), json.size());
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (auto error = parser.iterate(padded).get(doc)) return JsonError(label, error);
  simdjson::ondemand::object root;
  if (auto error = doc.get_object().get(root)) return JsonError(label, error);
  if (auto error = ForEachJsonField(root, on_field)) return JsonError(label, error);
  return Status::Ok();
}

namespace {

struct Piece {
  size_t begin = 0;  // the key's opening quote
  size_t end = 0;    // one past the value
};

// The top-level fields of |json| as [key, value end) ranges, or false where
// the light scan meets anything it does not expect (then the whole parse
// decides what the text is). Whitespace, ':' and ',' between the pieces are
// checked here, everything inside a piece by simdjson. |release| (may be
// empty) is given the bytes scanned, field by field: a mapped file is then
// not resident whole while the scan runs (communication.json is read beside
// kernel_details.csv, whose table is the peak of a big rank); the pieces
// are read again after.
bool CutTopLevelFields(std::string_view json, std::vector<Piece>* pieces,
                       const std::function<void(size_t begin, size_t end)>& release) {
  using trace::SkipSpace;
  constexpr size_t kNpos = std::string_view::npos;
  size_t i = SkipSpace(json, 0);
  if (i >= json.size() || json[i] != '{') return false;
  i = SkipSpace(json, i + 1);
  if (i < json.size() && json[i] == '}') return SkipSpace(json, i + 1) == json.size();
  while (true) {
    if (i >= json.size() || json[i] != '"') return false;
    Piece piece;
    piece.begin = i;
    i = trace::StringEnd(json, i);
    if (i == kNpos) return false;
    i = SkipSpace(json, i);
    if (i >= json.size() || json[i] != ':') return false;
    i = SkipSpace(json, i + 1);
    piece.end = trace::ValueEnd(json, i);
    if (piece.end == kNpos || piece.end == i) return false;
    pieces->push_back(piece);
    if (release) release(piece.begin, piece.end);
    i = SkipSpace(json, piece.end);
    if (i >= json.size()) return false;
    if (json[i] == '}') return SkipSpace(json, i + 1) == json.size();
    if (json[i] != ',') return false;
    i = SkipSpace(json, i + 1);
  }
}

}  // namespace

Status ForEachTopLevelJsonFieldPiecewise(std::string_view json, const std::string& label,
                                         const JsonFieldFn& on_field,
                                         const PiecewiseOptions& options) {
  std::vector<Piece> pieces;
  if (json.size() < options.pieces_from || !CutTopLevelFields(json, &pieces, options.release)) {
    return ForEachTopLevelJsonField(json, label, on_field);
  }
  size_t largest = 0;
  for (const Piece& piece : pieces) largest = std::max(largest, piece.end - piece.begin);
  // "{" piece "}" plus simdjson's readable padding, reused for every piece.
  const size_t capacity = largest + 2;
  std::vector<char> buffer(capacity + simdjson::SIMDJSON_PADDING);
  simdjson::ondemand::parser parser;
  if (auto error = parser.allocate(capacity)) return JsonError(label, error);
  size_t released = 0;
  for (const Piece& piece : pieces) {
    const size_t length = piece.end - piece.begin;
    buffer[0] = '{';
    std::memcpy(buffer.data() + 1, json.data() + piece.begin, length);
    buffer[length + 1] = '}';
    std::memset(buffer.data() + length + 2, 0, simdjson::SIMDJSON_PADDING);
    // The piece is parsed from the copy: its bytes in |json| go now, not
    // after the parse (a mapped communication.json's step is 16-27 MB).
    if (options.release) {
      options.release(released, piece.end);
      released = piece.end;
    }
    simdjson::ondemand::document doc;
    const simdjson::padded_string_view text(buffer.data(), length + 2, buffer.size());
    if (auto error = parser.iterate(text).get(doc)) return JsonError(label, error);
    simdjson::ondemand::object object;
    if (auto error = doc.get_object().get(object)) return JsonError(label, error);
    if (auto error = ForEachJsonField(object, on_field)) return JsonError(label, error);
  }
  return Status::Ok();
}

}  // namespace trainscope::formats
