// The fields of a '|'-separated line of "key: value" fields (Megatron's
// training_log, DeepSpeed-Chat's step line), walked in order.
//
// A Megatron-LM line has a dozen fields and a log has millions of lines:
// finding each bar with memchr and each field's last colon byte by byte
// backwards, with the trims and name compares around them, was about half
// of the parsing thread's samples (`perf`, the 1 GB log of
// docs/benchmarks.md). A line of up to kMarkedLineBytes is marked once, 64
// bytes at a time (one bit per bar and per colon), and its fields read off
// the marks; a longer line is walked as before. Both ways give the same
// fields (tests/unit/bar_fields_test.cc compares them on random lines).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "core/row_issues.h"

namespace trainscope::formats {

// |s| without its leading and trailing spaces and tabs.
[[gnu::always_inline]] inline std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

namespace bar_fields {

inline constexpr size_t kMarkedLineBytes = 1024;
inline constexpr size_t kWords = kMarkedLineBytes / 64;

// One bit per byte of a line that is a bar, and one per byte that is a colon.
struct Marks {
  uint64_t bars[kWords];
  uint64_t colons[kWords];
};

// One bit per byte of the 64 at |block| that equals |c|.
[[gnu::always_inline]] inline uint64_t MaskOf(const char* block, char c) {
#if defined(__AVX2__)
  const __m256i wanted = _mm256_set1_epi8(c);
  const auto low = static_cast<uint32_t>(_mm256_movemask_epi8(
      _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)), wanted)));
  const auto high = static_cast<uint32_t>(_mm256_movemask_epi8(
      _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 32)), wanted)));
  return uint64_t{low} | (uint64_t{high} << 32);
#else
  uint64_t mask = 0;
  for (size_t i = 0; i < 64; ++i) mask |= uint64_t{block[i] == c} << i;
  return mask;
#endif
}

// Marks the bars and colons of |line| (at most kMarkedLineBytes), a word of
// 64 bytes at a time; the last, shorter word through a zeroed copy, so that
// nothing past the line is read.
inline void Mark(std::string_view line, Marks* marks) {
  const size_t size = line.size();
  for (size_t w = 0; w * 64 < size; ++w) {
    const size_t at = w * 64;
    const char* block = line.data() + at;
    char last[64];
    if (size - at < 64) {
      std::memset(last, 0, sizeof last);
      std::memcpy(last, block, size - at);
      block = last;
    }
    marks->bars[w] = MaskOf(block, '|');
    marks->colons[w] = MaskOf(block, ':');
  }
}

// The last colon in [begin, end) of the marked line; end when none.
inline size_t LastColon(const Marks& marks, size_t begin, size_t end) {
  size_t at = end;
  while (at > begin) {
    const size_t word = (at - 1) / 64;
    const size_t top = (at - 1) % 64;  // the highest bit of the word still in range
    uint64_t bits = marks.colons[word] & (top == 63 ? ~uint64_t{0} : (uint64_t{2} << top) - 1);
    const size_t word_begin = word * 64;
    if (begin > word_begin) bits &= ~uint64_t{0} << (begin - word_begin);
    if (bits != 0) return word_begin + 63 - static_cast<size_t>(std::countl_zero(bits));
    at = word_begin;
  }
  return end;
}

// Calls |fn(key, value)| for the field [begin, end) of |line| when it holds
// a colon (|colon| < end, its last): the key trimmed and cut there, the
// value the rest. Both walks make their fields with it.
template <typename FieldFn>
[[gnu::always_inline]] inline RowIssue Field(std::string_view line, size_t begin, size_t end,
                                             size_t colon, FieldFn& fn) {
  if (colon == end) return RowIssue::kNone;
  return fn(TrimBlanks(line.substr(begin, colon - begin)), line.substr(colon + 1, end - colon - 1));
}

// The walk of any line, one field at a time (memchr for the bar, the colon
// found backwards).
template <typename FieldFn>
RowIssue ForEachOneByOne(std::string_view line, FieldFn&& fn) {
  while (!line.empty()) {
    const size_t bar = line.find('|');
    const std::string_view field = line.substr(0, bar);
    line = bar == std::string_view::npos ? std::string_view() : line.substr(bar + 1);
    const size_t colon = field.rfind(':');
    const RowIssue issue =
        Field(field, 0, field.size(), colon == std::string_view::npos ? field.size() : colon, fn);
    if (issue != RowIssue::kNone) return issue;
  }
  return RowIssue::kNone;
}

// The walk of a line of up to kMarkedLineBytes, from its marks.
template <typename FieldFn>
RowIssue ForEachMarked(std::string_view line, FieldFn&& fn) {
  Marks marks;
  Mark(line, &marks);
  size_t begin = 0;
  for (size_t w = 0; w * 64 < line.size(); ++w) {
    for (uint64_t bars = marks.bars[w]; bars != 0; bars &= bars - 1) {
      const size_t bar = w * 64 + static_cast<size_t>(std::countr_zero(bars));
      const RowIssue issue = Field(line, begin, bar, LastColon(marks, begin, bar), fn);
      if (issue != RowIssue::kNone) return issue;
      begin = bar + 1;
    }
  }
  if (begin < line.size()) {
    return Field(line, begin, line.size(), LastColon(marks, begin, line.size()), fn);
  }
  return RowIssue::kNone;
}

}  // namespace bar_fields

// |fn(key, value)| per field of |line| that holds a colon, in order: the
// fields are cut at every '|', the key is the field up to its last colon,
// trimmed, the value the rest, untrimmed. The first issue |fn| returns ends
// the walk and is returned.
template <typename FieldFn>
RowIssue ForEachBarField(std::string_view line, FieldFn&& fn) {
  if (line.size() <= bar_fields::kMarkedLineBytes) return bar_fields::ForEachMarked(line, fn);
  return bar_fields::ForEachOneByOne(line, fn);
}

}  // namespace trainscope::formats
