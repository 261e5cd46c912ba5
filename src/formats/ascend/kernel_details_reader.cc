#include "formats/ascend/kernel_details_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <limits>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "core/numbers.h"
#include "formats/ascend/csv_common.h"
#include "formats/ascend/csv_specs.h"
#include "formats/csv/csv_reader.h"
#include "formats/csv/csv_spec.h"

namespace trainscope::formats {
namespace {

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

namespace {

// A cell without the quotes torch_npu wraps shapes in; "N/A" and empty as "".
std::string_view Unquoted(std::string_view text) {
  while (!text.empty() && text.front() == '"') text.remove_prefix(1);
  while (!text.empty() && text.back() == '"') text.remove_suffix(1);
  return text == "N/A" ? std::string_view() : text;
}

// Graph-mode kernel names append the op instance to the op type
// ("Conv2D1", "ReduceSum7"), but an op type can itself end in digits: a
// version (CANN's "V" suffix: GatherV2, MatMulV3, AxpyV2 in "AxpyV2102")
// or a name (Expm1). Stripping every trailing digit would turn
// AxpyV2102 into "AxpyV" and GatherV2 into "GatherV", and Level0 (types
// derived) would disagree with Level1 (types given) on the same job.
std::string_view WithoutInstanceNumber(std::string_view base) {
  size_t end = base.size();
  while (end > 0 && IsDigit(base[end - 1])) --end;
  if (end == 0 || end == base.size()) return base;
  const std::string_view stem = base.substr(0, end);
  // A version is one digit after an upper-case V that follows a letter
  // (MatMulV3, not "V1" alone); the digits after it are the instance.
  if (stem.size() >= 2 && stem.back() == 'V' &&
      std::isalpha(static_cast<unsigned char>(stem[stem.size() - 2]))) {
    return base.substr(0, end + 1);
  }
  // Op types that end in a digit without a version are ambiguous with an
  // instance number when the shorter name is an op too (Relu6 / Relu #6,
  // Atan2 / Atan #2): those keep the shorter reading, which is the common
  // op. Only Expm1 has no shorter op ("Expm").
  if (stem == "Expm" && base[end] == '1') return base.substr(0, end + 1);
  return stem;
}

}  // namespace

model::OpState ParseOpState(std::string_view cell) {
  auto equals = [cell](std::string_view word) {
    if (cell.size() != word.size()) return false;
    for (size_t i = 0; i < cell.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(cell[i])) != word[i]) return false;
    }
    return true;
  };
  if (equals("dynamic")) return model::OpState::kDynamic;
  if (equals("static")) return model::OpState::kStatic;
  return model::OpState::kUnknown;
}

std::string_view DeriveOpTypeFromName(std::string_view name) {
  if (name.empty()) return name;
  // Atomic clean-up tasks: "atomic_memset-1_68_1413001_1_0" is a MemSet
  // (Level1 types it so on the corpus ResNet samples).
  if (name.substr(0, 13) == "atomic_memset") return "MemSet";
  if (name.substr(0, 5) == "hcom_") return StripNumericSuffixes(name);
  std::string_view base = StripNumericSuffixes(name);
  size_t underscore = base.rfind('_');
  if (underscore != std::string_view::npos) {
    std::string_view last = base.substr(underscore + 1);
    return last.empty() ? base : last;
  }
  return WithoutInstanceNumber(base);
}

Status ParseKernelDetails(std::string_view data, const std::string& file_label,
                          model::RankProfile* profile) {
  namespace col = ascend_csv;
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord record;
  TS_ASSIGN_OR_RETURN(BoundSpec cols,
                      ReadSpecHeader(&reader, &record, file_label, col::kKernelDetails));

  RowLedger ledger(file_label);
  model::DeviceEvents& kernels = profile->device_events;
  StringPool& pool = profile->strings;
  // Rows <= line ends: one cheap pass reserves every column exactly once.
  // A row has at least one byte per field (its comma or line end), which
  // caps the reservation for files of blank lines.
  const size_t max_rows = data.size() / std::max<size_t>(cols.fields(), 1);
  kernels.Reserve(kernels.size() + std::min(CountLineEnds(data), max_rows) + 1);

  // One cache for all three columns: their values never collide in meaning
  // (same text -> same id is exactly what interning means).
  auto cache = std::make_unique<InternCache>(&pool);
  StringId last_accelerator = StringPool::kNotInterned;
  bool last_accelerator_is_comm = false;
  const BoundColumn& step = cols[col::kKernelStep];
  // PipeUtilization columns exist only with aic_metrics: no side table else.
  const bool has_pmu = cols[col::kKernelAicMacRatio].present() ||
                       cols[col::kKernelAicMte2Ratio].present() ||
                       cols[col::kKernelAivVecRatio].present();

  const bool has_op_state = cols[col::kKernelOpState].present();
  model::DeviceEvent row;
  while (reader.Next(&record)) {
    if (!TakeRecord(record, cols.fields(), &ledger)) continue;
    // [0, 2^62) ns keeps start + duration and every difference of two
    // times defined downstream (a negative start would give a 110-year span).
    if (ReadMicrosInline(record, cols[col::kKernelStart], &ledger, &row.start_ns) != Cell::kValue ||
        ReadMicrosInline(record, cols[col::kKernelDuration], &ledger, &row.duration_ns) !=
            Cell::kValue) {
      continue;  // required: any other answer skipped the row
    }
    const std::string_view name = ReadText(record, cols[col::kKernelName]);
    row.name = cache->Intern(name);

    const std::string_view type = ReadText(record, cols[col::kKernelType]);
    if (IsMissingValue(type)) {
      // Level0 does not collect OP Type; the name still says what ran.
      row.op_type = cache->Intern(DeriveOpTypeFromName(name));
      row.op_type_derived = true;
    } else {
      row.op_type = cache->Intern(type);
      row.op_type_derived = false;
    }

    const std::string_view accelerator = ReadText(record, cols[col::kKernelAccelerator]);
    row.accelerator = cache->Intern(accelerator);
    if (row.accelerator != last_accelerator) {
      last_accelerator = row.accelerator;
      last_accelerator_is_comm = IsCommunicationCore(accelerator);
    }
    const bool is_comm = last_accelerator_is_comm || name.substr(0, 5) == "hcom_";
    row.kind = is_comm ? model::ActivityKind::kCommunication : model::ActivityKind::kCompute;

    // Optional columns: a bad cell is noted and the default kept (the spec
    // says so), never a reason to skip the kernel.
    row.step = model::kNoStep;
    ReadInt32Inline(record, step, &ledger, &row.step);
    if (row.step != model::kNoStep && profile->steps_from.empty()) {
      profile->steps_from = "Step Id column of kernel_details.csv";
    }
    row.stream = model::kNoStream;
    ReadInt32Inline(record, cols[col::kKernelStream], &ledger, &row.stream);
    row.block_dim = 0;
    ReadInt32Inline(record, cols[col::kKernelBlockDim], &ledger, &row.block_dim);
    row.wait_ns = 0;
    ReadMicrosInline(record, cols[col::kKernelWait], &ledger, &row.wait_ns);
    // Shapes feed the shape rules (a Cube matmul's inner axis); the CSV
    // quotes them ("""4096,2048""" reads as "4096,2048" in quotes).
    row.input_shapes = cache->Intern(Unquoted(ReadText(record, cols[col::kKernelInputShapes])));
    row.input_dtypes = cache->Intern(Unquoted(ReadText(record, cols[col::kKernelInputTypes])));
    // Outputs size the traffic of an operator (the fingerprint gain model).
    row.output_shapes = cache->Intern(Unquoted(ReadText(record, cols[col::kKernelOutputShapes])));
    row.output_dtypes = cache->Intern(Unquoted(ReadText(record, cols[col::kKernelOutputTypes])));
    row.op_state = has_op_state ? ParseOpState(ReadText(record, cols[col::kKernelOpState]))
                                : model::OpState::kUnknown;
    if (has_pmu) {
      model::PmuMetrics pmu;
      pmu.aic_mac_ratio = ReadRatio(record, cols[col::kKernelAicMacRatio]);
      pmu.aic_mte2_ratio = ReadRatio(record, cols[col::kKernelAicMte2Ratio]);
      pmu.aiv_vec_ratio = ReadRatio(record, cols[col::kKernelAivVecRatio]);
      kernels.Append(row, pmu);
    } else {
      kernels.Append(row);
    }
    ledger.Use();
  }
  kernels.SortByStart();
  profile->device_events_source = model::DeviceEventsSource::kKernelDetailsCsv;
  profile->device_events_from = file_label;
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadKernelDetailsFile(const std::string& path, model::RankProfile* profile) {
  return ParseMappedFile(
      path, [&](std::string_view data) { return ParseKernelDetails(data, path, profile); });
}

}  // namespace trainscope::formats
