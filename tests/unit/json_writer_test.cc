#include "report/json_writer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace trainscope::report {
namespace {

TEST(JsonWriterTest, WritesNestedStructuresCompactly) {
  JsonWriter w(/*pretty=*/false);
  w.BeginObject();
  w.Field("a", int64_t{1});
  w.Key("b").BeginArray().Int(1).Double(2.5).Null().Bool(true).EndArray();
  w.Key("c").BeginObject().EndObject();
  w.Field("d", std::string("x"));
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"a":1,"b":[1,2.5,null,true],"c":{},"d":"x"})");
}

TEST(JsonWriterTest, UnknownIsNullNeverZeroOrEmpty) {
  JsonWriter w(/*pretty=*/false);
  w.BeginObject();
  w.Field("seq", std::optional<int64_t>());
  w.Field("known", std::optional<int64_t>(0));
  w.Field("name", std::optional<std::string>());
  w.Field("op", std::optional<std::string>("nccl:all_reduce"));
  w.Key("state").StringOrNull("");
  w.Key("desc").StringOrNull("default_pg");
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"seq":null,"known":0,"name":null,"op":"nccl:all_reduce","state":null,)"
                     R"("desc":"default_pg"})");
}

TEST(JsonWriterTest, EscapesUntrustedStrings) {
  JsonWriter w(false);
  w.String("a\"b\\c\n<script>\x01");
  EXPECT_EQ(w.str(), R"("a\"b\\c\n\u003cscript\u003e\u0001")");
}

TEST(JsonWriterTest, DoublesAreTrimmedAndNonFiniteIsNull) {
  JsonWriter w(false);
  w.BeginArray()
      .Double(12.5)
      .Double(3.0)
      .Double(0.1234567, 6)
      .Double(1.0 / 0.0)
      .Double(-0.0)
      .EndArray();
  EXPECT_EQ(w.str(), "[12.5,3,0.123457,null,0]");
}

// Double's digits are printf's "%.*f" (through std::to_chars), trimmed as
// before: the same text as fmt's "{:.{}f}" gave, on random bit patterns,
// sums of halves (ties, where rounding rules differ) and decimal fractions.
TEST(JsonWriterTest, DoublesAreWhatTheFormatStringWrote) {
  auto trimmed = [](double value, int decimals) {
    std::string text = fmt::format("{:.{}f}", value, decimals);
    if (text.find('.') != std::string::npos) {
      while (text.back() == '0') text.pop_back();
      if (text.back() == '.') text.pop_back();
    }
    return text == "-0" ? std::string("0") : text;
  };
  std::mt19937_64 random(53);
  std::vector<std::pair<double, int>> cases;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bits = random();
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    if (std::isfinite(value)) cases.emplace_back(value, i % 7);
    cases.emplace_back(std::ldexp(static_cast<double>(random() % 1000000), -(i % 30)), i % 7);
    cases.emplace_back(-static_cast<double>(random() % 100000000) / 1000.0, i % 7);
    cases.emplace_back(static_cast<double>(i) / 8.0, i % 4);  // ties at every precision below 3
  }
  cases.emplace_back(1.7976931348623157e308, 6);
  cases.emplace_back(-0.0004, 3);
  for (const auto& [value, decimals] : cases) {
    JsonWriter w(false);
    w.Double(value, decimals);
    ASSERT_EQ(w.str(), trimmed(value, decimals)) << value << " with " << decimals << " decimals";
  }
}

// Each ASCII byte on its own: the short escapes, \u00XX for control bytes,
// DEL and <, > and &, and the rest as it is.
TEST(JsonWriterTest, EveryAsciiByteIsEscapedByTheRule) {
  for (int c = 0; c < 0x80; ++c) {
    std::string expected;
    switch (c) {
      case '"':
        expected = "\\\"";
        break;
      case '\\':
        expected = "\\\\";
        break;
      case '\n':
        expected = "\\n";
        break;
      case '\r':
        expected = "\\r";
        break;
      case '\t':
        expected = "\\t";
        break;
      default:
        expected = c < 0x20 || c == 0x7F || c == '<' || c == '>' || c == '&'
                       ? fmt::format("\\u{:04x}", c)
                       : std::string(1, static_cast<char>(c));
    }
    std::string out;
    AppendJsonEscaped(&out, std::string(1, static_cast<char>(c)));
    EXPECT_EQ(out, "\"" + expected + "\"") << "byte " << c;
  }
}

// Strings with runs of verbatim bytes between the ones escaped, UTF-8 kept,
// ill-formed UTF-8 replaced: the runs are appended whole, the rest as before.
TEST(JsonWriterTest, EscapesBetweenRunsOfPlainBytes) {
  JsonWriter w(false);
  w.String("plain \"q\" tab\there & <b> caf\xc3\xa9 bad\xff end\x7f");
  EXPECT_EQ(
      w.str(),
      "\"plain \\\"q\\\" tab\\there \\u0026 \\u003cb\\u003e caf\xc3\xa9 bad\\ufffd end\\u007f\"");
  JsonWriter empty(false);
  empty.String("");
  EXPECT_EQ(empty.str(), "\"\"");
}

}  // namespace
}  // namespace trainscope::report

namespace trainscope::report {
namespace {

// Streamed output (StreamTo) is the same bytes as the whole document, in
// chunks of about kChunkBytes.
TEST(JsonWriterTest, StreamedChunksConcatenateToTheWholeDocument) {
  auto write = [](JsonWriter& w) {
    w.BeginArray();
    for (int i = 0; i < 200000; ++i)
      w.BeginObject().Field("i", i).Field("name", "kernel").EndObject();
    w.EndArray();
  };
  JsonWriter whole;
  write(whole);
  std::string streamed;
  size_t chunks = 0;
  JsonWriter w;
  w.StreamTo([&](std::string_view chunk) {
    EXPECT_LE(chunk.size(), JsonWriter::kChunkBytes + 4096);
    streamed.append(chunk);
    ++chunks;
  });
  write(w);
  w.Flush();
  EXPECT_EQ(streamed, whole.str());
  EXPECT_GT(whole.str().size(), 4 * JsonWriter::kChunkBytes);
  EXPECT_GE(chunks, 4u);
}

}  // namespace
}  // namespace trainscope::report
