#include "formats/pickle/pickle_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <utility>

#include "core/safe_text.h"

namespace trainscope::formats {
namespace {

constexpr uint32_t kNoPickleValue = std::numeric_limits<uint32_t>::max();

// Pickle opcodes (CPython Lib/pickle.py, Lib/pickletools.py).
enum PickleOp : uint8_t {
  kOpMark = '(',
  kOpStop = '.',
  kOpPop = '0',
  kOpPopMark = '1',
  kOpDup = '2',
  kOpFloat = 'F',
  kOpInt = 'I',
  kOpBinInt = 'J',
  kOpBinInt1 = 'K',
  kOpLong = 'L',
  kOpBinInt2 = 'M',
  kOpNone = 'N',
  kOpPersId = 'P',
  kOpBinPersId = 'Q',
  kOpReduce = 'R',
  kOpString = 'S',
  kOpBinString = 'T',
  kOpShortBinString = 'U',
  kOpUnicode = 'V',
  kOpBinUnicode = 'X',
  kOpAppend = 'a',
  kOpBuild = 'b',
  kOpGlobal = 'c',
  kOpDict = 'd',
  kOpEmptyDict = '}',
  kOpAppends = 'e',
  kOpGet = 'g',
  kOpBinGet = 'h',
  kOpInst = 'i',
  kOpLongBinGet = 'j',
  kOpList = 'l',
  kOpEmptyList = ']',
  kOpObj = 'o',
  kOpPut = 'p',
  kOpBinPut = 'q',
  kOpLongBinPut = 'r',
  kOpSetItem = 's',
  kOpTuple = 't',
  kOpEmptyTuple = ')',
  kOpSetItems = 'u',
  kOpBinFloat = 'G',
  kOpBinBytes = 'B',
  kOpShortBinBytes = 'C',
  kOpProto = 0x80,
  kOpNewObj = 0x81,
  kOpExt1 = 0x82,
  kOpExt2 = 0x83,
  kOpExt4 = 0x84,
  kOpTuple1 = 0x85,
  kOpTuple2 = 0x86,
  kOpTuple3 = 0x87,
  kOpNewTrue = 0x88,
  kOpNewFalse = 0x89,
  kOpLong1 = 0x8a,
  kOpLong4 = 0x8b,
  kOpShortBinUnicode = 0x8c,
  kOpBinUnicode8 = 0x8d,
  kOpBinBytes8 = 0x8e,
  kOpEmptySet = 0x8f,
  kOpAddItems = 0x90,
  kOpFrozenSet = 0x91,
  kOpNewObjEx = 0x92,
  kOpStackGlobal = 0x93,
  kOpMemoize = 0x94,
  kOpFrame = 0x95,
  kOpByteArray8 = 0x96,
  kOpNextBuffer = 0x97,
  kOpReadonlyBuffer = 0x98,
};

std::string_view PickleOpName(uint8_t op) {
  switch (op) {
    case kOpMark:
      return "MARK";
    case kOpStop:
      return "STOP";
    case kOpPop:
      return "POP";
    case kOpPopMark:
      return "POP_MARK";
    case kOpDup:
      return "DUP";
    case kOpFloat:
      return "FLOAT";
    case kOpInt:
      return "INT";
    case kOpBinInt:
      return "BININT";
    case kOpBinInt1:
      return "BININT1";
    case kOpLong:
      return "LONG";
    case kOpBinInt2:
      return "BININT2";
    case kOpNone:
      return "NONE";
    case kOpPersId:
      return "PERSID";
    case kOpBinPersId:
      return "BINPERSID";
    case kOpReduce:
      return "REDUCE";
    case kOpString:
      return "STRING";
    case kOpBinString:
      return "BINSTRING";
    case kOpShortBinString:
      return "SHORT_BINSTRING";
    case kOpUnicode:
      return "UNICODE";
    case kOpBinUnicode:
      return "BINUNICODE";
    case kOpAppend:
      return "APPEND";
    case kOpBuild:
      return "BUILD";
    case kOpGlobal:
      return "GLOBAL";
    case kOpDict:
      return "DICT";
    case kOpEmptyDict:
      return "EMPTY_DICT";
    case kOpAppends:
      return "APPENDS";
    case kOpGet:
      return "GET";
    case kOpBinGet:
      return "BINGET";
    case kOpInst:
      return "INST";
    case kOpLongBinGet:
      return "LONG_BINGET";
    case kOpList:
      return "LIST";
    case kOpEmptyList:
      return "EMPTY_LIST";
    case kOpObj:
      return "OBJ";
    case kOpPut:
      return "PUT";
    case kOpBinPut:
      return "BINPUT";
    case kOpLongBinPut:
      return "LONG_BINPUT";
    case kOpSetItem:
      return "SETITEM";
    case kOpTuple:
      return "TUPLE";
    case kOpEmptyTuple:
      return "EMPTY_TUPLE";
    case kOpSetItems:
      return "SETITEMS";
    case kOpBinFloat:
      return "BINFLOAT";
    case kOpBinBytes:
      return "BINBYTES";
    case kOpShortBinBytes:
      return "SHORT_BINBYTES";
    case kOpProto:
      return "PROTO";
    case kOpNewObj:
      return "NEWOBJ";
    case kOpExt1:
      return "EXT1";
    case kOpExt2:
      return "EXT2";
    case kOpExt4:
      return "EXT4";
    case kOpTuple1:
      return "TUPLE1";
    case kOpTuple2:
      return "TUPLE2";
    case kOpTuple3:
      return "TUPLE3";
    case kOpNewTrue:
      return "NEWTRUE";
    case kOpNewFalse:
      return "NEWFALSE";
    case kOpLong1:
      return "LONG1";
    case kOpLong4:
      return "LONG4";
    case kOpShortBinUnicode:
      return "SHORT_BINUNICODE";
    case kOpBinUnicode8:
      return "BINUNICODE8";
    case kOpBinBytes8:
      return "BINBYTES8";
    case kOpEmptySet:
      return "EMPTY_SET";
    case kOpAddItems:
      return "ADDITEMS";
    case kOpFrozenSet:
      return "FROZENSET";
    case kOpNewObjEx:
      return "NEWOBJ_EX";
    case kOpStackGlobal:
      return "STACK_GLOBAL";
    case kOpMemoize:
      return "MEMOIZE";
    case kOpFrame:
      return "FRAME";
    case kOpByteArray8:
      return "BYTEARRAY8";
    case kOpNextBuffer:
      return "NEXT_BUFFER";
    case kOpReadonlyBuffer:
      return "READONLY_BUFFER";
    default:
      return {};
  }
}

// Why an opcode that builds more than data is refused ("" for data opcodes).
std::string_view PickleRefusal(uint8_t op) {
  switch (op) {
    case kOpGlobal:
    case kOpStackGlobal:
      return "it imports a Python name";
    case kOpInst:
    case kOpObj:
    case kOpReduce:
    case kOpNewObj:
    case kOpNewObjEx:
      return "it calls a Python object";
    case kOpBuild:
      return "it sets an object's state (__setstate__)";
    case kOpExt1:
    case kOpExt2:
    case kOpExt4:
      return "it imports through the copyreg extension registry";
    case kOpPersId:
    case kOpBinPersId:
      return "it asks the loader for an object from outside the stream";
    case kOpNextBuffer:
    case kOpReadonlyBuffer:
      return "it needs an out-of-band buffer";
    default:
      return {};
  }
}

uint64_t PickleLittleEndian(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// Magnitude (little-endian 32-bit limbs) to decimal text.
std::string PickleLimbsToDecimal(std::vector<uint32_t> limbs) {
  std::string digits;  // reversed
  while (!limbs.empty()) {
    uint64_t rem = 0;
    for (size_t i = limbs.size(); i-- > 0;) {
      const uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / 1000000000U);
      rem = cur % 1000000000U;
    }
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
    for (int k = 0; k < 9; ++k) {
      digits.push_back(static_cast<char>('0' + rem % 10));
      rem /= 10;
      if (limbs.empty() && rem == 0) break;
    }
  }
  if (digits.empty()) digits = "0";
  std::reverse(digits.begin(), digits.end());
  return digits;
}

void PickleAppendUtf8(std::string* out, uint32_t cp) {
  if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;  // a lone surrogate
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int PickleHexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string_view PickleKindName(PickleKind kind) {
  switch (kind) {
    case PickleKind::kNone:
      return "None";
    case PickleKind::kBool:
      return "bool";
    case PickleKind::kInt:
    case PickleKind::kBigInt:
      return "int";
    case PickleKind::kFloat:
      return "float";
    case PickleKind::kString:
      return "str";
    case PickleKind::kBytes:
      return "bytes";
    case PickleKind::kList:
      return "list";
    case PickleKind::kTuple:
      return "tuple";
    case PickleKind::kSet:
      return "set";
    case PickleKind::kDict:
      return "dict";
  }
  return "?";
}

// The stack machine of pickle.py's _Unpickler, data opcodes only.
class PickleParser {
 public:
  PickleParser(std::string_view bytes, std::string_view name, const PickleLimits& limits,
               PickleDocument* doc)
      : in_(bytes), name_(name), limits_(limits), doc_(doc) {}

  Status Run();

 private:
  using Node = PickleDocument::Node;

  Status Fail(std::string_view what) const {
    return InvalidInput(
        fmt::format("{}: pickle {} at byte {}: {}", name_, OpLabel(), op_at_, what));
  }
  std::string OpLabel() const {
    const std::string_view n = PickleOpName(op_);
    if (n.empty()) return fmt::format("opcode 0x{:02x}", op_);
    return fmt::format("{} (0x{:02x})", n, op_);
  }
  // |n| argument bytes after the opcode, or an error.
  Status Take(size_t n, std::string_view* out) {
    if (n > in_.size() - pos_) {
      return Fail(fmt::format("truncated: needs {} byte(s), {} left", n, in_.size() - pos_));
    }
    *out = in_.substr(pos_, n);
    pos_ += n;
    return Status::Ok();
  }
  // The argument of a text opcode: up to its '\n' (taken, not returned).
  Status Line(std::string_view* out) {
    const size_t nl = in_.find('\n', pos_);
    if (nl == std::string_view::npos) return Fail("truncated: no end of line");
    *out = in_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return Status::Ok();
  }
  // A length read from |width| little-endian bytes, checked against what is left.
  Status Length(size_t width, size_t* out) {
    std::string_view raw;
    if (Status s = Take(width, &raw); !s.ok()) return s;
    const uint64_t n = PickleLittleEndian(raw.data(), width);
    if (n > in_.size() - pos_) {
      return Fail(fmt::format("truncated: length {} but {} byte(s) left", n, in_.size() - pos_));
    }
    if (n > limits_.max_string_bytes) {
      return Fail(fmt::format("length {} over the limit of {}", n, limits_.max_string_bytes));
    }
    *out = static_cast<size_t>(n);
    return Status::Ok();
  }

  Status NewNode(PickleKind kind, uint32_t* id) {
    if (doc_->nodes_.size() >= limits_.max_values) {
      return Fail(fmt::format("more than {} values", limits_.max_values));
    }
    *id = static_cast<uint32_t>(doc_->nodes_.size());
    doc_->nodes_.emplace_back();
    doc_->nodes_.back().kind = kind;
    return Status::Ok();
  }
  Status Push(PickleKind kind, Node** node = nullptr) {
    uint32_t id = 0;
    if (Status s = NewNode(kind, &id); !s.ok()) return s;
    stack_.push_back(id);
    if (node != nullptr) *node = &doc_->nodes_[id];
    return Status::Ok();
  }
  Status PushInt(int64_t v) {
    Node* n = nullptr;
    if (Status s = Push(PickleKind::kInt, &n); !s.ok()) return s;
    n->i = v;
    return Status::Ok();
  }
  Status PushBool(bool v) {
    Node* n = nullptr;
    if (Status s = Push(PickleKind::kBool, &n); !s.ok()) return s;
    n->flag = v;
    return Status::Ok();
  }
  Status PushText(PickleKind kind, std::string_view raw) {
    Node* n = nullptr;
    if (Status s = Push(kind, &n); !s.ok()) return s;
    if (kind != PickleKind::kString || IsValidUtf8(raw)) {
      n->text.assign(raw);
    } else {
      AppendValidUtf8(&n->text, raw);
    }
    return Status::Ok();
  }
  Status PushString(std::string text) {
    Node* n = nullptr;
    if (Status s = Push(PickleKind::kString, &n); !s.ok()) return s;
    n->text = std::move(text);
    return Status::Ok();
  }

  size_t FrameStart() const { return marks_.empty() ? 0 : marks_.back(); }
  size_t FrameSize() const { return stack_.size() - FrameStart(); }
  Status Top(uint32_t* id) {
    if (FrameSize() == 0) return Fail("the stack is empty");
    *id = stack_.back();
    return Status::Ok();
  }
  // The container under the items of the current mark (APPENDS, SETITEMS,
  // ADDITEMS): the items are stack_[mark..], the target just below.
  Status PopMark(size_t* begin) {
    if (marks_.empty()) return Fail("no MARK before it");
    *begin = marks_.back();
    marks_.pop_back();
    return Status::Ok();
  }
  // Items stack_[begin..] into a new container (TUPLE, LIST, DICT, FROZENSET).
  Status Collect(PickleKind kind, size_t begin) {
    if (kind == PickleKind::kDict && (stack_.size() - begin) % 2 != 0) {
      return Fail("odd number of items for key/value pairs");
    }
    uint32_t id = 0;
    if (Status s = NewNode(kind, &id); !s.ok()) return s;
    doc_->nodes_[id].items.assign(stack_.begin() + static_cast<std::ptrdiff_t>(begin),
                                  stack_.end());
    stack_.resize(begin);
    stack_.push_back(id);
    return Status::Ok();
  }
  // Items stack_[begin..] appended to the container just below them.
  Status Extend(PickleKind want, std::string_view opname, size_t begin) {
    if (begin == FrameStart()) return Fail(fmt::format("nothing to {} to", opname));
    const uint32_t target = stack_[begin - 1];
    const PickleKind got = doc_->nodes_[target].kind;
    if (got != want) {
      return Fail(fmt::format("{} to a {} (needs a {})", opname, PickleKindName(got),
                              PickleKindName(want)));
    }
    if (want == PickleKind::kDict && (stack_.size() - begin) % 2 != 0) {
      return Fail("odd number of items for key/value pairs");
    }
    auto& items = doc_->nodes_[target].items;
    items.insert(items.end(), stack_.begin() + static_cast<std::ptrdiff_t>(begin), stack_.end());
    stack_.resize(begin);
    return Status::Ok();
  }

  Status MemoIndex(uint64_t index) {
    if (index >= limits_.max_memo || index > in_.size()) {
      return Fail(fmt::format("memo index {} over the limit", index));
    }
    return Status::Ok();
  }
  Status Put(uint64_t index) {
    if (Status s = MemoIndex(index); !s.ok()) return s;
    uint32_t top = 0;
    if (Status s = Top(&top); !s.ok()) return s;
    if (index >= memo_.size()) memo_.resize(index + 1, kNoPickleValue);
    if (memo_[index] == kNoPickleValue) ++memo_count_;
    memo_[index] = top;
    return Status::Ok();
  }
  Status Get(uint64_t index) {
    if (index >= memo_.size() || memo_[index] == kNoPickleValue) {
      return Fail(fmt::format("memo index {} was never stored", index));
    }
    stack_.push_back(memo_[index]);
    return Status::Ok();
  }
  Status DecimalIndex(uint64_t* index) {
    std::string_view line;
    if (Status s = Line(&line); !s.ok()) return s;
    const auto r = std::from_chars(line.data(), line.data() + line.size(), *index);
    if (r.ec != std::errc() || r.ptr != line.data() + line.size()) {
      return Fail("memo index is not a decimal number");
    }
    return Status::Ok();
  }

  // Two's complement little-endian (LONG1, LONG4).
  Status PushLong(std::string_view raw);
  // Decimal text (INT, LONG): int64 when it fits, else a big int.
  Status PushDecimal(std::string_view text);
  Status PushEscapedString(std::string_view line);
  Status PushRawUnicodeEscape(std::string_view line);
  // One opcode; each group of opcodes in its own function.
  Status Step(bool* stop);
  Status StepControl(bool* stop);
  Status StepInt();
  Status StepScalar();
  Status StepText();
  Status StepContainer();
  Status StepMemo();
  Status Finish();

  std::string_view in_;
  std::string_view name_;
  const PickleLimits& limits_;
  PickleDocument* doc_;
  size_t pos_ = 0;
  size_t op_at_ = 0;
  uint8_t op_ = 0;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::vector<uint32_t> memo_;
  size_t memo_count_ = 0;
};

Status PickleParser::PushLong(std::string_view raw) {
  const size_t n = raw.size();
  if (n > limits_.max_int_bytes) {
    return Fail(fmt::format("an int of {} bytes, over the limit of {}", n, limits_.max_int_bytes));
  }
  if (n == 0) return PushInt(0);
  const bool negative = (static_cast<unsigned char>(raw[n - 1]) & 0x80) != 0;
  // Fits in int64 when every byte past the eighth only extends the sign.
  bool fits = true;
  const char ext = negative ? '\xff' : '\0';
  for (size_t i = 8; i < n; ++i) fits = fits && raw[i] == ext;
  if (fits && n > 8) {
    fits = ((static_cast<unsigned char>(raw[7]) & 0x80) != 0) == negative;
  }
  if (fits) {
    const size_t w = std::min<size_t>(n, 8);
    uint64_t v = PickleLittleEndian(raw.data(), w);
    if (negative && w < 8) v |= ~uint64_t{0} << (8 * w);
    return PushInt(static_cast<int64_t>(v));
  }
  // Magnitude: negate the two's complement when negative.
  std::vector<uint8_t> mag(raw.begin(), raw.end());
  if (negative) {
    unsigned carry = 1;
    for (uint8_t& b : mag) {
      const unsigned v = static_cast<uint8_t>(~b) + carry;
      b = static_cast<uint8_t>(v);
      carry = v >> 8;
    }
  }
  std::vector<uint32_t> limbs((n + 3) / 4, 0);
  for (size_t i = 0; i < n; ++i) limbs[i / 4] |= uint32_t{mag[i]} << (8 * (i % 4));
  while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  std::string text = negative ? "-" : "";
  text += PickleLimbsToDecimal(std::move(limbs));
  Node* node = nullptr;
  if (Status s = Push(PickleKind::kBigInt, &node); !s.ok()) return s;
  node->text = std::move(text);
  return Status::Ok();
}

Status PickleParser::PushDecimal(std::string_view text) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.size() > limits_.max_int_bytes * 5 / 2) {
    return Fail(fmt::format("an int of {} digits, over the limit of {}", digits.size(),
                            limits_.max_int_bytes * 5 / 2));
  }
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Fail("not a decimal integer");
  }
  int64_t v = 0;
  const std::string_view whole = negative ? text.substr(text.find('-')) : digits;
  const auto r = std::from_chars(whole.data(), whole.data() + whole.size(), v);
  if (r.ec == std::errc() && r.ptr == whole.data() + whole.size()) return PushInt(v);
  const size_t first = std::min(digits.find_first_not_of('0'), digits.size() - 1);
  std::string big = negative ? "-" : "";
  big.append(digits.substr(first));
  Node* node = nullptr;
  if (Status s = Push(PickleKind::kBigInt, &node); !s.ok()) return s;
  node->text = std::move(big);
  return Status::Ok();
}

namespace {

// The one-character escapes of codecs.escape_decode; a backslash before a
// newline stands for nothing (a continued line).
struct PickleEscape {
  char after, means;
  bool nothing;
};
constexpr PickleEscape kPickleEscapes[] = {
    {'n', '\n', false},  {'t', '\t', false}, {'r', '\r', false}, {'a', '\a', false},
    {'b', '\b', false},  {'f', '\f', false}, {'v', '\v', false}, {'\\', '\\', false},
    {'\'', '\'', false}, {'"', '"', false},  {'\n', '\0', true}};

const PickleEscape* PickleSimpleEscape(char c) {
  for (const PickleEscape& e : kPickleEscapes) {
    if (e.after == c) return &e;
  }
  return nullptr;
}

}  // namespace

// STRING's argument: a Python 2 repr, quoted, with backslash escapes
// (codecs.escape_decode).
Status PickleParser::PushEscapedString(std::string_view line) {
  if (line.size() < 2 || line.front() != line.back() ||
      (line.front() != '\'' && line.front() != '"')) {
    return Fail("the string is not quoted");
  }
  const std::string_view body = line.substr(1, line.size() - 2);
  std::string raw;
  raw.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      raw.push_back(body[i]);
      continue;
    }
    const char c = body[++i];
    if (const PickleEscape* e = PickleSimpleEscape(c)) {
      if (!e->nothing) raw.push_back(e->means);
      continue;
    }
    if (c == 'x') {
      const int hi = i + 1 < body.size() ? PickleHexDigit(body[i + 1]) : -1;
      const int lo = i + 2 < body.size() ? PickleHexDigit(body[i + 2]) : -1;
      if (hi < 0 || lo < 0) return Fail("invalid \\x escape in the string");
      raw.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c >= '0' && c <= '7') {
      int v = c - '0';
      for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7';
           ++k) {
        v = v * 8 + (body[++i] - '0');
      }
      raw.push_back(static_cast<char>(v & 0xFF));
    } else {  // unknown escapes stay as they are
      raw.push_back('\\');
      raw.push_back(c);
    }
  }
  return PushText(PickleKind::kString, raw);
}

// UNICODE's argument: raw-unicode-escape (\uXXXX, \UXXXXXXXX; any other
// byte is a Latin-1 character).
Status PickleParser::PushRawUnicodeEscape(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size() && (line[i + 1] == 'u' || line[i + 1] == 'U')) {
      const size_t width = line[i + 1] == 'u' ? 4 : 8;
      if (i + 2 + width > line.size()) return Fail("truncated \\u escape in the string");
      uint32_t cp = 0;
      for (size_t k = 0; k < width; ++k) {
        const int d = PickleHexDigit(line[i + 2 + k]);
        if (d < 0) return Fail("invalid \\u escape in the string");
        cp = cp * 16 + static_cast<uint32_t>(d);
      }
      if (cp > 0x10FFFF) return Fail("\\U escape beyond U+10FFFF");
      PickleAppendUtf8(&out, cp);
      i += 1 + width;
    } else {
      PickleAppendUtf8(&out, static_cast<unsigned char>(c));
    }
  }
  return PushString(std::move(out));
}

Status PickleParser::StepControl(bool* stop) {
  std::string_view arg;
  size_t len = 0;
  switch (op_) {
    case kOpProto: {
      if (Status s = Take(1, &arg); !s.ok()) return s;
      const int proto = static_cast<unsigned char>(arg[0]);
      if (proto > 5) return Fail(fmt::format("protocol {} (known: 0 to 5)", proto));
      if (doc_->protocol_ == 0) doc_->protocol_ = proto;
      return Status::Ok();
    }
    case kOpFrame:
      return Length(8, &len);  // the frame's ops follow; framing is not needed
    case kOpStop: {
      uint32_t top = 0;
      if (Status s = Top(&top); !s.ok()) return s;
      doc_->root_ = top;
      doc_->stop_offset_ = op_at_;
      *stop = true;
      return Status::Ok();
    }
    case kOpMark:
      marks_.push_back(stack_.size());
      return Status::Ok();
    case kOpPop:
      if (FrameSize() > 0) {
        stack_.pop_back();
      } else if (!marks_.empty()) {
        marks_.pop_back();  // pickle.py: POP on an empty frame drops the mark
      } else {
        return Fail("the stack is empty");
      }
      return Status::Ok();
    case kOpPopMark: {
      size_t begin = 0;
      if (Status s = PopMark(&begin); !s.ok()) return s;
      stack_.resize(begin);
      return Status::Ok();
    }
    case kOpDup: {
      uint32_t top = 0;
      if (Status s = Top(&top); !s.ok()) return s;
      stack_.push_back(top);
      return Status::Ok();
    }
    default:
      return Fail("not an opcode of pickle protocols 0 to 5");
  }
}

Status PickleParser::StepInt() {
  std::string_view arg;
  size_t len = 0;
  switch (op_) {
    case kOpBinInt:
      if (Status s = Take(4, &arg); !s.ok()) return s;
      return PushInt(
          static_cast<int32_t>(static_cast<uint32_t>(PickleLittleEndian(arg.data(), 4))));
    case kOpBinInt1:
      if (Status s = Take(1, &arg); !s.ok()) return s;
      return PushInt(static_cast<unsigned char>(arg[0]));
    case kOpBinInt2:
      if (Status s = Take(2, &arg); !s.ok()) return s;
      return PushInt(static_cast<int64_t>(PickleLittleEndian(arg.data(), 2)));
    case kOpLong1:
      if (Status s = Length(1, &len); !s.ok()) return s;
      if (Status s = Take(len, &arg); !s.ok()) return s;
      return PushLong(arg);
    case kOpLong4: {
      if (Status s = Take(4, &arg); !s.ok()) return s;
      const int64_t n =
          static_cast<int32_t>(static_cast<uint32_t>(PickleLittleEndian(arg.data(), 4)));
      if (n < 0) return Fail("negative length");
      if (static_cast<uint64_t>(n) > limits_.max_int_bytes) {
        return Fail(
            fmt::format("an int of {} bytes, over the limit of {}", n, limits_.max_int_bytes));
      }
      if (Status s = Take(static_cast<size_t>(n), &arg); !s.ok()) return s;
      return PushLong(arg);
    }
    case kOpInt: {
      if (Status s = Line(&arg); !s.ok()) return s;
      if (arg == "00") return PushBool(false);  // protocol 0's False and True
      if (arg == "01") return PushBool(true);
      return PushDecimal(arg);
    }
    case kOpLong:
      if (Status s = Line(&arg); !s.ok()) return s;
      if (!arg.empty() && arg.back() == 'L') arg.remove_suffix(1);
      return PushDecimal(arg);
    default:
      return Fail("not an opcode of pickle protocols 0 to 5");
  }
}

Status PickleParser::StepScalar() {
  std::string_view arg;
  switch (op_) {
    case kOpNone:
      return Push(PickleKind::kNone);
    case kOpNewTrue:
      return PushBool(true);
    case kOpNewFalse:
      return PushBool(false);
    case kOpFloat: {
      if (Status s = Line(&arg); !s.ok()) return s;
      double v = 0;
      const auto r = std::from_chars(arg.data(), arg.data() + arg.size(), v);
      if (arg.empty() || r.ec != std::errc() || r.ptr != arg.data() + arg.size()) {
        return Fail("not a decimal float");
      }
      Node* n = nullptr;
      if (Status s = Push(PickleKind::kFloat, &n); !s.ok()) return s;
      n->f = v;
      return Status::Ok();
    }
    case kOpBinFloat: {
      if (Status s = Take(8, &arg); !s.ok()) return s;
      uint64_t bits = 0;  // big-endian
      for (char c : arg) bits = (bits << 8) | static_cast<unsigned char>(c);
      double v = 0;
      std::memcpy(&v, &bits, sizeof v);
      Node* n = nullptr;
      if (Status s = Push(PickleKind::kFloat, &n); !s.ok()) return s;
      n->f = v;
      return Status::Ok();
    }
    default:
      return Fail("not an opcode of pickle protocols 0 to 5");
  }
}

Status PickleParser::StepText() {
  std::string_view arg;
  size_t len = 0;
  switch (op_) {
    case kOpString:
      if (Status s = Line(&arg); !s.ok()) return s;
      return PushEscapedString(arg);
    case kOpUnicode:
      if (Status s = Line(&arg); !s.ok()) return s;
      return PushRawUnicodeEscape(arg);
    case kOpShortBinString:
    case kOpShortBinUnicode:
    case kOpShortBinBytes:
    case kOpBinString:
    case kOpBinUnicode:
    case kOpBinBytes:
    case kOpBinUnicode8:
    case kOpBinBytes8:
    case kOpByteArray8: {
      const bool one =
          op_ == kOpShortBinString || op_ == kOpShortBinUnicode || op_ == kOpShortBinBytes;
      const bool eight = op_ == kOpBinUnicode8 || op_ == kOpBinBytes8 || op_ == kOpByteArray8;
      if (op_ == kOpBinString) {  // a signed 4-byte length
        if (Status s = Take(4, &arg); !s.ok()) return s;
        pos_ -= 4;
        if ((static_cast<unsigned char>(arg[3]) & 0x80) != 0) return Fail("negative length");
      }
      if (Status s = Length(one ? 1 : (eight ? 8 : 4), &len); !s.ok()) return s;
      if (Status s = Take(len, &arg); !s.ok()) return s;
      const bool bytes = op_ == kOpShortBinBytes || op_ == kOpBinBytes || op_ == kOpBinBytes8 ||
                         op_ == kOpByteArray8;
      return PushText(bytes ? PickleKind::kBytes : PickleKind::kString, arg);
    }
    default:
      return Fail("not an opcode of pickle protocols 0 to 5");
  }
}

Status PickleParser::StepContainer() {
  switch (op_) {
    case kOpEmptyList:
      return Push(PickleKind::kList);
    case kOpEmptyTuple:
      return Push(PickleKind::kTuple);
    case kOpEmptyDict:
      return Push(PickleKind::kDict);
    case kOpEmptySet:
      return Push(PickleKind::kSet);
    case kOpTuple1:
    case kOpTuple2:
    case kOpTuple3: {
      const size_t n = op_ - kOpTuple1 + 1;
      if (FrameSize() < n) return Fail(fmt::format("needs {} item(s) on the stack", n));
      return Collect(PickleKind::kTuple, stack_.size() - n);
    }
    case kOpTuple:
    case kOpList:
    case kOpDict:
    case kOpFrozenSet: {
      size_t begin = 0;
      if (Status s = PopMark(&begin); !s.ok()) return s;
      const PickleKind kind = op_ == kOpTuple  ? PickleKind::kTuple
                              : op_ == kOpList ? PickleKind::kList
                              : op_ == kOpDict ? PickleKind::kDict
                                               : PickleKind::kSet;
      return Collect(kind, begin);
    }
    case kOpAppend:
    case kOpSetItem: {
      const size_t n = op_ == kOpAppend ? 1 : 2;
      if (FrameSize() < n + 1) return Fail(fmt::format("needs {} item(s) on the stack", n + 1));
      return Extend(op_ == kOpAppend ? PickleKind::kList : PickleKind::kDict, PickleOpName(op_),
                    stack_.size() - n);
    }
    case kOpAppends:
    case kOpSetItems:
    case kOpAddItems: {
      size_t begin = 0;
      if (Status s = PopMark(&begin); !s.ok()) return s;
      const PickleKind kind = op_ == kOpAppends    ? PickleKind::kList
                              : op_ == kOpSetItems ? PickleKind::kDict
                                                   : PickleKind::kSet;
      return Extend(kind, PickleOpName(op_), begin);
    }
    default:
      return Fail("not an opcode of pickle protocols 0 to 5");
  }
}

Status PickleParser::StepMemo() {
  std::string_view arg;
  switch (op_) {
    case kOpPut: {
      uint64_t index = 0;
      if (Status s = DecimalIndex(&index); !s.ok()) return s;
      return Put(index);
    }
    case kOpBinPut:
      if (Status s = Take(1, &arg); !s.ok()) return s;
      return Put(static_cast<unsigned char>(arg[0]));
    case kOpLongBinPut:
      if (Status s = Take(4, &arg); !s.ok()) return s;
      return Put(PickleLittleEndian(arg.data(), 4));
    case kOpMemoize:
      return Put(memo_count_);
    case kOpGet: {
      uint64_t index = 0;
      if (Status s = DecimalIndex(&index); !s.ok()) return s;
      return Get(index);
    }
    case kOpBinGet:
      if (Status s = Take(1, &arg); !s.ok()) return s;
      return Get(static_cast<unsigned char>(arg[0]));
    case kOpLongBinGet:
      if (Status s = Take(4, &arg); !s.ok()) return s;
      return Get(PickleLittleEndian(arg.data(), 4));
    default:
      return Fail("not an opcode of pickle protocols 0 to 5");
  }
}

Status PickleParser::Step(bool* stop) {
  op_at_ = pos_;
  op_ = static_cast<uint8_t>(in_[pos_++]);
  if (const std::string_view why = PickleRefusal(op_); !why.empty()) {
    return Fail(fmt::format(
        "refused: {}; only data (dict, list, tuple, set, str, bytes, int, float, bool, None) "
        "is read",
        why));
  }
  switch (op_) {
    case kOpProto:
    case kOpFrame:
    case kOpStop:
    case kOpMark:
    case kOpPop:
    case kOpPopMark:
    case kOpDup:
      return StepControl(stop);
    case kOpBinInt:
    case kOpBinInt1:
    case kOpBinInt2:
    case kOpLong1:
    case kOpLong4:
    case kOpInt:
    case kOpLong:
      return StepInt();
    case kOpNone:
    case kOpNewTrue:
    case kOpNewFalse:
    case kOpFloat:
    case kOpBinFloat:
      return StepScalar();
    case kOpString:
    case kOpUnicode:
    case kOpShortBinString:
    case kOpShortBinUnicode:
    case kOpShortBinBytes:
    case kOpBinString:
    case kOpBinUnicode:
    case kOpBinBytes:
    case kOpBinUnicode8:
    case kOpBinBytes8:
    case kOpByteArray8:
      return StepText();
    case kOpEmptyList:
    case kOpEmptyTuple:
    case kOpEmptyDict:
    case kOpEmptySet:
    case kOpTuple1:
    case kOpTuple2:
    case kOpTuple3:
    case kOpTuple:
    case kOpList:
    case kOpDict:
    case kOpFrozenSet:
    case kOpAppend:
    case kOpSetItem:
    case kOpAppends:
    case kOpSetItems:
    case kOpAddItems:
      return StepContainer();
    case kOpPut:
    case kOpBinPut:
    case kOpLongBinPut:
    case kOpMemoize:
    case kOpGet:
    case kOpBinGet:
    case kOpLongBinGet:
      return StepMemo();
    default:
      return Fail("not an opcode of pickle protocols 0 to 5");
  }
}

// The values STOP returned, walked once without recursion: a container
// that holds itself is refused, and so is nesting deeper than the limit.
// Then the index of every big dict.
Status PickleParser::Finish() {
  auto& nodes = doc_->nodes_;
  std::vector<uint8_t> color(nodes.size(), 0);  // 0 new, 1 on the path, 2 done
  std::vector<uint32_t> height(nodes.size(), 0);
  std::vector<std::pair<uint32_t, size_t>> path;  // node, next item
  path.emplace_back(doc_->root_, 0);
  color[doc_->root_] = 1;
  while (!path.empty()) {
    auto& [id, next] = path.back();
    const auto& items = nodes[id].items;
    if (next < items.size()) {
      const uint32_t child = items[next++];
      if (color[child] == 1) return Fail("refused: a container holds itself (a recursive value)");
      if (color[child] == 2) {
        height[id] = std::max(height[id], height[child]);
        continue;
      }
      // Every node on the path is a container holding the next one.
      if (path.size() > limits_.max_depth) {
        return Fail(fmt::format("values nested deeper than {}", limits_.max_depth));
      }
      color[child] = 1;
      path.emplace_back(child, 0);
      continue;
    }
    color[id] = 2;
    // Final: the containers on the longest path down (0 for a scalar).
    const PickleKind kind = nodes[id].kind;
    const bool container = kind == PickleKind::kList || kind == PickleKind::kTuple ||
                           kind == PickleKind::kSet || kind == PickleKind::kDict;
    height[id] = container ? height[id] + 1 : 0;
    const uint32_t h = height[id];
    path.pop_back();
    if (h > limits_.max_depth) {
      return Fail(fmt::format("values nested deeper than {}", limits_.max_depth));
    }
    if (!path.empty()) {
      const uint32_t parent = path.back().first;
      height[parent] = std::max(height[parent], h);
    }
  }
  constexpr size_t kIndexFrom = 16;  // pairs: fewer are searched one by one
  for (uint32_t id = 0; id < nodes.size(); ++id) {
    const Node& n = nodes[id];
    if (n.kind != PickleKind::kDict || n.items.size() / 2 < kIndexFrom) continue;
    std::vector<uint32_t> pairs;
    for (uint32_t p = 0; p < n.items.size() / 2; ++p) {
      if (nodes[n.items[size_t{2} * p]].kind == PickleKind::kString) pairs.push_back(p);
    }
    const auto key = [&](uint32_t p) -> const std::string& {
      return nodes[n.items[size_t{2} * p]].text;
    };
    std::stable_sort(pairs.begin(), pairs.end(),
                     [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    std::vector<uint32_t> last;  // of each key, the last pair set
    for (size_t k = 0; k < pairs.size(); ++k) {
      if (k + 1 < pairs.size() && key(pairs[k]) == key(pairs[k + 1])) continue;
      last.push_back(pairs[k]);
    }
    doc_->dict_index_.emplace(id, std::move(last));
  }
  return Status::Ok();
}

Status PickleParser::Run() {
  if (in_.size() > limits_.max_bytes) {
    return InvalidInput(fmt::format("{}: pickle of {} bytes, over the limit of {}", name_,
                                    in_.size(), limits_.max_bytes));
  }
  bool stop = false;
  while (!stop) {
    if (pos_ >= in_.size()) {
      op_at_ = in_.size();
      return InvalidInput(fmt::format("{}: pickle truncated at byte {}: no STOP", name_, pos_));
    }
    if (Status s = Step(&stop); !s.ok()) return s;
  }
  return Finish();
}

Result<std::unique_ptr<PickleDocument>> ReadPickle(std::string_view bytes, std::string_view name,
                                                   const PickleLimits& limits) {
  auto doc = std::make_unique<PickleDocument>();
  PickleParser parser(bytes, name, limits, doc.get());
  if (Status s = parser.Run(); !s.ok()) return s;
  return doc;
}

PickleKind PickleValue::kind() const { return doc_->nodes_[id_].kind; }

std::optional<int64_t> PickleValue::AsInt() const {
  const auto& n = doc_->nodes_[id_];
  if (n.kind != PickleKind::kInt) return std::nullopt;
  return n.i;
}

std::optional<double> PickleValue::AsDouble() const {
  const auto& n = doc_->nodes_[id_];
  if (n.kind == PickleKind::kFloat) return n.f;
  if (n.kind == PickleKind::kInt) return static_cast<double>(n.i);
  return std::nullopt;
}

std::optional<bool> PickleValue::AsBool() const {
  const auto& n = doc_->nodes_[id_];
  if (n.kind != PickleKind::kBool) return std::nullopt;
  return n.flag;
}

std::optional<std::string_view> PickleValue::AsString() const {
  const auto& n = doc_->nodes_[id_];
  if (n.kind != PickleKind::kString) return std::nullopt;
  return std::string_view(n.text);
}

std::optional<std::string_view> PickleValue::AsBytes() const {
  const auto& n = doc_->nodes_[id_];
  if (n.kind != PickleKind::kBytes) return std::nullopt;
  return std::string_view(n.text);
}

std::string_view PickleValue::BigIntText() const {
  const auto& n = doc_->nodes_[id_];
  return n.kind == PickleKind::kBigInt ? std::string_view(n.text) : std::string_view();
}

size_t PickleValue::size() const {
  const auto& n = doc_->nodes_[id_];
  return n.kind == PickleKind::kDict ? n.items.size() / 2 : n.items.size();
}

PickleValue PickleValue::at(size_t i) const { return {doc_, doc_->nodes_[id_].items.at(i)}; }
PickleValue PickleValue::key(size_t i) const { return {doc_, doc_->nodes_[id_].items.at(2 * i)}; }
PickleValue PickleValue::value(size_t i) const {
  return {doc_, doc_->nodes_[id_].items.at(2 * i + 1)};
}

std::optional<PickleValue> PickleValue::Get(std::string_view key) const {
  const auto& n = doc_->nodes_[id_];
  if (n.kind != PickleKind::kDict) return std::nullopt;
  const auto& nodes = doc_->nodes_;
  const auto key_of = [&](uint32_t p) -> const PickleDocument::Node& {
    return nodes[n.items[size_t{2} * p]];
  };
  if (const auto it = doc_->dict_index_.find(id_); it != doc_->dict_index_.end()) {
    const auto& pairs = it->second;
    const auto found = std::lower_bound(
        pairs.begin(), pairs.end(), key,
        [&](uint32_t p, std::string_view k) { return std::string_view(key_of(p).text) < k; });
    if (found == pairs.end() || key_of(*found).text != key) return std::nullopt;
    return PickleValue(doc_, n.items[size_t{2} * *found + 1]);
  }
  for (size_t p = n.items.size() / 2; p-- > 0;) {
    const auto& k = key_of(static_cast<uint32_t>(p));
    if (k.kind == PickleKind::kString && k.text == key)
      return PickleValue(doc_, n.items[2 * p + 1]);
  }
  return std::nullopt;
}

}  // namespace trainscope::formats
