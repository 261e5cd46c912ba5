// memory_record.csv ingestion throughput (the goal: >= 300 MB/s per core).
// Rows shaped like the Qwen3 0.6B sample (2024+ header, trailing TAB after
// the timestamp, MB with up to 14 decimals, a Stream Ptr, PTA and PTA+GE
// rows alternating, an APP row every 200), ~95 bytes per row.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/ascend/memory_readers.h"
#include "model/rank_profile.h"

namespace {

std::string MakeMemoryRecord(int64_t rows) {
  std::string out =
      "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream "
      "Ptr,Device Type\n";
  out.reserve(static_cast<size_t>(rows) * 100 + out.size());
  int64_t ts_ns = 1764246877074330300;
  int64_t allocated = int64_t{4304} << 20;
  for (int64_t i = 0; i < rows; ++i) {
    if (i % 200 == 0) {
      fmt::format_to(std::back_inserter(out), "APP,{}.{:03}\t,,11925.015625,,,NPU:0\n",
                     ts_ns / 1000, ts_ns % 1000);
      continue;
    }
    const bool ge = i % 2 == 1;
    if (!ge) allocated += ((i * 7919) % 2048 - 1000) * 512;
    const double mb = static_cast<double>(allocated) / (1 << 20);
    fmt::format_to(std::back_inserter(out), "{},{}.{:03}\t,{},10372.0,{},2,NPU:0\n",
                   ge ? "PTA+GE" : "PTA", ts_ns / 1000, ts_ns % 1000, mb, mb);
    ts_ns += 1700 + (i * 31) % 5000;
  }
  return out;
}

void BM_MemoryRecordParse(benchmark::State& state) {
  const std::string data = MakeMemoryRecord(state.range(0));
  for (auto _ : state) {
    trainscope::model::RankProfile profile;
    trainscope::Status status = trainscope::formats::ParseMemoryRecord(data, "bench.csv", &profile);
    if (!status.ok()) state.SkipWithError(status.message().c_str());
    benchmark::DoNotOptimize(profile.memory.records.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["bytes_per_row"] = static_cast<double>(data.size()) / state.range(0);
}
BENCHMARK(BM_MemoryRecordParse)->Arg(10000)->Arg(200000)->Unit(benchmark::kMillisecond);

// 14 M rows, ~1.05 GB: only with TRAINSCOPE_BENCH_BIG=1 (the string and the
// rows take ~1.5 GB; CI's functional run stays small).
const bool kBigRegistered = [] {
  if (std::getenv("TRAINSCOPE_BENCH_BIG") == nullptr) return false;
  benchmark::RegisterBenchmark("BM_MemoryRecordParse1GB", BM_MemoryRecordParse)
      ->Arg(14000000)
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
