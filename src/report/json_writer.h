// JsonWriter: a minimal streaming JSON emitter for reports.
//
// Keeps commas and nesting right and escapes every string (profile strings
// are untrusted): the output is always valid UTF-8 (ill-formed sequences
// become U+FFFD) with every control character escaped as \u00XX. Numbers: doubles are written with
// up to 6 significant decimals after the point trimmed ("12.5", not "12.500000"); non-finite values
// become null because JSON has no NaN.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::report {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Double(double value, int decimals = 3);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // |value|, or null when it is empty (text fields where empty means unknown).
  JsonWriter& StringOrNull(std::string_view value);

  // Convenience: Key(k) then the value; an empty std::optional is null.
  template <typename T>
  JsonWriter& Field(std::string_view key, const T& value);

  const std::string& str() const { return out_; }

  // Hands the output to |sink| in chunks of about kChunkBytes instead of
  // keeping it whole (a report of 10,000 ranks is gigabytes of JSON); str()
  // then holds only what Flush() has not passed on yet.
  using Sink = std::function<void(std::string_view)>;
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  void StreamTo(Sink sink) { sink_ = std::move(sink); }
  // Passes the buffered output to the sink (nothing without one).
  void Flush();

 private:
  void BeforeValue();
  void Newline();

  void MaybeFlush() {
    if (sink_ && out_.size() >= kChunkBytes) Flush();
  }

  bool pretty_;
  std::string out_;
  Sink sink_;
  struct Level {
    bool is_object;
    bool has_items;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
};

void AppendJsonEscaped(std::string* out, std::string_view text);

template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

template <typename T>
JsonWriter& JsonWriter::Field(std::string_view key, const T& value) {
  if constexpr (kIsOptional<T>) {
    if (!value) return Key(key).Null();
    return Field(key, *value);
  } else {
    Key(key);
    if constexpr (std::is_same_v<T, bool>) {
      return Bool(value);
    } else if constexpr (std::is_integral_v<T>) {
      return Int(static_cast<int64_t>(value));
    } else if constexpr (std::is_floating_point_v<T>) {
      return Double(static_cast<double>(value));
    } else {
      return String(value);
    }
  }
}

}  // namespace trainscope::report
