// ForEachTopLevelJsonFieldPiecewise (formats/ascend/json_common.h) walks the
// same fields with the same values as the whole-document walk, falls back to
// it where its light scan cannot follow the text, and releases each piece
// after the scan that cuts it and after its parse.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "communication_equal.h"
#include "formats/ascend/communication_reader.h"
#include "formats/ascend/json_common.h"

namespace trainscope::formats {
namespace {

namespace od = simdjson::ondemand;

struct Walk {
  bool ok = false;
  std::string error;
  std::vector<std::pair<std::string, std::string>> fields;  // key, raw value text
};

Walk WalkWith(std::string_view json, bool piecewise, PiecewiseOptions options = {}) {
  Walk walk;
  auto on_field = [&](std::string_view key, od::value value) -> simdjson::error_code {
    std::string text;
    if (auto error = JsonValueToString(value, &text)) return error;
    walk.fields.emplace_back(std::string(key), text);
    return simdjson::SUCCESS;
  };
  options.pieces_from = 0;
  const Status status = piecewise ? ForEachTopLevelJsonFieldPiecewise(json, "t", on_field, options)
                                  : ForEachTopLevelJsonField(json, "t", on_field);
  walk.ok = status.ok();
  walk.error = status.message();
  return walk;
}

TEST(JsonPiecewise, SameFieldsAsTheWholeDocument) {
  const std::vector<std::string> documents = {
      R"({"step5": {"a": 1}, "step6": {"b": [1, 2, {"c": "}]"}]}})",
      "  {\n\t\"a\" :  \"x\\\"}\" ,\"b\":[] , \"c\" : null, \"d\": 12.5e3 }  \n",
      R"({"k\u0041y": "v", "e\"sc": {"q": "{[\\"}})",
      R"({})",
      R"({"only": true})",
  };
  for (const std::string& json : documents) {
    const Walk whole = WalkWith(json, false);
    const Walk pieces = WalkWith(json, true);
    ASSERT_TRUE(whole.ok) << json << ": " << whole.error;
    EXPECT_TRUE(pieces.ok) << json << ": " << pieces.error;
    EXPECT_EQ(pieces.fields, whole.fields) << json;
  }
  // Unescaped keys, as the whole walk gives them.
  EXPECT_EQ(WalkWith(R"({"k\u0041y": 1})", true).fields[0].first, "kAy");
}

TEST(JsonPiecewise, OddLayoutsFallBackToTheWholeParse) {
  // Not an object, a trailing comma, trailing text, a missing colon, an
  // unterminated value: the light scan stops and the whole parse answers,
  // so the outcome and message are the whole parse's.
  const std::vector<std::string> documents = {
      R"([1, 2])",         R"({"a": 1,})",       R"({"a": 1} x)", R"({"a" 1})",
      R"({"a": {"b": 1})", R"({"a": 1 "b": 2})", R"()",           R"({"a": })",
  };
  for (const std::string& json : documents) {
    const Walk whole = WalkWith(json, false);
    const Walk pieces = WalkWith(json, true);
    EXPECT_EQ(pieces.ok, whole.ok) << json;
    EXPECT_EQ(pieces.error, whole.error) << json;
    EXPECT_EQ(pieces.fields, whole.fields) << json;
  }
}

TEST(JsonPiecewise, AnErrorInsideAPieceIsAnError) {
  // The cut is clean but the second value is not valid UTF-8: the piece's
  // parse fails as the whole document's does (which fails before walking
  // anything), the fields before it were walked, the error names the file.
  const std::string json = "{\"a\": 1, \"b\": {\"x\": \"\xff\"}, \"c\": 3}";
  EXPECT_FALSE(WalkWith(json, false).ok);
  const Walk pieces = WalkWith(json, true);
  EXPECT_FALSE(pieces.ok);
  EXPECT_NE(pieces.error.find("t: invalid JSON"), std::string::npos) << pieces.error;
  ASSERT_EQ(pieces.fields.size(), 1u);
  EXPECT_EQ(pieces.fields[0].first, "a");
}

TEST(JsonPiecewise, ReleasesEachPieceAfterTheCutScanAndOnceCopiedForItsParse) {
  const std::string json = R"({"a": {"x": 1}, "b": [2], "c": "3"})";
  std::vector<std::pair<size_t, size_t>> released;
  PiecewiseOptions options;
  options.release = [&](size_t begin, size_t end) { released.emplace_back(begin, end); };
  ASSERT_TRUE(WalkWith(json, true, options).ok);
  ASSERT_EQ(released.size(), 6u);
  // The scan that cuts the pieces gives each piece back as it passes it
  // (key to value end)...
  EXPECT_EQ(released[0], std::make_pair(json.find("\"a\""), json.find(", \"b\"")));
  EXPECT_EQ(released[1], std::make_pair(json.find("\"b\""), json.find(", \"c\"")));
  EXPECT_EQ(released[2], std::make_pair(json.find("\"c\""), json.rfind('"') + 1));
  // ...then the walk, one range per piece as it is copied to be parsed,
  // contiguous from the start, the last ending at "3"'s closing quote;
  // nothing after the piece being walked.
  EXPECT_EQ(released[3].first, 0u);
  EXPECT_EQ(released[4].first, released[3].second);
  EXPECT_EQ(released[5].first, released[4].second);
  EXPECT_EQ(released[3].second, json.find(", \"b\""));
  EXPECT_EQ(released[5].second, json.rfind('"') + 1);
}

TEST(JsonPiecewise, CommunicationFileReadInPiecesEqualsTheWholeRead) {
  std::string json = "{";
  for (int step = 1; step <= 3; ++step) {
    if (step > 1) json += ", ";
    json += "\"step" + std::to_string(step) + "\": {\"p2p\": {}, \"collective\": {";
    for (int op = 0; op < 4; ++op) {
      if (op > 0) json += ", ";
      json += "\"hcom_allReduce__" + std::to_string(op) +
              "_1_1@77\": {\"Communication Time Info\": {\"Start Timestamp(us)\": " +
              std::to_string(1000 * step + op) + ".5, \"Elapse Time(ms)\": 0." +
              std::to_string(op + 1) + ", \"Wait Time(ms)\": -1}}";
    }
    json += "}}";
  }
  json += "}";
  model::CommunicationData whole;
  model::CommunicationData pieces;
  ASSERT_TRUE(ParseCommunication(json, "c", &whole, PiecewiseOptions{json.size() + 1, {}}).ok());
  ASSERT_TRUE(ParseCommunication(json, "c", &pieces, PiecewiseOptions{0, {}}).ok());
  ASSERT_EQ(pieces.ops.size(), 12u);
  // Equal ops; the negative wait of every op is one note in both reads.
  testing::ExpectSameCommunication(whole, pieces);
  EXPECT_EQ(pieces.ops[11].step, 3);
  ASSERT_EQ(pieces.notes.size(), 1u);
}

}  // namespace
}  // namespace trainscope::formats
