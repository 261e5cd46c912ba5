#include "formats/ascend/kernel_details_reader.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "core/numbers.h"
#include "formats/ascend/csv_common.h"
#include "formats/csv/csv_header.h"
#include "formats/csv/csv_reader.h"

namespace trainscope::formats {
namespace {

constexpr std::string_view kHint =
    "kernel_details.csv needs Name, Start Time(us) (or Task Start Time(us)) and Duration(us) "
    "(or Task Duration(us)); pass the ASCEND_PROFILER_OUTPUT/kernel_details.csv written by "
    "torch_npu, with its header as the first line";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Strips trailing "_<digits>" groups: "hcom_allReduce__586_0_1" -> "hcom_allReduce_".
std::string_view StripNumericSuffixes(std::string_view name) {
  for (;;) {
    size_t end = name.size();
    while (end > 0 && IsDigit(name[end - 1])) --end;
    if (end == name.size() || end == 0 || name[end - 1] != '_' || end - 1 == 0) return name;
    name = name.substr(0, end - 1);
  }
}

// StringPool::Intern costs a full-string hash and a bucket walk with a
// modulo. Kernel names, types and cores come from a few hundred distinct
// values, so a direct-mapped cache in front of the pool, keyed by a cheap
// hash of length and the first and last 8 bytes, answers almost every row;
// a hit is verified with one memcmp against the pooled text.
class InternCache {
 public:
  explicit InternCache(StringPool* pool) : pool_(pool) {
    for (StringId& id : slots_) id = StringPool::kNotInterned;
  }

  StringId Intern(std::string_view text) {
    StringId& slot = slots_[Slot(text)];
    if (slot != StringPool::kNotInterned) {
      const std::string_view cached = pool_->Get(slot);
      if (cached.size() == text.size() &&
          (text.empty() || std::memcmp(cached.data(), text.data(), text.size()) == 0)) {
        return slot;
      }
    }
    slot = pool_->Intern(text);
    return slot;
  }

 private:
  static constexpr size_t kSlots = 4096;  // power of two

  static size_t Slot(std::string_view text) {
    uint64_t head = 0;
    uint64_t tail = 0;
    if (text.size() >= 8) {
      std::memcpy(&head, text.data(), 8);
      std::memcpy(&tail, text.data() + text.size() - 8, 8);
    } else if (!text.empty()) {
      std::memcpy(&head, text.data(), text.size());
    }
    uint64_t h = (head * 0x9E3779B97F4A7C15ull) ^ (tail + text.size());
    h *= 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h >> 52) & (kSlots - 1);
  }

  StringPool* pool_;
  std::array<StringId, kSlots> slots_;
};

struct KernelColumns {
  int step = CsvHeader::kAbsent;
  int name = CsvHeader::kAbsent;
  int type = CsvHeader::kAbsent;
  int accelerator = CsvHeader::kAbsent;
  int stream = CsvHeader::kAbsent;
  int start = CsvHeader::kAbsent;
  int duration = CsvHeader::kAbsent;
  int wait = CsvHeader::kAbsent;
  int block_dim = CsvHeader::kAbsent;
  int aic_mac_ratio = CsvHeader::kAbsent;
  int aic_mte2_ratio = CsvHeader::kAbsent;
  int aiv_vec_ratio = CsvHeader::kAbsent;
};

KernelColumns FindColumns(const CsvHeader& header) {
  KernelColumns c;
  c.step = header.Find({"Step Id", "Step ID"});  // case-insensitive anyway
  c.name = header.Find({"Name", "Op Name"});
  c.type = header.Find({"Type", "OP Type"});
  c.accelerator = header.Find({"Accelerator Core", "Task Type"});
  c.stream = header.Find({"Stream ID", "Stream Id"});
  c.start = header.Find({"Start Time(us)", "Task Start Time(us)"});
  c.duration = header.Find({"Duration(us)", "Task Duration(us)"});
  c.wait = header.Find({"Wait Time(us)", "Task Wait Time(us)"});
  c.block_dim = header.Find({"Block Dim", "Block Num"});
  c.aic_mac_ratio = header.Find("aic_mac_ratio");
  c.aic_mte2_ratio = header.Find("aic_mte2_ratio");
  c.aiv_vec_ratio = header.Find("aiv_vec_ratio");
  return c;
}

inline std::string_view Field(const CsvRecord& record, int column) {
  return column == CsvHeader::kAbsent ? std::string_view() : record.fields[column];
}

bool FitsInt32(int64_t value) {
  return value >= std::numeric_limits<int32_t>::min() &&
         value <= std::numeric_limits<int32_t>::max();
}

// Optional int32 column: missing -> |fallback| silently; garbage -> note.
int32_t ParseOptionalInt32(std::string_view field, int32_t fallback, const char* what, int64_t line,
                           RowLedger* ledger) {
  if (IsMissingValue(field)) return fallback;
  std::optional<int64_t> value = ParseInt64(field);
  if (!value || !FitsInt32(*value)) {
    ledger->Note(fmt::format("unparsable {}", what), line, FieldSample(field));
    return fallback;
  }
  return static_cast<int32_t>(*value);
}

// Ratios are short plain decimals ("0.964", "0.0", "N/A"); parsing them
// directly is several times cheaper than from_chars, and float precision is
// all the table keeps. Anything else takes the general path.
float ParseRatio(std::string_view field) {
  const char* p = field.data();
  const char* end = p + field.size();
  uint64_t mantissa = 0;
  int digits = 0;
  int scale = 0;
  while (p < end && IsDigit(*p)) {
    mantissa = mantissa * 10 + static_cast<uint64_t>(*p++ - '0');
    ++digits;
  }
  if (p < end && *p == '.') {
    ++p;
    while (p < end && IsDigit(*p)) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(*p++ - '0');
      ++digits;
      ++scale;
    }
  }
  if (p == end && digits > 0 && digits <= 15) {
    static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    return static_cast<float>(static_cast<double>(mantissa) / kPow10[scale]);
  }
  std::optional<double> value = ParseDouble(field);
  return value ? static_cast<float>(*value) : NAN;
}

bool IsCommunicationCore(std::string_view accelerator) {
  return accelerator == "HCCL" || accelerator == "COMMUNICATION";
}

// Upper bound of the row count, for one exact Reserve. 16 bytes a step with
// SSE2; a memchr per line would cost more than the count is worth.
size_t CountLineEnds(std::string_view data) {
  size_t count = 0;
  size_t i = 0;
  const char* p = data.data();
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n');
  for (; i + 16 <= data.size(); i += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    count += static_cast<size_t>(
        __builtin_popcount(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, lf)))));
  }
#endif
  for (; i < data.size(); ++i) count += p[i] == '\n';
  return count;
}

}  // namespace

std::string_view DeriveOpTypeFromName(std::string_view name) {
  if (name.empty()) return name;
  if (name.substr(0, 5) == "hcom_") return StripNumericSuffixes(name);
  std::string_view base = StripNumericSuffixes(name);
  size_t underscore = base.rfind('_');
  if (underscore != std::string_view::npos) {
    std::string_view last = base.substr(underscore + 1);
    return last.empty() ? base : last;
  }
  // "Conv2D1", "ReduceSum7": graph-mode names number the op instance.
  size_t end = base.size();
  while (end > 0 && IsDigit(base[end - 1])) --end;
  return end == 0 ? base : base.substr(0, end);
}

Status ParseKernelDetails(std::string_view data, const std::string& file_label,
                          model::RankProfile* profile) {
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(CsvHeader header, ReadCsvHeader(&reader, &record, file_label, kHint));
  const KernelColumns cols = FindColumns(header);
  if (cols.name == CsvHeader::kAbsent) return MissingColumnError(file_label, "Name", header, kHint);
  if (cols.start == CsvHeader::kAbsent) {
    return MissingColumnError(file_label, "Start Time(us)", header, kHint);
  }
  if (cols.duration == CsvHeader::kAbsent) {
    return MissingColumnError(file_label, "Duration(us)", header, kHint);
  }

  RowLedger ledger(file_label);
  model::KernelTable& kernels = profile->kernels;
  StringPool& pool = profile->strings;
  // Rows <= line ends: one cheap pass reserves every column exactly once.
  // A row has at least one byte per field (its comma or line end), which
  // caps the reservation for files of blank lines.
  const size_t max_rows = data.size() / std::max<size_t>(header.size(), 1);
  kernels.Reserve(kernels.size() + std::min(CountLineEnds(data), max_rows) + 1);

  // One cache for all three columns: their values never collide in meaning
  // (same text -> same id is exactly what interning means).
  auto cache = std::make_unique<InternCache>(&pool);
  StringId last_accelerator = StringPool::kNotInterned;
  bool last_accelerator_is_comm = false;
  const size_t expected_fields = header.size();

  model::KernelRow row;
  while (reader.Next(&record)) {
    if (SkipDamagedRecord(record, &ledger)) continue;
    const int64_t line = record.line;
    if (record.fields.size() != expected_fields) {
      ledger.Skip("wrong field count", line,
                  FieldCountDetail(record.fields.size(), expected_fields));
      continue;
    }
    std::optional<int64_t> start = ParseMicrosToNanos(record.fields[cols.start]);
    if (!start) {
      std::string_view raw = record.fields[cols.start];
      ledger.Skip(IsMissingValue(raw) ? "missing start time" : "unparsable start time", line,
                  FieldSample(raw));
      continue;
    }
    std::optional<int64_t> duration = ParseMicrosToNanos(record.fields[cols.duration]);
    if (!duration) {
      std::string_view raw = record.fields[cols.duration];
      ledger.Skip(IsMissingValue(raw) ? "missing duration" : "unparsable duration", line,
                  FieldSample(raw));
      continue;
    }
    // [0, 2^62) ns keeps start + duration and every difference of two
    // times defined downstream (a negative start would give a 110-year span).
    if (!InTimeRange(*start)) {
      ledger.Skip(*start < 0 ? "negative start time" : "start time out of range", line,
                  FieldSample(record.fields[cols.start]));
      continue;
    }
    if (!InTimeRange(*duration)) {
      ledger.Skip(*duration < 0 ? "negative duration" : "duration out of range", line,
                  FieldSample(record.fields[cols.duration]));
      continue;
    }

    row.start_ns = *start;
    row.duration_ns = *duration;
    const std::string_view name = TrimField(record.fields[cols.name]);
    row.name = cache->Intern(name);

    const std::string_view type = TrimField(Field(record, cols.type));
    if (IsMissingValue(type)) {
      // Level0 does not collect OP Type; the name still says what ran.
      row.op_type = cache->Intern(DeriveOpTypeFromName(name));
      row.op_type_derived = true;
    } else {
      row.op_type = cache->Intern(type);
      row.op_type_derived = false;
    }

    const std::string_view accelerator = TrimField(Field(record, cols.accelerator));
    row.accelerator = cache->Intern(accelerator);
    if (row.accelerator != last_accelerator) {
      last_accelerator = row.accelerator;
      last_accelerator_is_comm = IsCommunicationCore(accelerator);
    }
    const bool is_comm = last_accelerator_is_comm || name.substr(0, 5) == "hcom_";
    row.kind = is_comm ? model::KernelKind::kCommunication : model::KernelKind::kCompute;

    row.step = cols.step == CsvHeader::kAbsent
                   ? model::kNoStep
                   : ParseOptionalInt32(record.fields[cols.step], model::kNoStep, "Step Id", line,
                                        &ledger);
    if (row.step != model::kNoStep && profile->steps_from.empty()) {
      profile->steps_from = "Step Id column of kernel_details.csv";
    }
    row.stream = cols.stream == CsvHeader::kAbsent
                     ? model::kNoStream
                     : ParseOptionalInt32(record.fields[cols.stream], model::kNoStream, "Stream ID",
                                          line, &ledger);
    row.block_dim =
        cols.block_dim == CsvHeader::kAbsent
            ? 0
            : ParseOptionalInt32(record.fields[cols.block_dim], 0, "Block Dim", line, &ledger);
    row.wait_ns = 0;
    if (cols.wait != CsvHeader::kAbsent) {
      std::string_view raw = record.fields[cols.wait];
      std::optional<int64_t> wait = ParseMicrosToNanos(raw);
      if (wait && InTimeRange(*wait)) {
        row.wait_ns = *wait;
      } else if (wait) {
        ledger.Note("Wait Time out of range", line, FieldSample(raw));
      } else if (!IsMissingValue(raw)) {
        ledger.Note("unparsable Wait Time", line, FieldSample(raw));
      }
    }
    row.aic_mac_ratio = cols.aic_mac_ratio == CsvHeader::kAbsent
                            ? NAN
                            : ParseRatio(record.fields[cols.aic_mac_ratio]);
    row.aic_mte2_ratio = cols.aic_mte2_ratio == CsvHeader::kAbsent
                             ? NAN
                             : ParseRatio(record.fields[cols.aic_mte2_ratio]);
    row.aiv_vec_ratio = cols.aiv_vec_ratio == CsvHeader::kAbsent
                            ? NAN
                            : ParseRatio(record.fields[cols.aiv_vec_ratio]);
    kernels.Append(row);
    ledger.Use();
  }
  kernels.SortByStart();
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadKernelDetailsFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseKernelDetails(data, path, profile); });
}

}  // namespace trainscope::formats
