#include "report/json_writer.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

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
