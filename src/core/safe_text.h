// Profile strings are untrusted bytes: kernel names, paths and field values
// may hold invalid UTF-8 and control bytes (ESC, BEL, CR, ...). These helpers
// make such text safe to emit: valid UTF-8 for JSON/HTML (RFC 8259 requires
// it), and nothing a terminal would interpret for the text report and
// messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trainscope {

// U+FFFD REPLACEMENT CHARACTER in UTF-8.
inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

// Length of the well-formed UTF-8 sequence starting at text[i] (1..4), or 0
// if it is ill-formed; then *bad_length is the maximal subpart to replace by
// one U+FFFD (Unicode 15, §3.9 "U+FFFD substitution of maximal subparts"):
// overlongs, surrogates (CESU-8), code points past U+10FFFF, lone
// continuation bytes and truncated sequences are all ill-formed.
size_t Utf8SequenceLength(std::string_view text, size_t i, size_t* bad_length,
                          uint32_t* code_point = nullptr);

bool IsValidUtf8(std::string_view text);

// |text| with every ill-formed sequence replaced by U+FFFD.
void AppendValidUtf8(std::string* out, std::string_view text);
std::string ValidUtf8(std::string_view text);

// |text| made harmless for a terminal: ill-formed UTF-8 becomes U+FFFD; C0
// controls, DEL, C1 controls (U+0080..U+009F) and the bidi/line-separator
// format characters (U+2028/9, U+202A..E, U+2066..9) become a visible escape
// ("\x1b", "\x07", "\u009b", "\u202e"). '\n' is kept when |keep_newlines|
// (multi-line messages), else escaped like the rest.
void AppendTerminalSafe(std::string* out, std::string_view text, bool keep_newlines = false);
std::string TerminalSafe(std::string_view text, bool keep_newlines = false);

// |text| as quoted in a message: whole when at most |cap| bytes, else its
// first |cap| bytes (cut at a character boundary) and "... (N bytes)", so a
// 100 MB line never reaches stderr whole.
std::string CappedQuote(std::string_view text, size_t cap = 120);

}  // namespace trainscope
