// libFuzzer harness for the CSV reader and every Ascend CSV reader
// (kernel_details, step_trace_time, op_statistic, api_statistic,
// operator_details, memory_record, operator_memory, npu_module_mem, l2_cache).
//
// Checks more than "does not crash": the reader's fast path must agree with
// its byte-by-byte path, the reader must always make progress,
// reach the end of its input (damage costs a record, never the rest), and
// return views inside its input (or scratch); every reader's ledger must
// account for every row it saw, and kept times lie in [0, 2^62) ns.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/numbers.h"
#include "formats/ascend/api_statistic_reader.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend/l2_cache_reader.h"
#include "formats/ascend/memory_readers.h"
#include "formats/ascend/op_statistic_reader.h"
#include "formats/ascend/operator_details_reader.h"
#include "formats/ascend/step_trace_reader.h"
#include "formats/csv/csv_reader.h"
#include "fuzz_flags.h"
#include "model/rank_profile.h"

namespace {

using trainscope::formats::CsvProblem;
using trainscope::formats::CsvReader;
using trainscope::formats::CsvRecord;

void Check(bool condition) {
  if (!condition) std::abort();
}

// The fast path (csv_reader.h NextFast) and the byte-by-byte path read the
// input alike: the same records, fields, lines, offsets and problems.
void FuzzBothPaths(std::string_view input, size_t max_record_bytes) {
  CsvReader fast(input, max_record_bytes);
  CsvReader slow(input, max_record_bytes);
  slow.set_fast_path(false);
  CsvRecord a;
  CsvRecord b;
  for (;;) {
    const bool more = fast.Next(&a);
    Check(more == slow.Next(&b));
    if (!more) break;
    Check(a.line == b.line && a.byte_offset == b.byte_offset && a.problem == b.problem);
    Check(a.fields == b.fields);
    Check(fast.position() == slow.position() && fast.line() == slow.line());
    if (a.problem != CsvProblem::kNone) {
      Check(a.error.ToString() == b.error.ToString() && a.error.record_line == b.error.record_line);
    }
  }
  Check(fast.position() == slow.position());
}

void FuzzReader(std::string_view input) {
  FuzzBothPaths(input, 4096);
  FuzzBothPaths(input, 1 + input.size() % 97);
  // A small cap so the size-limit path is reachable from small inputs.
  CsvReader reader(input, /*max_record_bytes=*/4096);
  CsvRecord record;
  uint64_t last_offset = 0;
  int64_t last_line = 0;
  size_t records = 0;
  while (reader.Next(&record)) {
    Check(record.byte_offset >= last_offset && record.byte_offset < input.size());
    Check(record.line > last_line);
    if (record.problem != CsvProblem::kNone) {
      Check(record.fields.empty());
      Check(record.error.byte_offset <= input.size());
      Check(record.error.line >= 1 && record.error.column >= 1);
      last_offset = record.byte_offset;
      last_line = record.line;
      Check(++records <= input.size());
      continue;
    }
    Check(!record.fields.empty());
    Check(record.line > last_line);
    last_offset = record.byte_offset;
    last_line = record.line;
    size_t total = 0;
    for (std::string_view field : record.fields) total += field.size();
    Check(total <= input.size());
    Check(++records <= input.size());
  }
  // Reading never stops early: the whole input was consumed.
  Check(reader.position() == input.size());
}

// Every reader: the ledger accounts for every row.
void CheckLedger(const trainscope::model::RankProfile& profile) {
  Check(profile.ledgers.size() == 1);
  const trainscope::RowLedger& ledger = profile.ledgers[0];
  Check(ledger.rows_read() == ledger.rows_used() + ledger.rows_skipped());
}

void FuzzKernelDetails(std::string_view input) {
  trainscope::model::RankProfile profile;
  trainscope::Status status = trainscope::formats::ParseKernelDetails(input, "fuzz.csv", &profile);
  if (!status.ok()) return;
  CheckLedger(profile);
  Check(profile.device_events.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
  for (size_t i = 0; i < profile.device_events.size(); ++i) {
    Check(trainscope::ValidSpanNs(profile.device_events.start_ns[i],
                                  profile.device_events.duration_ns[i]));
    if (i > 0) Check(profile.device_events.start_ns[i - 1] <= profile.device_events.start_ns[i]);
  }
  // Differential: read in 2-8 chunks on two threads, the file must give the
  // same rows and the same account (formats/csv/csv_chunks.h). Split points
  // vary with the input's size, so they land on every kind of byte.
  trainscope::model::RankProfile chunked;
  trainscope::formats::KernelDetailsOptions options;
  options.threads = 2;
  options.chunk_bytes = 1 + input.size() / (2 + input.size() % 7);
  Check(trainscope::formats::ParseKernelDetails(input, "fuzz.csv", &chunked, options).ok());
  const trainscope::model::DeviceEvents& a = profile.device_events;
  const trainscope::model::DeviceEvents& b = chunked.device_events;
  Check(a.size() == b.size() && a.start_ns == b.start_ns && a.duration_ns == b.duration_ns &&
        a.step == b.step);
  auto same_text = [&](trainscope::StringId x, trainscope::StringId y) {
    return profile.strings.Get(x) == chunked.strings.Get(y);
  };
  for (size_t i = 0; i < a.size(); ++i) {
    Check(same_text(a.name[i], b.name[i]));
    Check(a.wait_ns[i] == b.wait_ns[i] && a.block_dim[i] == b.block_dim[i]);
    const trainscope::model::TensorDescription& x = a.tensors_of(i);
    const trainscope::model::TensorDescription& y = b.tensors_of(i);
    Check(same_text(x.input_shapes, y.input_shapes) && same_text(x.input_dtypes, y.input_dtypes) &&
          same_text(x.output_shapes, y.output_shapes) &&
          same_text(x.output_dtypes, y.output_dtypes));
  }
  const trainscope::RowLedger& whole = profile.ledgers[0];
  const trainscope::RowLedger& parts = chunked.ledgers[0];
  Check(whole.rows_read() == parts.rows_read() && whole.rows_used() == parts.rows_used() &&
        whole.skipped_by_reason() == parts.skipped_by_reason() &&
        whole.notes_by_reason() == parts.notes_by_reason());
  // The samples too: lines and details (with byte offsets) as the whole
  // read reports them.
  Check(whole.samples().size() == parts.samples().size());
  for (size_t i = 0; i < whole.samples().size(); ++i) {
    Check(whole.samples()[i].line == parts.samples()[i].line &&
          whole.samples()[i].detail == parts.samples()[i].detail);
  }
}

void FuzzStepTrace(std::string_view input) {
  trainscope::model::RankProfile profile;
  if (!trainscope::formats::ParseStepTraceTime(input, "fuzz.csv", &profile).ok()) return;
  CheckLedger(profile);
  Check(profile.step_trace.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
  for (const auto& row : profile.step_trace) {
    Check(trainscope::InTimeRange(row.computing_ns) && trainscope::InTimeRange(row.free_ns) &&
          trainscope::InTimeRange(row.communication_ns));
  }
}

void FuzzOpStatistic(std::string_view input) {
  trainscope::model::RankProfile profile;
  if (!trainscope::formats::ParseOpStatistic(input, "fuzz.csv", &profile).ok()) return;
  CheckLedger(profile);
  Check(profile.op_statistic.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
  for (const auto& row : profile.op_statistic) {
    Check(row.count >= 0 && trainscope::InTimeRange(row.total_ns));
  }
}

void FuzzApiStatistic(std::string_view input) {
  trainscope::model::RankProfile profile;
  if (!trainscope::formats::ParseApiStatistic(input, "fuzz.csv", &profile).ok()) return;
  CheckLedger(profile);
  Check(profile.has_api_statistic);
  Check(profile.api_statistic.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
  for (const auto& row : profile.api_statistic) {
    Check(row.count >= 0 && trainscope::InTimeRange(row.total_ns));
    Check(!row.avg_ns || trainscope::InTimeRange(*row.avg_ns));
  }
}

// A kept rate is a fraction in [0, 1] or unknown, never a default 0 for N/A.
void FuzzL2Cache(std::string_view input) {
  trainscope::model::RankProfile profile;
  if (!trainscope::formats::ParseL2Cache(input, "fuzz.csv", &profile).ok()) return;
  CheckLedger(profile);
  Check(profile.has_l2_cache);
  Check(profile.l2_cache.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
  for (const auto& row : profile.l2_cache) {
    Check(row.op_name < profile.strings.size());
    Check(!row.hit_rate || (*row.hit_rate >= 0 && *row.hit_rate <= 1));
    Check(!row.victim_rate || (*row.victim_rate >= 0 && *row.victim_rate <= 1));
  }
}

void FuzzOperatorDetails(std::string_view input) {
  trainscope::model::RankProfile profile;
  if (!trainscope::formats::ParseOperatorDetails(input, "fuzz.csv", &profile).ok()) return;
  CheckLedger(profile);
  Check(profile.operator_details.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
  for (const auto& row : profile.operator_details) {
    Check(row.name < profile.strings.size() && row.source < profile.strings.size());
    // Shapes are kept on one line.
    Check(profile.strings.Get(row.input_shapes).find('\n') == std::string_view::npos);
    Check(!row.host_total_ns || trainscope::InTimeRange(*row.host_total_ns));
  }
}

// The memory readers: every kept row has an in-range time; a kept size
// came from a cell (no value invented for an empty one).
void FuzzMemory(std::string_view input) {
  {
    trainscope::model::RankProfile profile;
    if (trainscope::formats::ParseMemoryRecord(input, "fuzz.csv", &profile).ok()) {
      CheckLedger(profile);
      const auto& rows = profile.memory.records;
      Check(rows.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
      for (size_t i = 0; i < rows.size(); ++i) {
        Check(trainscope::InTimeRange(rows[i].ts_ns));
        if (i > 0) Check(rows[i - 1].ts_ns <= rows[i].ts_ns);
        Check(rows[i].stream < profile.strings.size());
      }
    }
  }
  {
    trainscope::model::RankProfile profile;
    if (trainscope::formats::ParseOperatorMemory(input, "fuzz.csv", &profile).ok()) {
      CheckLedger(profile);
      Check(profile.memory.operators.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
      for (const auto& row : profile.memory.operators) {
        Check(!row.alloc_ns || trainscope::InTimeRange(*row.alloc_ns));
        Check(!row.release_ns || trainscope::InTimeRange(*row.release_ns));
        Check(row.name < profile.strings.size());
      }
    }
  }
  {
    trainscope::model::RankProfile profile;
    if (trainscope::formats::ParseNpuModuleMem(input, "fuzz.csv", &profile).ok()) {
      CheckLedger(profile);
      Check(profile.memory.modules.size() == static_cast<size_t>(profile.ledgers[0].rows_used()));
      for (const auto& row : profile.memory.modules) {
        Check(trainscope::InTimeRange(row.ts_ns));
        Check(!row.reserved_bytes || *row.reserved_bytes >= 0);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  FuzzReader(input);
  FuzzKernelDetails(input);
  // Most random inputs fail the header check; behind a valid CANN 8.3 header
  // the fuzzer reaches the row path.
  static const std::string kHeader =
      "Step Id,Device_id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),"
      "Wait Time(us),Block Dim,aic_mac_ratio,aic_mte2_ratio,aiv_vec_ratio\n";
  FuzzKernelDetails(kHeader + std::string(input));
  static const std::string kStepTraceHeader =
      "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
      "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n";
  FuzzStepTrace(input);
  FuzzStepTrace(kStepTraceHeader + std::string(input));
  static const std::string kOpStatisticHeader =
      "Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),"
      "Ratio(%)\n";
  FuzzOpStatistic(input);
  FuzzOpStatistic(kOpStatisticHeader + std::string(input));
  static const std::string kApiStatisticHeader =
      "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n";
  FuzzApiStatistic(input);
  FuzzApiStatistic(kApiStatisticHeader + std::string(input));
  static const std::string kL2CacheHeader =
      "Device_id,Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n";
  FuzzL2Cache(input);
  FuzzL2Cache(kL2CacheHeader + std::string(input));
  static const std::string kOperatorDetailsHeader =
      "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),Device Self "
      "Duration(us),Device Total Duration(us),Device Self Duration With AICore(us),Device Total "
      "Duration With AICore(us)\n";
  FuzzOperatorDetails(input);
  FuzzOperatorDetails(kOperatorDetailsHeader + std::string(input));
  static const std::string kMemoryRecordHeader =
      "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream "
      "Ptr,Device Type\n";
  static const std::string kOperatorMemoryHeader =
      "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
      "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),Allocation "
      "Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),Release Total "
      "Active(MB),Stream Ptr,Device Type\n";
  static const std::string kModuleMemHeader =
      "Device_id,Component,Timestamp(us),Total Reserved(MB),Device\n";
  FuzzMemory(input);
  FuzzMemory(kMemoryRecordHeader + std::string(input));
  FuzzMemory(kOperatorMemoryHeader + std::string(input));
  FuzzMemory(kModuleMemHeader + std::string(input));
  return 0;
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}
