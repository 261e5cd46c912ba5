// libFuzzer harness for msprobe's dump.json (formats/accuracy/dump_reader):
// the reader fails with a message or returns tensors whose ledger balances,
// and comparing the dump with itself finds no divergence (statistics only:
// no tensor files are read from a fuzz input).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "analysis/accuracy/accuracy.h"
#include "formats/accuracy/dump_reader.h"
#include "fuzz_flags.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  auto dump = trainscope::formats::ParseMsprobeDump(json, "fuzz/dump.json", "", {});
  if (!dump.ok()) return 0;
  for (const auto& ledger : dump->ledgers) {
    if (!ledger.Balanced()) std::abort();
    if (ledger.rows_used() != static_cast<int64_t>(dump->tensors.size())) std::abort();
  }
  const auto c = trainscope::analysis::CompareDumps(
      *dump, *dump, trainscope::analysis::AccuracyThresholds::Builtin(), {});
  if (c.diverged != 0 || !c.spans.empty()) std::abort();
  return 0;
}
