// libFuzzer harness for the CSV reader and the kernel_details parser.
//
// Checks more than "does not crash": the reader must always make progress
// and return views inside its input (or scratch), and the kernel_details
// ledger must account for every row it saw.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/ascend/kernel_details_reader.h"
#include "formats/csv/csv_reader.h"
#include "model/rank_profile.h"

namespace {

using trainscope::formats::CsvReader;
using trainscope::formats::CsvRecord;

void Check(bool condition) {
  if (!condition) std::abort();
}

void FuzzReader(std::string_view input) {
  // A small cap so the size-limit path is reachable from small inputs.
  CsvReader reader(input, /*max_record_bytes=*/4096);
  CsvRecord record;
  uint64_t last_offset = 0;
  int64_t last_line = 0;
  size_t records = 0;
  while (reader.Next(&record)) {
    Check(!record.fields.empty());
    Check(record.byte_offset >= last_offset && record.byte_offset < input.size());
    Check(record.line > last_line);
    last_offset = record.byte_offset;
    last_line = record.line;
    size_t total = 0;
    for (std::string_view field : record.fields) total += field.size();
    Check(total <= input.size());
    Check(++records <= input.size());
  }
  Check(reader.position() <= input.size());
  if (const auto* error = reader.error()) {
    Check(error->byte_offset <= input.size());
    Check(error->line >= 1 && error->column >= 1);
  }
}

void FuzzKernelDetails(std::string_view input) {
  trainscope::model::RankProfile profile;
  trainscope::Status status = trainscope::formats::ParseKernelDetails(input, "fuzz.csv", &profile);
  if (!status.ok()) return;
  Check(profile.ledgers.size() == 1);
  const trainscope::RowLedger& ledger = profile.ledgers[0];
  Check(ledger.rows_read() == ledger.rows_used() + ledger.rows_skipped());
  Check(profile.kernels.size() == static_cast<size_t>(ledger.rows_used()));
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    Check(profile.kernels.duration_ns[i] >= 0);
    if (i > 0) Check(profile.kernels.start_ns[i - 1] <= profile.kernels.start_ns[i]);
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
  return 0;
}
