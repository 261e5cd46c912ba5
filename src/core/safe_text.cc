#include "core/safe_text.h"

#include <fmt/format.h>

namespace trainscope {
namespace {

inline bool InRange(unsigned char c, unsigned char lo, unsigned char hi) {
  return c >= lo && c <= hi;
}

}  // namespace

size_t Utf8SequenceLength(std::string_view text, size_t i, size_t* bad_length,
                          uint32_t* code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) {
    if (code_point != nullptr) *code_point = lead;
    return 1;
  }
  size_t need = 0;
  // The allowed range of the second byte excludes overlongs (E0 80..9F,
  // F0 80..8F), surrogates (ED A0..BF) and > U+10FFFF (F4 90..BF).
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (InRange(lead, 0xC2, 0xDF)) {
    need = 1;
  } else if (InRange(lead, 0xE0, 0xEF)) {
    need = 2;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (InRange(lead, 0xF0, 0xF4)) {
    need = 3;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    *bad_length = 1;  // continuation byte, C0/C1 overlong lead, F5..FF
    return 0;
  }
  size_t k = 1;
  for (; k <= need; ++k) {
    if (i + k >= text.size()) break;
    const unsigned char c = byte(i + k);
    const bool ok = k == 1 ? InRange(c, lo, hi) : InRange(c, 0x80, 0xBF);
    if (!ok) break;
  }
  if (k <= need) {
    *bad_length = k;  // the lead and the continuation bytes that fitted
    return 0;
  }
  if (code_point != nullptr) {
    uint32_t cp = lead & (need == 1 ? 0x1F : need == 2 ? 0x0F : 0x07);
    for (size_t j = 1; j <= need; ++j) cp = (cp << 6) | (byte(i + j) & 0x3F);
    *code_point = cp;
  }
  return need + 1;
}

bool IsValidUtf8(std::string_view text) {
  size_t bad = 0;
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = Utf8SequenceLength(text, i, &bad);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void AppendValidUtf8(std::string* out, std::string_view text) {
  size_t bad = 0;
  size_t clean_from = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = Utf8SequenceLength(text, i, &bad);
    if (n != 0) {
      i += n;
      continue;
    }
    out->append(text.substr(clean_from, i - clean_from));
    out->append(kReplacementChar);
    i += bad;
    clean_from = i;
  }
  out->append(text.substr(clean_from));
}

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendValidUtf8(&out, text);
  return out;
}

void AppendTerminalSafe(std::string* out, std::string_view text, bool keep_newlines) {
  size_t bad = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(c == '\n' && keep_newlines)) || c == 0x7F) {
        out->append(fmt::format("\\x{:02x}", c));
      } else {
        out->push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = Utf8SequenceLength(text, i, &bad, &cp);
    if (n == 0) {
      out->append(kReplacementChar);
      i += bad;
      continue;
    }
    const bool c1 = cp >= 0x80 && cp <= 0x9F;
    const bool format = cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
                        (cp >= 0x2066 && cp <= 0x2069);
    if (c1 || format) {
      out->append(fmt::format("\\u{:04x}", cp));
    } else {
      out->append(text.substr(i, n));
    }
    i += n;
  }
}

std::string TerminalSafe(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  AppendTerminalSafe(&out, text, keep_newlines);
  return out;
}

std::string CappedQuote(std::string_view text, size_t cap) {
  if (text.size() <= cap) return std::string(text);
  size_t cut = cap;
  // Back up over UTF-8 continuation bytes (10xxxxxx): never half a character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} bytes)", text.substr(0, cut), text.size());
}

}  // namespace trainscope
