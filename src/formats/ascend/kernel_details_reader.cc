#include "formats/ascend/kernel_details_reader.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "core/mapped_file.h"
#include "core/numbers.h"
#include "core/page_release.h"
#include "core/parallel.h"
#include "formats/ascend/csv_specs.h"
#include "formats/csv/csv_chunks.h"
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
      if (cached.size() == text.size() && SameBytes(cached.data(), text.data(), text.size())) {
        return slot;
      }
    }
    slot = pool_->Intern(text);
    return slot;
  }

 private:
  static constexpr size_t kSlots = 4096;  // power of two

  // memcmp's answer; texts of 8 to 16 bytes (dtypes, cores, most op types
  // and shapes) as two overlapping words each, inline: memcmp's call was a
  // third of the cache's cost.
  static bool SameBytes(const char* a, const char* b, size_t n) {
    if (n < 8 || n > 16) return n == 0 || std::memcmp(a, b, n) == 0;
    uint64_t a_head = 0, b_head = 0, a_tail = 0, b_tail = 0;
    std::memcpy(&a_head, a, 8);
    std::memcpy(&b_head, b, 8);
    std::memcpy(&a_tail, a + n - 8, 8);
    std::memcpy(&b_tail, b + n - 8, 8);
    return ((a_head ^ b_head) | (a_tail ^ b_tail)) == 0;
  }

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

// Upper bound of the row count, for one exact Reserve. 64 bytes a step with
// AVX2, 16 with SSE2; a memchr per line would cost more than the count is
// worth. The prefetch a kilobyte ahead: the CSV reader's scan waited on
// memory without one (csv_reader.cc, NextFast), and so does this one.
size_t CountLineEnds(std::string_view data) {
  size_t count = 0;
  size_t i = 0;
  const char* p = data.data();
#if defined(__AVX2__)
  const __m256i lf = _mm256_set1_epi8('\n');
  for (; i + 64 <= data.size(); i += 64) {
    __builtin_prefetch(p + i + 1024);
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
    const uint64_t bits =
        uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, lf)))} |
        (uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, lf)))} << 32);
    count += static_cast<size_t>(__builtin_popcountll(bits));
  }
#elif defined(__SSE2__)
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

namespace {

// The rows of the file, written by every chunk's reader into its own slot
// of columns sized once (no row is copied from a chunk into the table).
struct RowTable {
  model::DeviceEventColumns rows;
  model::PmuColumns pmu;  // sized like rows when the file has PMU columns, else empty
};

// What one chunk of the file turns into: its rows in the table slot
// [first, first + capacity) (more rows than its line ends, possible only
// with records ended by a lone '\r', go to |spill|), its own strings and
// ledger, so chunks are read on several threads without sharing anything.
// String ids in the slot and the spill are the chunk's own until JoinChunks
// re-points them.
struct ChunkRows {
  size_t first = 0;
  size_t capacity = 0;
  size_t written = 0;  // rows in the slot
  model::DeviceEventColumns spill;
  model::PmuColumns spill_pmu;
  StringPool strings;
  model::TensorDescriptions tensors;  // of the chunk's string ids
  RowLedger ledger;
  int64_t line_breaks = 0;  // consumed by the chunk's reader
  bool any_step = false;
  bool diverged = false;  // the split was inside a quoted field (csv_chunks.h)
};

// Rows a chunk can hold at most: one per line end, one more for a last line
// without one. A row has at least one byte per field (its comma or line
// end), which caps the slot of a file of blank lines. Records ended by a
// lone '\r' can exceed it: they spill.
size_t SlotRows(std::string_view bytes, size_t fields) {
  const size_t lines = CountLineEnds(bytes) + (bytes.empty() || bytes.back() != '\n' ? 1 : 0);
  return std::min(lines, bytes.size() / std::max<size_t>(fields, 1) + 1);
}

// Resizes every column of |table| to |rows|, the columns spread over
// |threads| (each resize writes its column once: the pages are touched on
// both cores instead of one).
void SizeTable(size_t rows, bool has_pmu, unsigned threads, RowTable* table) {
  std::vector<std::function<void()>> resizes;
  auto add = [&](auto& column) { resizes.emplace_back([&column, rows] { column.resize(rows); }); };
  table->rows.ForEachColumn(add);
  if (has_pmu) table->pmu.ForEachColumn(add);
  ParallelFor(resizes.size(), threads, [&](size_t i) { resizes[i](); });
}

// The row loop, one chunk at a time, for the columns one header bound.
class KernelRowReader {
 public:
  explicit KernelRowReader(const BoundSpec& cols)
      : cols_(cols),
        has_pmu_(cols[ascend_csv::kKernelAicMacRatio].present() ||
                 cols[ascend_csv::kKernelAicMte2Ratio].present() ||
                 cols[ascend_csv::kKernelAivVecRatio].present()),
        has_op_state_(cols[ascend_csv::kKernelOpState].present()) {}

  // PipeUtilization columns exist only with aic_metrics: no side table else.
  bool has_pmu() const { return has_pmu_; }
  // Stores the sparse columns this header fills (wait, block dim) from the
  // start: chunks set rows on several threads, and a sparse column is
  // stored by its first other value (columnar.h).
  void StoreFilledSparseColumns(model::DeviceEventColumns* rows) const {
    if (cols_[ascend_csv::kKernelWait].present()) rows->wait_ns.StoreEveryRow();
    if (cols_[ascend_csv::kKernelBlockDim].present()) rows->block_dim.StoreEveryRow();
  }
  size_t fields() const { return cols_.fields(); }

  // Reads |chunk| of |data| into its slot.
  void Read(std::string_view data, const CsvChunk& chunk, RowTable* table, ChunkRows* out) const;

 private:
  const BoundSpec& cols_;
  const bool has_pmu_;
  const bool has_op_state_;
};

void KernelRowReader::Read(std::string_view data, const CsvChunk& chunk, RowTable* table,
                           ChunkRows* out) const {
  namespace col = ascend_csv;
  const BoundSpec& cols = cols_;
  CsvReader reader(data, CsvReader::ConfiguredMaxRecordBytes(), chunk.begin, chunk.end);
  CsvRecord record;
  RowLedger& ledger = out->ledger;
  auto put = [&](const model::DeviceEvent& row, const model::PmuMetrics* pmu) {
    if (out->written < out->capacity) {
      const size_t index = out->first + out->written++;
      table->rows.Set(index, row);
      if (pmu != nullptr) table->pmu.Set(index, *pmu);
    } else {
      out->spill.Append(row);
      if (pmu != nullptr) out->spill_pmu.Append(*pmu);
    }
  };

  // One cache for all the string columns: their values never collide in
  // meaning (same text -> same id is exactly what interning means).
  auto cache = std::make_unique<InternCache>(&out->strings);
  StringId last_accelerator = StringPool::kNotInterned;
  bool last_accelerator_is_comm = false;
  const BoundColumn& step = cols[col::kKernelStep];
  model::DeviceEvent row;
  while (reader.Next(&record)) {
    if (ChunkDiverged(record, chunk)) {
      out->diverged = true;
      return;
    }
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
      row.op_type_derived = 1;
    } else {
      row.op_type = cache->Intern(type);
      row.op_type_derived = 0;
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
    out->any_step = out->any_step || row.step != model::kNoStep;
    row.stream = model::kNoStream;
    ReadInt32Inline(record, cols[col::kKernelStream], &ledger, &row.stream);
    row.block_dim = 0;
    ReadInt32Inline(record, cols[col::kKernelBlockDim], &ledger, &row.block_dim);
    row.wait_ns = 0;
    ReadMicrosInline(record, cols[col::kKernelWait], &ledger, &row.wait_ns);
    // Shapes feed the shape rules (a Cube matmul's inner axis); the CSV
    // quotes them ("""4096,2048""" reads as "4096,2048" in quotes).
    // Outputs size the traffic of an operator (the fingerprint gain model).
    // The chunk's own description ids, like its string ids.
    row.tensors = out->tensors.Intern(model::TensorDescription{
        .input_shapes = cache->Intern(Unquoted(ReadText(record, cols[col::kKernelInputShapes]))),
        .input_dtypes = cache->Intern(Unquoted(ReadText(record, cols[col::kKernelInputTypes]))),
        .output_shapes = cache->Intern(Unquoted(ReadText(record, cols[col::kKernelOutputShapes]))),
        .output_dtypes = cache->Intern(Unquoted(ReadText(record, cols[col::kKernelOutputTypes])))});
    row.op_state = has_op_state_ ? ParseOpState(ReadText(record, cols[col::kKernelOpState]))
                                 : model::OpState::kUnknown;
    if (has_pmu_) {
      model::PmuMetrics pmu;
      pmu.aic_mac_ratio = ReadRatio(record, cols[col::kKernelAicMacRatio]);
      pmu.aic_mte2_ratio = ReadRatio(record, cols[col::kKernelAicMte2Ratio]);
      pmu.aiv_vec_ratio = ReadRatio(record, cols[col::kKernelAivVecRatio]);
      put(row, &pmu);
    } else {
      put(row, nullptr);
    }
    ledger.Use();
  }
  out->line_breaks = reader.line() - 1;
}

// Every string column of the table, for re-pointing a chunk's ids at the
// profile's pool.
std::vector<StringId>* StringColumns(model::DeviceEventColumns* rows, size_t k) {
  std::vector<StringId>* columns[] = {&rows->name, &rows->op_type, &rows->accelerator};
  return k < std::size(columns) ? columns[k] : nullptr;
}

// Calls fn(column) with the |index|-th column of |columns|, in
// ForEachColumn's order.
template <typename Columns, typename Fn>
void WithColumn(Columns* columns, size_t index, Fn&& fn) {
  size_t k = 0;
  columns->ForEachColumn([&](auto& column) {
    if (k++ == index) fn(column);
  });
}

// The table's columns rebuilt one at a time (the memory of one column more
// at a time): each chunk's slot rows, then its spilled rows, in file order.
// A sparse column is rebuilt row by row (spilled rows are rare).
template <typename Columns>
void JoinSpilled(std::vector<ChunkRows>* chunks, Columns ChunkRows::*spill, Columns* table) {
  size_t rows = 0;
  for (ChunkRows& chunk : *chunks) rows += chunk.written + (chunk.*spill).size();
  size_t index = 0;
  table->ForEachColumn([&](auto& column) {
    using Column = std::remove_reference_t<decltype(column)>;
    constexpr bool kSparse = requires { column.stored(); };
    Column joined = [&] {
      if constexpr (kSparse) {
        return Column(column.absent());
      } else {
        return Column();
      }
    }();
    joined.reserve(rows);
    for (ChunkRows& chunk : *chunks) {
      if constexpr (kSparse) {
        for (size_t i = chunk.first; i < chunk.first + chunk.written; ++i) {
          joined.push_back(column[i]);
        }
      } else {
        const auto slot = column.begin() + static_cast<ptrdiff_t>(chunk.first);
        joined.insert(joined.end(), slot, slot + static_cast<ptrdiff_t>(chunk.written));
      }
      WithColumn(&(chunk.*spill), index, [&](auto& spilled) {
        if constexpr (std::is_same_v<std::remove_reference_t<decltype(spilled)>, Column>) {
          for (size_t i = 0; i < spilled.size(); ++i) joined.push_back(spilled[i]);
        }
      });
    }
    column = std::move(joined);
    ++index;
  });
}

// Closes the gaps the chunks left in their slots (rows skipped, or line
// ends inside quoted fields) and takes in the spilled rows, in file order.
// The common case, every slot full and nothing spilled, moves nothing.
void CloseGaps(std::vector<ChunkRows>* chunks, bool has_pmu, RowTable* table) {
  const bool spilled = std::any_of(chunks->begin(), chunks->end(),
                                   [](const ChunkRows& c) { return c.spill.size() > 0; });
  if (spilled) {
    // Records ended by lone '\r's, or slots past a table sized too small
    // (EstimateSlotRows): rare.
    JoinSpilled(chunks, &ChunkRows::spill, &table->rows);
    if (has_pmu) JoinSpilled(chunks, &ChunkRows::spill_pmu, &table->pmu);
    return;
  }
  size_t end = 0;
  for (const ChunkRows& chunk : *chunks) {
    if (chunk.first != end) {
      // Slots are in file order and a chunk never writes past its own, so
      // rows only ever move towards the front.
      auto move_down = [&](auto& column) {
        if (auto* stored = model::columnar::StoredRows(&column)) {
          std::copy(stored->begin() + static_cast<ptrdiff_t>(chunk.first),
                    stored->begin() + static_cast<ptrdiff_t>(chunk.first + chunk.written),
                    stored->begin() + static_cast<ptrdiff_t>(end));
        }
      };
      table->rows.ForEachColumn(move_down);
      if (has_pmu) table->pmu.ForEachColumn(move_down);
    }
    end += chunk.written;
  }
  // The table was sized for an estimate of its rows (EstimateSlotRows):
  // the pages past its end go back.
  auto shrink = [end](auto& column) {
    column.resize(end);
    if (auto* stored = model::columnar::StoredRows(&column)) DropSpareCapacity(stored);
  };
  table->rows.ForEachColumn(shrink);
  if (has_pmu) table->pmu.ForEachColumn(shrink);
}

// Hands the chunks to the profile in file order: their strings interned
// into its pool (serial, a few thousand distinct values), their ids
// re-pointed (parallel), gaps closed, ledgers joined.
void JoinChunks(std::vector<ChunkRows>* chunks, int64_t first_line, unsigned threads, bool has_pmu,
                RowTable* table, RowLedger* ledger, model::RankProfile* profile) {
  model::DeviceEvents& kernels = profile->device_events;
  std::vector<std::vector<StringId>> to_profile(chunks->size());
  std::vector<std::vector<model::TensorDescriptionId>> to_profile_tensors(chunks->size());
  for (size_t i = 0; i < chunks->size(); ++i) {
    const StringPool& local = (*chunks)[i].strings;
    std::vector<StringId>& map = to_profile[i];
    map.resize(local.size());
    for (size_t id = 0; id < local.size(); ++id) {
      map[id] = profile->strings.Intern(local.Get(static_cast<StringId>(id)));
    }
    const model::TensorDescriptions& local_tensors = (*chunks)[i].tensors;
    to_profile_tensors[i].resize(local_tensors.size());
    for (size_t id = 0; id < local_tensors.size(); ++id) {
      const model::TensorDescription& d =
          local_tensors[static_cast<model::TensorDescriptionId>(id)];
      to_profile_tensors[i][id] = kernels.InternTensors(
          {map[d.input_shapes], map[d.input_dtypes], map[d.output_shapes], map[d.output_dtypes]});
    }
  }
  ParallelFor(chunks->size(), threads, [&](size_t i) {
    ChunkRows& chunk = (*chunks)[i];
    const std::vector<StringId>& map = to_profile[i];
    for (size_t k = 0; std::vector<StringId>* column = StringColumns(&table->rows, k); ++k) {
      for (size_t row = chunk.first; row < chunk.first + chunk.written; ++row) {
        (*column)[row] = map[(*column)[row]];
      }
    }
    for (size_t k = 0; std::vector<StringId>* column = StringColumns(&chunk.spill, k); ++k) {
      for (StringId& id : *column) id = map[id];
    }
    const std::vector<model::TensorDescriptionId>& tensors = to_profile_tensors[i];
    for (size_t row = chunk.first; row < chunk.first + chunk.written; ++row) {
      table->rows.tensors[row] = tensors[table->rows.tensors[row]];
    }
    for (model::TensorDescriptionId& id : chunk.spill.tensors) id = tensors[id];
  });
  CloseGaps(chunks, has_pmu, table);
  int64_t line = first_line;
  for (ChunkRows& chunk : *chunks) {
    ledger->Absorb(chunk.ledger, line - 1);
    line += chunk.line_breaks;
    if (chunk.any_step && profile->steps_from.empty()) {
      profile->steps_from = "Step Id column of kernel_details.csv";
    }
  }
  if (kernels.size() == 0) {
    kernels = model::DeviceEvents(std::move(table->rows), std::move(table->pmu),
                                  kernels.TakeTensorDescriptions());
  } else {
    kernels.AppendColumns(table->rows, has_pmu ? &table->pmu : nullptr);
  }
}

// The first row of each chunk's slot, known once the line ends of every
// chunk before it are counted. A chunk's reader counts its own chunk's line
// ends as soon as it has the bytes, so the file is read once: a chunk waits
// only for the counts of the chunks handed out before it, which their
// readers publish before they wait for anything (ParallelFor hands chunks
// out in file order), so no reader waits for one that waits.
class SlotPlan {
 public:
  explicit SlotPlan(size_t chunks) : rows_(chunks, kUnknown), first_(chunks, 0) {}

  void Publish(size_t chunk, size_t rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    rows_[chunk] = rows;
    while (counted_ < rows_.size() && rows_[counted_] != kUnknown) {
      first_[counted_] = rows_before_;
      rows_before_ += rows_[counted_++];
    }
    ready_.notify_all();
  }

  // Waits for the counts of the chunks before |chunk| (its own published
  // first); the row its slot starts at, or nothing when a reader failed
  // (the read is given up).
  std::optional<size_t> FirstRow(size_t chunk) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return abandoned_ || counted_ > chunk; });
    if (abandoned_) return std::nullopt;
    return first_[chunk];
  }

  // A reader failed before it published: the others stop waiting.
  void Abandon() {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoned_ = true;
    ready_.notify_all();
  }

 private:
  static constexpr size_t kUnknown = ~size_t{0};
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<size_t> rows_;   // per chunk: its slot's rows, or kUnknown
  std::vector<size_t> first_;  // per counted chunk: the row its slot starts at
  size_t counted_ = 0;         // chunks [0, counted_) are counted
  size_t rows_before_ = 0;     // their rows
  bool abandoned_ = false;
};

// The rows the slots of |split| hold together (the sum of their SlotRows),
// for sizing the table before any chunk is counted: exact for a file of a
// few samples' size, else the line ends of kSamples stretches spread evenly
// over the body, scaled to its size, plus a margin. A chunk whose slot falls
// past the table spills (correct, slower: CloseGaps); an estimate too big
// costs the sizing of the rows beyond the end, which CloseGaps cuts off.
size_t EstimateSlotRows(std::string_view data, const std::vector<CsvChunk>& split, size_t fields) {
  if (split.empty()) return 0;
  constexpr size_t kSamples = 16;
  constexpr size_t kSampleBytes = size_t{64} << 10;
  const size_t begin = split.front().begin;
  const size_t bytes = split.back().end - begin;
  if (split.size() == 1 || bytes <= kSamples * kSampleBytes * 2) {
    size_t rows = 0;
    for (const CsvChunk& chunk : split)
      rows += SlotRows(data.substr(chunk.begin, chunk.end - chunk.begin), fields);
    return rows;
  }
  size_t lines = 0;
  for (size_t k = 0; k < kSamples; ++k) {
    const size_t offset = begin + (bytes - kSampleBytes) / (kSamples - 1) * k;
    lines += CountLineEnds(data.substr(offset, kSampleBytes));
  }
  // 2 % over the samples' rate: kernel rows differ in length by their
  // names and shapes, but a profile repeats its steps (the 1 GB synth
  // rank: the samples' rate 1.4 % over its rows). Rows the table is sized
  // for beyond its end are memory held during the read; too few cost a
  // copy of the table (CloseGaps).
  const double rate = static_cast<double>(lines) / static_cast<double>(kSamples * kSampleBytes);
  return static_cast<size_t>(rate * static_cast<double>(bytes) * 1.02) + split.size() + 1024;
}

// Reads |split| into |table| on |threads| in one pass over the file: the
// table sized once from an estimate of the rows (EstimateSlotRows), then
// every chunk's line ends counted (its slot's size), its slot placed after
// the slots before it (SlotPlan) and its rows read into it, where it lies in
// |data| (a mapped file: each chunk's pages are released after its read).
std::vector<ChunkRows> ReadChunks(std::string_view data, const std::vector<CsvChunk>& split,
                                  const KernelRowReader& row_reader,
                                  const KernelDetailsOptions& options, RowTable* table) {
  const unsigned threads = std::max(1u, options.threads);
  std::vector<ChunkRows> chunks(split.size());
  const size_t table_rows = EstimateSlotRows(data, split, row_reader.fields());
  // The split and the estimate touched a page at every cut and sample, and
  // the kernel mapped the page cache's folio around each: 64 KiB to 2 MiB a
  // chunk held until the chunk is read, ~100 MiB of a 1 GB file's 128
  // chunks. Dropped before the table is sized, not after: held while its
  // columns were filled, they raised the read's peak (341 MiB instead of
  // 312 on the 1 GB synth job, and up to 530 MiB in a run whose page cache
  // held bigger folios).
  if (options.release && !split.empty()) options.release(split.front().begin, split.back().end);
  *table = RowTable{};
  row_reader.StoreFilledSparseColumns(&table->rows);
  SizeTable(table_rows, row_reader.has_pmu(), threads, table);
  SlotPlan plan(split.size());
  ParallelFor(split.size(), threads, [&](size_t i) {
    const std::string_view bytes = data.substr(split[i].begin, split[i].end - split[i].begin);
    size_t slot_rows = 0;
    try {
      slot_rows = SlotRows(bytes, row_reader.fields());
      plan.Publish(i, slot_rows);
    } catch (...) {
      plan.Abandon();
      throw;
    }
    const std::optional<size_t> first = plan.FirstRow(i);
    if (!first) return;
    // The rows of a slot past the table's end spill (an estimate too low).
    chunks[i].first = std::min(*first, table_rows);
    chunks[i].capacity = std::min(slot_rows, table_rows - chunks[i].first);
    row_reader.Read(data, split[i], table, &chunks[i]);
    if (options.release) options.release(split[i].begin, split[i].end);
  });
  return chunks;
}

}  // namespace

Status ParseKernelDetails(std::string_view data, const std::string& file_label,
                          model::RankProfile* profile, const KernelDetailsOptions& options) {
  CsvReader header_reader(data, CsvReader::ConfiguredMaxRecordBytes());
  CsvRecord header;
  TS_ASSIGN_OR_RETURN(BoundSpec cols, ReadSpecHeader(&header_reader, &header, file_label,
                                                     ascend_csv::kKernelDetails));
  const size_t body_begin = header_reader.position();
  const int64_t first_line = header_reader.line();
  const KernelRowReader row_reader(cols);

  RowTable table;
  std::vector<CsvChunk> split = SplitAtLineStarts(data, body_begin, options.chunk_bytes);
  std::vector<ChunkRows> chunks = ReadChunks(data, split, row_reader, options, &table);
  if (std::any_of(chunks.begin(), chunks.end(), [](const ChunkRows& c) { return c.diverged; })) {
    // A split point sat inside a multi-line quoted field: read it whole.
    split = {CsvChunk{body_begin, data.size(), true}};
    KernelDetailsOptions whole = options;
    whole.release = nullptr;  // released above; read again from the file
    chunks = ReadChunks(data, split, row_reader, whole, &table);
  }

  RowLedger ledger(file_label);
  JoinChunks(&chunks, first_line, options.threads, row_reader.has_pmu(), &table, &ledger, profile);
  profile->device_events.SortByStart();
  profile->device_events_source = model::DeviceEventsSource::kKernelDetailsCsv;
  profile->device_events_from = file_label;
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

Status ReadKernelDetailsFile(const std::string& path, model::RankProfile* profile,
                             unsigned threads) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  KernelDetailsOptions options;
  options.threads = threads;
  // The chunks are read where they lie in the mapping, and their pages
  // dropped behind the reader: on this project's current VM as fast as
  // copying each chunk out with pread, with less system time and without a
  // second path (docs/benchmarks.md, "The CSV reader's fast path").
  options.release = [&file](size_t begin, size_t end) { file.Release(begin, end); };
  return file.Intact(ParseKernelDetails(file.data(), path, profile, options));
}

}  // namespace trainscope::formats
