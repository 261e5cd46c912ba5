// Training-log reading throughput (the goal: >= 300 MB/s per core in
// Release): a generated Megatron-LM log, one training line per iteration
// with the fields training_log prints, and one line of other output every
// ten (a warning, a memory report), read through the ledgered reader.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "formats/log/training_log_reader.h"

namespace {

std::string MakeMegatronLog(int64_t lines) {
  std::string out;
  out.reserve(static_cast<size_t>(lines) * 360);
  for (int64_t i = 1; i <= lines; ++i) {
    const int64_t s = i % 60;
    const int64_t m = (i / 60) % 60;
    const int64_t h = (i / 3600) % 24;
    out += fmt::format(
        " [2024-05-01 {:02d}:{:02d}:{:02d}] iteration {:8d}/{:8d} | consumed samples: {:12d} | "
        "elapsed time per iteration (ms): {:.1f} | throughput per GPU (TFLOP/s/GPU): {:.1f} | "
        "learning rate: {:.6E} | global batch size: {:5d} | lm loss: {:.6E} | loss scale: 1.0 | "
        "grad norm: {:.3f} | number of skipped iterations:   0 | number of nan iterations:   0 |\n",
        h, m, s, i, lines, i * 256, 1000.0 + static_cast<double>(i % 17), 180.0 + (i % 5), 3e-4,
        256, 2.0 + 6.0 / static_cast<double>(i), 1.0 + 0.01 * static_cast<double>(i % 9));
    if (i % 10 == 0) out += "[Rank 0] (after 10 iterations) memory (MB) | allocated: 1234.5\n";
  }
  return out;
}

void BM_LogMegatronParse(benchmark::State& state) {
  const std::string data = MakeMegatronLog(state.range(0));
  for (auto _ : state) {
    auto read = trainscope::formats::ReadTrainingLogBytes(data, false, "bench.log");
    if (!read.ok()) state.SkipWithError(read.status().message().c_str());
    benchmark::DoNotOptimize(read->log.records.size());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_LogMegatronParse)->Arg(1000)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace
