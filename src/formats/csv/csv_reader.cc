#include "formats/csv/csv_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

namespace trainscope::formats {
namespace {

// Bytes that end an unquoted field. '"' is not among them: a quote inside an
// unquoted field is literal (as Python's csv reader treats it). NUL is, so
// binary garbage is reported (the record skipped) instead of being returned
// as text.
constexpr std::array<bool, 256> MakeTable(std::string_view specials) {
  std::array<bool, 256> table{};
  for (char c : specials) table[static_cast<unsigned char>(c)] = true;
  return table;
}
constexpr std::array<bool, 256> kUnquotedStop = MakeTable(std::string_view(",\n\r\0", 4));
// Bytes that need attention inside a quoted field: the quote, line ends (for
// line numbers) and NUL.
constexpr std::array<bool, 256> kQuotedStop = MakeTable(std::string_view("\"\n\r\0", 4));

inline bool IsStop(const std::array<bool, 256>& table, char c) {
  return table[static_cast<unsigned char>(c)];
}

// A bit for each of the 64 bytes from |block| (fewer at the end of the
// data) that ends an unquoted field (',', '\n', '\r', NUL) and, with
// |kQuotes|, for each '"'. One vector compare per 32 (AVX2) or 16 (SSE2)
// bytes; the last, partial block byte by byte. Always inlined: called out
// of line, the fast path's scan lost a quarter of its speed (BM_CsvReaderOnly
// 36 -> 45 ms).
template <bool kQuotes>
inline __attribute__((always_inline)) uint64_t StopBits(const char* base, size_t block, size_t n) {
  const char* at = base + block;
  if (block + 64 <= n) {
#if defined(__AVX2__)
    auto mask32 = [](const char* p) {
      const __m256i chunk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      __m256i hits =
          _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(chunk, _mm256_set1_epi8(',')),
                                          _mm256_cmpeq_epi8(chunk, _mm256_set1_epi8('\n'))),
                          _mm256_or_si256(_mm256_cmpeq_epi8(chunk, _mm256_set1_epi8('\r')),
                                          _mm256_cmpeq_epi8(chunk, _mm256_setzero_si256())));
      if constexpr (kQuotes) {
        hits = _mm256_or_si256(hits, _mm256_cmpeq_epi8(chunk, _mm256_set1_epi8('"')));
      }
      return uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(hits))};
    };
    return mask32(at) | (mask32(at + 32) << 32);
#elif defined(__SSE2__)
    auto mask16 = [](const char* p) {
      const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(',')),
                                               _mm_cmpeq_epi8(chunk, _mm_set1_epi8('\n'))),
                                  _mm_or_si128(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('\r')),
                                               _mm_cmpeq_epi8(chunk, _mm_setzero_si128())));
      if constexpr (kQuotes) hits = _mm_or_si128(hits, _mm_cmpeq_epi8(chunk, _mm_set1_epi8('"')));
      return uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(hits))};
    };
    return mask16(at) | (mask16(at + 16) << 16) | (mask16(at + 32) << 32) | (mask16(at + 48) << 48);
#endif
  }
  uint64_t mask = 0;
  const size_t end = std::min<size_t>(64, n - block);
  for (size_t i = 0; i < end; ++i) {
    if (IsStop(kUnquotedStop, at[i]) || (kQuotes && at[i] == '"')) mask |= uint64_t{1} << i;
  }
  return mask;
}

// Where unquoted fields end, one 64-byte block at a time (StopBits).
// Profile rows are dozens of short fields ("N/A", "0.0"), so finding each
// one's end by a fresh vector compare cost more than the compare itself;
// with the block's bits at hand the next stop is a shift and a count of
// trailing zeros, and a block is compared once for the ~8 fields it holds.
// Blocks start at multiples of 64 from the start of the data.
class StopIndex {
 public:
  StopIndex(const char* base, size_t n) : base_(base), n_(n) {}

  // Offset of the first stop at or after |p| (p <= n), or |n|.
  size_t Find(size_t p) {
    for (;;) {
      const size_t block = p & ~size_t{63};
      if (block != block_) {
        block_ = block;
        mask_ = StopBits<false>(base_, block, n_);
      }
      const uint64_t later = mask_ & (~uint64_t{0} << (p - block));
      if (later != 0) return block + static_cast<size_t>(__builtin_ctzll(later));
      p = block + 64;
      if (p >= n_) return n_;
    }
  }

 private:
  const char* base_;
  size_t n_;
  size_t block_ = ~size_t{0};  // no block loaded
  uint64_t mask_ = 0;
};

// A record's fields as the reader's fast path finds them: gathered in a
// local batch and appended to the record's vector 32 at a time (a
// push_back per field reloads and stores the vector's end each time). The
// batch is left uninitialised: a string_view array would be zeroed for
// every record.
class FieldBatch {
 public:
  explicit FieldBatch(std::vector<std::string_view>* fields) : fields_(fields) {}
  void Push(std::string_view field) {
    if (batched_ == kBatch) Flush();
    std::construct_at(batch() + batched_++, field);
  }
  // The index the next field pushed will have in the vector.
  size_t next_index() const { return fields_->size() + batched_; }
  void Flush() {
    // string_views from a pointer range: one memmove (a range of another
    // type was converted element by element, 5 % of a kernel_details read).
    fields_->insert(fields_->end(), batch(), batch() + batched_);
    batched_ = 0;
  }

 private:
  static constexpr size_t kBatch = 32;
  // string_view is an implicit-lifetime type: the storage holds an array of
  // them, each constructed as it is pushed.
  std::string_view* batch() { return std::launder(reinterpret_cast<std::string_view*>(storage_)); }
  std::vector<std::string_view>* fields_;
  alignas(std::string_view) std::byte storage_[kBatch * sizeof(std::string_view)];  // NOLINT
  size_t batched_ = 0;
};

// Where NextFast is inside a quoted field, one stop at a time.
struct QuotedField {
  bool open = false;        // the current field opened with a quote
  bool inside = false;      // ... and it has not closed yet
  bool doubled = false;     // ... and it holds a doubled quote
  size_t close = 0;         // its closing quote, once closed
  size_t ignore_below = 0;  // the second quote of a pair, when it is in the next block
  size_t pairs = 0;         // doubled quotes in the field
  size_t first_pair = 0;    // where the first pair starts
  size_t last_pair = 0;     // where the last pair starts

  void Open() {
    open = true;
    inside = true;
  }
  // The stop at |at| inside the field (|stops| the rest of |block|'s):
  // false for what the slow path must read (a line break, which it counts,
  // a NUL, which it reports, bytes between the closing quote and the
  // delimiter, which it keeps).
  bool Step(const char* base, size_t n, size_t at, size_t block, uint64_t* stops) {
    const char c = base[at];
    if (c == ',') return true;
    if (c != '"') return false;
    if (at + 1 < n && base[at + 1] == '"') {
      doubled = true;
      if (pairs++ == 0) first_pair = at;
      last_pair = at;
      if (at + 1 - block < 64) {
        *stops &= ~(uint64_t{1} << (at + 1 - block));
      } else {
        ignore_below = at + 2;
      }
      return true;
    }
    inside = false;
    close = at;
    return at + 1 >= n || IsStop(kUnquotedStop, base[at + 1]);
  }
};

// Appends the quoted field [open, close] to |scratch| without its quotes,
// every doubled quote as one; returns where it starts. Every quote inside
// is one of an adjacent pair (QuotedField checked it): each byte is written
// and the pointer kept still at every second quote, so neither the read
// index nor the write pointer waits on a load (skipping the pair's second
// byte by index did: a load, a compare and an add in a chain), into room
// made first (a push_back per byte rechecked the capacity each time).
size_t AppendUnescaped(const char* base, size_t open, size_t close, std::string* scratch) {
  const size_t offset = scratch->size();
  scratch->resize(offset + (close - open - 1));
  char* const begin = scratch->data() + offset;
  char* write = begin;
  bool odd = false;  // after the first quote of a pair
  for (size_t i = open + 1; i < close; ++i) {
    const char c = base[i];
    const bool quote = c == '"';
    odd ^= quote;
    *write = c;
    write += static_cast<size_t>(!quote || odd);
  }
  scratch->resize(offset + static_cast<size_t>(write - begin));
  return offset;
}

// Offset of the first '\n' or '\r' at or after |p|, or |n|.
inline size_t FindLineBreak(const char* base, size_t p, size_t n) {
  if (p >= n) return n;
  const void* lf = std::memchr(base + p, '\n', n - p);
  const size_t lf_at = lf == nullptr ? n : static_cast<size_t>(static_cast<const char*>(lf) - base);
  const void* cr = std::memchr(base + p, '\r', lf_at - p);
  return cr == nullptr ? lf_at : static_cast<size_t>(static_cast<const char*>(cr) - base);
}

}  // namespace

std::string CsvError::ToString() const {
  return fmt::format("line {}, column {} (byte {}): {}", line, column, byte_offset, message);
}

std::string CsvError::DescribeInRecord() const {
  if (line != record_line) {
    return fmt::format("record line {}, column {} (byte {}): {}", line - record_line + 1, column,
                       byte_offset, message);
  }
  return fmt::format("column {} (byte {}): {}", column, byte_offset, message);
}

const char* CsvProblemReason(CsvProblem problem) {
  switch (problem) {
    case CsvProblem::kNone:
      return "";
    case CsvProblem::kNulByte:
      return "NUL byte in the record";
    case CsvProblem::kRecordTooLong:
      return "record over the size limit";
    case CsvProblem::kUnterminatedQuote:
      return "unterminated quoted field";
  }
  return "";
}

size_t CsvReader::ConfiguredMaxRecordBytes() {
  static const size_t configured = [] {
    const char* env = std::getenv(kMaxRecordBytesEnv);
    if (env == nullptr) return kDefaultMaxRecordBytes;
    const std::string_view text(env);
    size_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || value == 0) {
      return kDefaultMaxRecordBytes;
    }
    return value;
  }();
  return configured;
}

CsvReader::CsvReader(std::string_view data, size_t max_record_bytes)
    : data_(data), max_record_bytes_(max_record_bytes) {
  // Excel's "CSV UTF-8" adds a BOM; no profiler writes one, but re-saved
  // files must still match header names.
  if (data_.size() >= 3 && data_.substr(0, 3) == "\xEF\xBB\xBF") {
    pos_ = 3;
    line_start_ = 3;
  }
}

CsvReader::CsvReader(std::string_view data, size_t max_record_bytes, size_t begin, size_t end)
    : data_(data.substr(0, std::min(end, data.size()))), max_record_bytes_(max_record_bytes) {
  pos_ = std::min<uint64_t>(begin, data_.size());
  line_start_ = pos_;
}

void CsvReader::SetProblem(CsvRecord* out, CsvProblem problem, uint64_t offset,
                           std::string message) {
  out->problem = problem;
  out->fields.clear();
  out->error.message = std::move(message);
  out->error.line = line_;
  out->error.column = static_cast<int64_t>(offset - line_start_) + 1;
  out->error.byte_offset = offset;
  out->error.record_line = record_line_;
}

void CsvReader::SkipToLineBreak(uint64_t from) {
  pos_ = FindLineBreak(data_.data(), from, data_.size());
  state_ = CsvState::kRecordEnd;
}

void CsvReader::NoteNul(uint64_t pos) {
  if (nul_seen_) return;
  nul_seen_ = true;
  nul_at_.line = line_;
  nul_at_.column = static_cast<int64_t>(pos - line_start_) + 1;
  nul_at_.byte_offset = pos;
}

bool CsvReader::Next(CsvRecord* out) {
  out->fields.clear();
  out->problem = CsvProblem::kNone;
  const char* base = data_.data();
  const size_t n = data_.size();

  // Blank lines carry no record (Python's csv skips them too).
  while (pos_ < n) {
    const char c = base[pos_];
    if (c == '\n') {
      ++pos_;
      NewLine(pos_);
    } else if (c == '\r') {
      ++pos_;
      if (pos_ < n && base[pos_] == '\n') ++pos_;
      NewLine(pos_);
    } else {
      break;
    }
  }
  if (pos_ >= n) return false;

  record_start_ = pos_;
  record_line_ = line_;
  out->line = line_;
  out->byte_offset = pos_;
  // The record's fields and unescaped text start empty on either path (a
  // record NextFast hands over may have left some).
  auto start_fields = [&] {
    out->fields.clear();
    scratch_.clear();
    fixups_.clear();
  };
  start_fields();
  nul_seen_ = false;
  if (fast_path_ && NextFast(out)) return true;
  start_fields();

  // The loop works on locals: stores into the field vector could alias the
  // pos_ member for the compiler, forcing a reload per field.
  std::vector<std::string_view>& fields = out->fields;
  const uint64_t record_limit = record_start_ + max_record_bytes_;
  size_t pos = pos_;
  StopIndex stops(base, n);
  CsvState state = CsvState::kFieldStart;
  while (state != CsvState::kRecordEnd) {
    if (pos < n && base[pos] == '"') {
      state_ = CsvState::kQuoted;
      pos_ = pos;
      if (!ReadQuotedField(out)) return true;  // damaged record, reader resynchronised
      pos = pos_;
    } else {
      // Fast path: scan to the next delimiter, line end or NUL.
      const size_t stop = stops.Find(pos);
      fields.emplace_back(base + pos, stop - pos);
      pos = stop;
    }
    if (pos > record_limit) {
      // Unquoted fields never span lines: the record ends at the next break.
      // Reported where the record starts; unquoted fields never span lines,
      // so the record ends at the next line break.
      const int64_t line = line_;
      const uint64_t line_start = line_start_;
      line_ = record_line_;
      line_start_ = record_start_;
      SetProblem(out, CsvProblem::kRecordTooLong, record_start_,
                 fmt::format("record longer than {} bytes (the limit; {} overrides it)",
                             max_record_bytes_, kMaxRecordBytesEnv));
      line_ = line;
      line_start_ = line_start;
      SkipToLineBreak(pos);
      return true;
    }
    if (pos >= n) break;  // last record without a line end
    const char c = base[pos];
    if (c == ',') {
      ++pos;
      state = CsvState::kFieldStart;
    } else if (c == '\n') {
      ++pos;
      NewLine(pos);
      state = CsvState::kRecordEnd;
    } else if (c == '\r') {
      ++pos;
      if (pos < n && base[pos] == '\n') ++pos;
      NewLine(pos);
      state = CsvState::kRecordEnd;
    } else {
      // NUL: remember the first one and read on to the end of the record,
      // which the NUL does not change.
      NoteNul(pos);
      ++pos;
      state = CsvState::kFieldStart;
    }
  }
  pos_ = pos;
  if (nul_seen_) {
    state_ = CsvState::kRecordEnd;
    out->problem = CsvProblem::kNulByte;
    out->fields.clear();
    out->error = nul_at_;
    out->error.message = "NUL byte (binary data, not CSV text)";
    out->error.record_line = record_line_;
    return true;
  }
  return Finish(out);
}

bool CsvReader::NextFast(CsvRecord* out) {
  const char* base = data_.data();
  const size_t n = data_.size();
  const size_t record_limit = record_start_ + max_record_bytes_;
  FieldBatch batch(&out->fields);
  QuotedField quoted;
  size_t field_start = pos_;
  // The field ending at the stop |end|: a view of the bytes, or for a
  // quoted field with doubled quotes its unescaped copy in the scratch.
  auto emit = [&](size_t end) __attribute__((always_inline)) {
    if (!quoted.open) {
      batch.Push(std::string_view(base + field_start, end - field_start));
    } else if (!quoted.doubled) {
      batch.Push(std::string_view(base + field_start + 1, quoted.close - field_start - 1));
    } else if (quoted.pairs == 2 && quoted.first_pair == field_start + 1 &&
               quoted.last_pair + 2 == quoted.close) {
      // """text""" (torch_npu's shapes): unescaped it is "text", which the
      // bytes hold from the first pair's second quote to the last pair's
      // first, so it is a view, not a copy.
      batch.Push(std::string_view(base + field_start + 2, quoted.close - field_start - 3));
    } else {
      const size_t offset = AppendUnescaped(base, field_start, quoted.close, &scratch_);
      fixups_.push_back({batch.next_index(), offset, scratch_.size() - offset});
      batch.Push(std::string_view());  // patched when the record is complete
    }
    quoted = QuotedField();
  };
  size_t block = pos_;
  uint64_t stops = StopBits</*kQuotes=*/true>(base, block, n);
  for (;;) {
    while (stops == 0) {
      block += 64;
      if (block >= n) {
        // The last record, without a line end.
        if (quoted.inside || n > record_limit) return false;
        emit(n);
        batch.Flush();
        return FinishFast(n, out);
      }
      if (block > record_limit) return false;
      __builtin_prefetch(base + block + 1024);
      stops = StopBits</*kQuotes=*/true>(base, block, n);
      if (quoted.ignore_below > block) stops &= ~uint64_t{0} << (quoted.ignore_below - block);
    }
    const size_t at = block + static_cast<size_t>(__builtin_ctzll(stops));
    stops &= stops - 1;
    const char c = base[at];
    if (quoted.inside) {
      if (!quoted.Step(base, n, at, block, &stops)) return false;
    } else if (c == ',') {
      emit(at);
      field_start = at + 1;
    } else if (c == '"') {
      // Only a field's first byte opens quotes; elsewhere it is literal.
      if (at == field_start) quoted.Open();
    } else if (c == '\0' || at > record_limit) {
      return false;  // the slow path reports them
    } else {
      emit(at);
      NewLine(at + 1 + static_cast<size_t>(c == '\r' && at + 1 < n && base[at + 1] == '\n'));
      batch.Flush();
      return FinishFast(line_start_, out);
    }
  }
}

bool CsvReader::FinishFast(size_t next, CsvRecord* out) {
  ++fast_records_;
  pos_ = next;
  return Finish(out);
}

bool CsvReader::Finish(CsvRecord* out) {
  state_ = CsvState::kRecordEnd;
  for (const Fixup& fixup : fixups_) {
    out->fields[fixup.field_index] = std::string_view(scratch_.data() + fixup.offset, fixup.length);
  }
  return true;
}

bool CsvReader::ReadQuotedField(CsvRecord* out) {
  const char* base = data_.data();
  const size_t n = data_.size();
  const uint64_t open = pos_;
  const int64_t open_line = line_;
  const uint64_t open_line_start = line_start_;
  const size_t scratch_offset = scratch_.size();
  bool copying = false;
  size_t segment = pos_ + 1;  // start of the bytes not yet copied
  size_t p = segment;
  // Gives up on the record: reported where the quote opened (that is where
  // a user has to look), resumed at the line after the opening quote. Every
  // quote inside the abandoned stretch pairs up (else the field would have
  // closed there), so no later field can open inside it and scan it again:
  // the reader stays linear in the file size.
  auto give_up = [&](CsvProblem problem, std::string message) {
    line_ = open_line;
    line_start_ = open_line_start;
    SetProblem(out, problem, open, std::move(message));
    SkipToLineBreak(open + 1);
    return false;
  };
  for (;;) {
    while (p < n && !IsStop(kQuotedStop, base[p])) ++p;
    if (p - record_start_ > max_record_bytes_) {
      return give_up(CsvProblem::kRecordTooLong,
                     fmt::format("quoted field runs past the record limit of {} bytes (a quote "
                                 "that never closes? {} overrides the limit); reading resumes at "
                                 "the next line",
                                 max_record_bytes_, kMaxRecordBytesEnv));
    }
    if (p >= n) {
      return give_up(CsvProblem::kUnterminatedQuote,
                     "unterminated quoted field (the file ends inside it; truncated?); reading "
                     "resumes at the next line");
    }
    const char c = base[p];
    if (c == '"') {
      state_ = CsvState::kQuoteInQuoted;
      if (p + 1 < n && base[p + 1] == '"') {
        // Doubled quote: one literal quote. Only now is a copy needed.
        copying = true;
        scratch_.append(base + segment, p + 1 - segment);
        p += 2;
        segment = p;
        state_ = CsvState::kQuoted;
        continue;
      }
      break;  // closing quote
    }
    if (c == '\n') {
      NewLine(p + 1);
    } else if (c == '\r') {
      if (p + 1 >= n || base[p + 1] != '\n') NewLine(p + 1);  // CRLF counts at the LF
    } else {
      NoteNul(p);
    }
    ++p;
  }

  // p is at the closing quote. Bytes between it and the delimiter are not
  // RFC-4180, but Python's csv keeps them, and so do we.
  state_ = CsvState::kAfterQuoted;
  const size_t after = p + 1;
  size_t tail_end = after;
  while (tail_end < n && !IsStop(kUnquotedStop, base[tail_end])) ++tail_end;
  if (!copying && tail_end == after) {
    out->fields.emplace_back(base + segment, p - segment);
  } else {
    scratch_.append(base + segment, p - segment);
    scratch_.append(base + after, tail_end - after);
    fixups_.push_back({out->fields.size(), scratch_offset, scratch_.size() - scratch_offset});
    out->fields.emplace_back();  // patched when the record is complete
  }
  pos_ = tail_end;
  return true;
}

}  // namespace trainscope::formats
