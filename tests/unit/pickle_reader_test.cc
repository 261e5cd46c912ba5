// The data-only pickle reader (formats/pickle): the byte strings are hand
// built or what CPython's pickle.dumps wrote for the value in the comment.
#include "formats/pickle/pickle_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::formats {
namespace {

using namespace std::string_view_literals;

std::unique_ptr<PickleDocument> PickleOk(std::string_view bytes, const PickleLimits& limits = {}) {
  auto doc = ReadPickle(bytes, "t.pkl", limits);
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  return doc.ok() ? std::move(*doc) : nullptr;
}

std::string PickleError(std::string_view bytes, const PickleLimits& limits = {}) {
  auto doc = ReadPickle(bytes, "t.pkl", limits);
  EXPECT_FALSE(doc.ok());
  return doc.ok() ? std::string() : doc.status().message();
}

// {'version': '2.9', 'n': [2**64, -2**64, 2**63-1, -2**63, -1, 0, 255, 65535, 2**31]}, protocol 2.
constexpr std::string_view kPickleProtocol2Ints =
    "\x80\x02}q\x00(X\x07\x00\x00\x00versionq\x01X\x03\x00\x00\x00"
    "2.9q\x02X\x01\x00\x00\x00nq\x03]q\x04(\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01\x8a\x09"
    "\x00\x00\x00\x00\x00\x00\x00\x00\xff\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f\x8a\x08\x00\x00"
    "\x00\x00\x00\x00\x00\x80J\xff\xff\xff\xffK\x00K\xffM\xff\xff\x8a\x05\x00\x00\x00\x80\x00"
    "eu."sv;

TEST(PickleReader, ReadsProtocol2DictOfStringsAndInts) {
  auto doc = PickleOk(kPickleProtocol2Ints);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->protocol(), 2);
  const PickleValue root = doc->root();
  ASSERT_EQ(root.kind(), PickleKind::kDict);
  EXPECT_EQ(root.size(), 2U);
  EXPECT_EQ(root.key(0).AsString(), "version");
  EXPECT_EQ(root.Get("version")->AsString(), "2.9");
  EXPECT_FALSE(root.Get("absent").has_value());
  const PickleValue n = *root.Get("n");
  ASSERT_EQ(n.kind(), PickleKind::kList);
  ASSERT_EQ(n.size(), 9U);
  // LONG1 of 9 bytes: beyond int64, kept as decimal text.
  EXPECT_EQ(n.at(0).kind(), PickleKind::kBigInt);
  EXPECT_EQ(n.at(0).BigIntText(), "18446744073709551616");
  EXPECT_FALSE(n.at(0).AsInt().has_value());
  EXPECT_EQ(n.at(1).BigIntText(), "-18446744073709551616");
  EXPECT_EQ(n.at(2).AsInt(), INT64_MAX);  // LONG1 of 8 bytes
  EXPECT_EQ(n.at(3).AsInt(), INT64_MIN);
  EXPECT_EQ(n.at(4).AsInt(), -1);  // BININT
  EXPECT_EQ(n.at(5).AsInt(), 0);   // BININT1
  EXPECT_EQ(n.at(6).AsInt(), 255);
  EXPECT_EQ(n.at(7).AsInt(), 65535);       // BININT2
  EXPECT_EQ(n.at(8).AsInt(), 2147483648);  // LONG1 of 5 bytes
  EXPECT_EQ(doc->stop_offset(), kPickleProtocol2Ints.size() - 1);
}

TEST(PickleReader, ReadsProtocol4FramesShortStringsAndMemoize) {
  // {'a': [1, 2], 'b': (None, True, False), 'c': 1.5, 'd': b'xy', 'e': 'é'}, protocol 4.
  const std::string_view bytes =
      "\x80\x04\x95"
      "9\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x01"
      "a\x94]\x94(K\x01K\x02"
      "e\x8c\x01"
      "b\x94N\x88\x89\x87\x94\x8c\x01"
      "c\x94G\x3f\xf8\x00\x00\x00\x00\x00\x00\x8c\x01"
      "d\x94"
      "C\x02xy\x94\x8c\x01"
      "e\x94\x8c\x02\xc3\xa9\x94u."sv;
  auto doc = PickleOk(bytes);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->protocol(), 4);
  const PickleValue root = doc->root();
  const PickleValue a = *root.Get("a");
  ASSERT_EQ(a.size(), 2U);
  EXPECT_EQ(a.at(1).AsInt(), 2);
  const PickleValue b = *root.Get("b");
  ASSERT_EQ(b.kind(), PickleKind::kTuple);
  ASSERT_EQ(b.size(), 3U);
  EXPECT_TRUE(b.at(0).is_none());
  EXPECT_EQ(b.at(1).AsBool(), true);
  EXPECT_EQ(b.at(2).AsBool(), false);
  EXPECT_FALSE(b.at(1).AsInt().has_value());  // a bool is not an int here
  EXPECT_EQ(root.Get("c")->AsDouble(), 1.5);
  EXPECT_EQ(root.Get("d")->AsBytes(), "xy");
  EXPECT_FALSE(root.Get("d")->AsString().has_value());
  EXPECT_EQ(root.Get("e")->AsString(), "\xc3\xa9");
}

TEST(PickleReader, ReadsProtocol0TextOpcodes) {
  // {'a': [1, 'x', None, True, 1.5, 123456789012345678901234567890, -7], 'b': (2,)}, protocol 0.
  const std::string_view bytes =
      "(dp0\nVa\np1\n(lp2\nI1\naVx\np3\naNaI01\naF1.5\naL123456789012345678901234567890L\naI-"
      "7\nasVb"
      "\np4\n(I2\ntp5\ns."sv;
  auto doc = PickleOk(bytes);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->protocol(), 0);
  const PickleValue a = *doc->root().Get("a");
  ASSERT_EQ(a.size(), 7U);
  EXPECT_EQ(a.at(0).AsInt(), 1);
  EXPECT_EQ(a.at(1).AsString(), "x");
  EXPECT_TRUE(a.at(2).is_none());
  EXPECT_EQ(a.at(3).AsBool(), true);
  EXPECT_EQ(a.at(4).AsDouble(), 1.5);
  EXPECT_EQ(a.at(5).BigIntText(), "123456789012345678901234567890");
  EXPECT_EQ(a.at(6).AsInt(), -7);
  const PickleValue b = *doc->root().Get("b");
  ASSERT_EQ(b.kind(), PickleKind::kTuple);
  EXPECT_EQ(b.at(0).AsInt(), 2);
}

TEST(PickleReader, ReadsProtocol5ByteArraysAndSets) {
  // [bytearray(b'ab'), frozenset([3]), {4}], protocol 5.
  const std::string_view bytes =
      "\x80\x05\x95\x1c\x00\x00\x00\x00\x00\x00\x00]\x94(\x96\x02\x00\x00\x00\x00\x00\x00\x00"
      "ab\x94(K\x03\x91\x94\x8f\x94(K\x04\x90"
      "e."sv;
  auto doc = PickleOk(bytes);
  ASSERT_NE(doc, nullptr);
  const PickleValue root = doc->root();
  ASSERT_EQ(root.size(), 3U);
  EXPECT_EQ(root.at(0).AsBytes(), "ab");
  EXPECT_EQ(root.at(1).kind(), PickleKind::kSet);
  EXPECT_EQ(root.at(1).at(0).AsInt(), 3);
  EXPECT_EQ(root.at(2).kind(), PickleKind::kSet);
  EXPECT_EQ(root.at(2).at(0).AsInt(), 4);
}

TEST(PickleReader, TextStringEscapesAndRawUnicodeEscapes) {
  // STRING 'a\n\x41\101\'' and UNICODE "\u00e9\U0001F600z" (raw-unicode-escape).
  auto doc = PickleOk("(S'a\\n\\x41\\101\\''\nV\\u00e9\\U0001F600z\nl."sv);
  ASSERT_NE(doc, nullptr);
  const PickleValue root = doc->root();
  ASSERT_EQ(root.size(), 2U);
  EXPECT_EQ(root.at(0).AsString(), "a\nAA'");
  EXPECT_EQ(root.at(1).AsString(), "\xc3\xa9\xf0\x9f\x98\x80z");
  EXPECT_NE(PickleError("S'abc\n."sv).find("not quoted"), std::string::npos);
  EXPECT_NE(PickleError("V\\u00g9\n."sv).find("\\u escape"), std::string::npos);
}

TEST(PickleReader, MemoReferencesSeeTheFilledContainer) {
  // L = []; memo 0 = L; L += [1, 2]; (L, L): both items are the filled list,
  // as Python's memo holds the object, not a copy made at PUT.
  auto doc = PickleOk(
      "\x80\x02]q\x00(K\x01K\x02"
      "eh\x00\x86."sv);
  ASSERT_NE(doc, nullptr);
  const PickleValue root = doc->root();
  ASSERT_EQ(root.kind(), PickleKind::kTuple);
  ASSERT_EQ(root.size(), 2U);
  EXPECT_EQ(root.at(0).size(), 2U);
  EXPECT_EQ(root.at(1).size(), 2U);
  EXPECT_EQ(root.at(1).at(1).AsInt(), 2);
  // LONG_BINPUT / LONG_BINGET and MEMOIZE (its index: the memo's entries so
  // far, 1 here): 'a' stored at 7 and 1, fetched from both -> ('a', ('a', 'a')).
  auto longs = PickleOk(
      "X\x01\x00\x00\x00"
      "ar\x07\x00\x00\x00\x94j\x07\x00\x00\x00h\x01\x86\x86."sv);
  ASSERT_NE(longs, nullptr);
  EXPECT_EQ(longs->root().at(1).at(1).AsString(), "a");
  EXPECT_NE(PickleError("X\x01\x00\x00\x00"
                        "ar\x07\x00\x00\x00\x94h\x02\x86."sv)
                .find("memo index 2 was never stored"),
            std::string::npos);
}

TEST(PickleReader, MemoErrorsNameTheIndexAndOffset) {
  const std::string never = PickleError("\x80\x02h\x05."sv);
  EXPECT_NE(never.find("BINGET (0x68) at byte 2: memo index 5 was never stored"), std::string::npos)
      << never;
  // A LONG_BINPUT index far beyond the input allocates nothing.
  const std::string huge = PickleError("Nr\xff\xff\xff\x7f."sv);
  EXPECT_NE(huge.find("LONG_BINPUT (0x72) at byte 1: memo index 2147483647 over the limit"),
            std::string::npos)
      << huge;
  PickleLimits small;
  small.max_memo = 4;
  EXPECT_NE(PickleError("Nq\x04."sv, small).find("memo index 4 over the limit"), std::string::npos);
  EXPECT_NE(PickleError("q\x00."sv).find("the stack is empty"), std::string::npos);
}

// One refused opcode of each kind: hand-built streams, the opcode's byte offset.
struct RefusedPickleCase {
  std::string_view bytes;
  std::string_view op;
  size_t offset;
  std::string_view why;
};

TEST(PickleReader, RefusesEveryOpcodeThatImportsOrCalls) {
  const RefusedPickleCase cases[] = {
      {"\x80\x02"
       "cos\nsystem\nX\x02\x00\x00\x00lsR."sv,
       "GLOBAL (0x63)", 2, "imports"},
      {"\x80\x04\x8c\x02os\x8c\x06system\x93."sv, "STACK_GLOBAL (0x93)", 14, "imports"},
      {"(ios\nsystem\nX\x02\x00\x00\x00ls."sv, "INST (0x69)", 1, "calls"},
      {"(NX\x02\x00\x00\x00lso."sv, "OBJ (0x6f)", 9, "calls"},
      {"N)R."sv, "REDUCE (0x52)", 2, "calls"},
      {"\x80\x02N)\x81."sv, "NEWOBJ (0x81)", 4, "calls"},
      {"\x80\x04N)}\x92."sv, "NEWOBJ_EX (0x92)", 5, "calls"},
      {"}Nb."sv, "BUILD (0x62)", 2, "__setstate__"},
      {"\x82\x01."sv, "EXT1 (0x82)", 0, "extension registry"},
      {"\x83\x01\x00."sv, "EXT2 (0x83)", 0, "extension registry"},
      {"N\x84\x01\x00\x00\x00."sv, "EXT4 (0x84)", 1, "extension registry"},
      {"Pid\n."sv, "PERSID (0x50)", 0, "outside the stream"},
      {"NQ."sv, "BINPERSID (0x51)", 1, "outside the stream"},
      {"\x80\x05\x97."sv, "NEXT_BUFFER (0x97)", 2, "out-of-band"},
      {"\x80\x05N\x98."sv, "READONLY_BUFFER (0x98)", 3, "out-of-band"},
  };
  for (const RefusedPickleCase& c : cases) {
    const std::string err = PickleError(c.bytes);
    const std::string where = std::string(c.op) + " at byte " + std::to_string(c.offset);
    EXPECT_NE(err.find(where), std::string::npos) << err;
    EXPECT_NE(err.find("refused"), std::string::npos) << err;
    EXPECT_NE(err.find(c.why), std::string::npos) << err;
  }
  // Not an opcode of any protocol, and a protocol past 5.
  EXPECT_NE(PickleError("N\xff."sv).find("opcode 0xff at byte 1: not an opcode"),
            std::string::npos);
  EXPECT_NE(PickleError("\x80\x06N."sv).find("protocol 6"), std::string::npos);
}

TEST(PickleReader, TruncationAtEveryByteIsAnErrorWithAnOffset) {
  const std::string_view whole = kPickleProtocol2Ints;
  for (size_t n = 0; n < whole.size(); ++n) {
    auto doc = ReadPickle(whole.substr(0, n), "t.pkl");
    ASSERT_FALSE(doc.ok()) << n;
    EXPECT_NE(doc.status().message().find("byte"), std::string::npos) << doc.status().message();
  }
  // A length beyond the end: reported, never read.
  const std::string err = PickleError(
      "\x80\x02X\xff\xff\xff\xff"
      "abc."sv);
  EXPECT_NE(
      err.find("BINUNICODE (0x58) at byte 2: truncated: length 4294967295 but 4 byte(s) left"),
      std::string::npos)
      << err;
  EXPECT_NE(PickleError("\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\xff."sv).find("truncated"),
            std::string::npos);
  EXPECT_NE(PickleError("T\x00\x00\x00\x80."sv).find("negative length"), std::string::npos);
  EXPECT_NE(PickleError("\x8b\xff\xff\xff\xff."sv).find("negative length"), std::string::npos);
  EXPECT_NE(PickleError("I12\n"sv).find("no STOP"), std::string::npos);
  EXPECT_NE(PickleError("I12"sv).find("no end of line"), std::string::npos);
}

TEST(PickleReader, StackMisuseIsAnError) {
  EXPECT_NE(PickleError("]K\x01"
                        "e."sv)
                .find("APPENDS (0x65) at byte 3: no MARK"),
            std::string::npos);
  EXPECT_NE(PickleError("}K\x01"
                        "a."sv)
                .find("APPEND to a dict (needs a list)"),
            std::string::npos);
  EXPECT_NE(PickleError("}(K\x01u."sv).find("odd number of items"), std::string::npos);
  EXPECT_NE(PickleError("(K\x01K\x02u."sv).find("nothing to SETITEMS to"), std::string::npos);
  EXPECT_NE(PickleError("."sv).find("STOP (0x2e) at byte 0: the stack is empty"),
            std::string::npos);
  EXPECT_NE(PickleError("0."sv).find("the stack is empty"), std::string::npos);
  EXPECT_NE(PickleError("(\x85."sv).find("needs 1 item(s)"), std::string::npos);
  // The items above a MARK belong to it: TUPLE2 cannot reach below.
  EXPECT_NE(PickleError("N(N\x86."sv).find("needs 2 item(s)"), std::string::npos);
  // POP on an empty frame drops the MARK (pickle.py); POP_MARK discards items.
  auto doc = PickleOk(
      "N(0K\x07(K\x01K\x02"
      "1\x86."sv);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->root().size(), 2U);
  EXPECT_EQ(doc->root().at(1).AsInt(), 7);
}

TEST(PickleReader, RefusesAContainerHoldingItself) {
  // L = []; L.append(L).
  const std::string err = PickleError(
      "]q\x00h\x00"
      "a."sv);
  EXPECT_NE(err.find("holds itself"), std::string::npos) << err;
  // Shared but not recursive: fine.
  EXPECT_NE(PickleOk("]q\x00h\x00h\x00\x86\x85."sv), nullptr);
}

TEST(PickleReader, NestingDeeperThanTheLimitIsRefused) {
  PickleLimits limits;
  limits.max_depth = 50;
  const std::string ok = "N" + std::string(50, '\x85') + ".";
  auto doc = PickleOk(ok, limits);
  ASSERT_NE(doc, nullptr);
  const std::string deep = "N" + std::string(51, '\x85') + ".";
  EXPECT_NE(PickleError(deep, limits).find("nested deeper than 50"), std::string::npos);
  // 100000 nested tuples: refused without recursion.
  const std::string very = "N" + std::string(100000, '\x85') + ".";
  EXPECT_NE(PickleError(very).find("nested deeper than 200"), std::string::npos);
}

TEST(PickleReader, ValueAndSizeLimits) {
  PickleLimits limits;
  limits.max_values = 3;
  EXPECT_NE(PickleError("(NNNNl."sv, limits).find("more than 3 values"), std::string::npos);
  limits = PickleLimits();
  limits.max_bytes = 4;
  EXPECT_NE(PickleError("(NNNNl."sv, limits).find("over the limit of 4"), std::string::npos);
  limits = PickleLimits();
  limits.max_int_bytes = 8;
  EXPECT_NE(PickleError("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01."sv, limits)
                .find("an int of 9 bytes"),
            std::string::npos);
  const std::string long_text = "L" + std::string(30, '9') + "L\n.";
  EXPECT_NE(PickleError(long_text, limits).find("an int of 30 digits"), std::string::npos);
}

TEST(PickleReader, IllFormedUtf8BecomesReplacementCharacters) {
  auto doc = PickleOk(
      "X\x03\x00\x00\x00"
      "a\xff"
      "b."sv);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->root().AsString(),
            "a\xef\xbf\xbd"
            "b");
  // bytes stay as they are.
  auto raw = PickleOk("C\x02\xff\x00."sv);
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->root().AsBytes(), "\xff\x00"sv);
}

TEST(PickleReader, DictLookupTakesTheLastOfARepeatedKeyInBigAndSmallDicts) {
  for (int keys : {3, 40}) {
    std::string p = "}(";
    for (int i = 0; i < keys; ++i) {
      const std::string k = "k" + std::to_string(i);
      p += "X";
      p.push_back(static_cast<char>(k.size()));
      p += std::string(3, '\0') + k + "K";
      p.push_back(static_cast<char>(i));
    }
    p += "X\x02\x00\x00\x00k1K\x63u."sv;  // k1 again: 99
    auto doc = PickleOk(p);
    ASSERT_NE(doc, nullptr);
    const PickleValue root = doc->root();
    EXPECT_EQ(root.size(), static_cast<size_t>(keys + 1));  // pairs as in the stream
    EXPECT_EQ(root.Get("k1")->AsInt(), 99) << keys;
    EXPECT_EQ(root.Get("k0")->AsInt(), 0) << keys;
    EXPECT_EQ(root.Get("k2")->AsInt(), 2) << keys;
    EXPECT_FALSE(root.Get("k").has_value());
    EXPECT_FALSE(root.at(0).Get("k0").has_value());  // not a dict
  }
}

}  // namespace
}  // namespace trainscope::formats
