// kernel_details.csv ingestion throughput (goal: >= 400 MB/s on one core in
// Release). The input is synthetic but shaped like the CANN 8.3 Qwen sample:
// 47 columns, PipeUtilization metrics, quoted shapes with literal quotes,
// trailing TAB after Start Time, ~330 bytes per row, a few hundred distinct
// kernel names.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/ascend/kernel_details_reader.h"
#include "formats/csv/csv_reader.h"
#include "model/rank_profile.h"

namespace {

constexpr const char* kHeader =
    "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,"
    "Start Time(us),Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,"
    "Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Output Formats,"
    "Context ID,aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,"
    "aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),"
    "aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),"
    "aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,"
    "aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,"
    "cube_utilization(%)\n";

std::string MakeKernelDetails(int64_t rows) {
  static const char* kOps[] = {
      "MatMulV3", "Add", "Mul", "Cast", "RmsNorm", "FlashAttentionScore", "Transpose", "GatherV2"};
  static const char* kCores[] = {"AI_CORE",        "AI_VECTOR_CORE", "AI_VECTOR_CORE",
                                 "AI_VECTOR_CORE", "AI_VECTOR_CORE", "MIX_AIC",
                                 "AI_VECTOR_CORE", "AI_VECTOR_CORE"};
  std::string out = kHeader;
  out.reserve(static_cast<size_t>(rows) * 340 + out.size());
  int64_t start_ns = 1764246877073569640;
  for (int64_t i = 0; i < rows; ++i) {
    const int op = static_cast<int>(i % 8);
    const int64_t dur_ns = 1000 + (i * 7919) % 400000;
    if (i % 97 == 0) {
      fmt::format_to(std::back_inserter(out),
                     "13,0,4294967295,N/A,N/A,hcom_allReduce__{}_0_1,hcom_allReduce_,N/A,"
                     "COMMUNICATION,{}.{:03}\t,{}.{:03},833.420000,0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,"
                     "N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,"
                     "N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\n",
                     i % 300, start_ns / 1000, start_ns % 1000, dur_ns / 1000, dur_ns % 1000);
    } else {
      fmt::format_to(std::back_inserter(out),
                     "13,0,4294967295,{},2,aclnn{}_{}AiCore_{}{},{},dynamic,{},{}.{:03}\t,{}.{:03},"
                     "1.080000,40,0,NO,\"\"\"1,4096,1024;1024\"\"\",DT_BF16;DT_BF16,ND;ND,"
                     "\"\"\"1,4096,1024\"\"\",DT_BF16,ND,N/A,0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,"
                     "0.0,0.0,0.0,0.0,40.296,2659547,0.139,0.003,1.948,0.048,31.87,0.791,4.633,"
                     "0.115,0.056,0.000\n",
                     34473 + i, kOps[op], kOps[op], kOps[op], i % 40, kOps[op], kCores[op],
                     start_ns / 1000, start_ns % 1000, dur_ns / 1000, dur_ns % 1000);
    }
    start_ns += dur_ns + 1500;
  }
  return out;
}

void BM_CsvKernelDetailsParse(benchmark::State& state) {
  const std::string data = MakeKernelDetails(state.range(0));
  for (auto _ : state) {
    trainscope::model::RankProfile profile;
    trainscope::Status status =
        trainscope::formats::ParseKernelDetails(data, "bench.csv", &profile);
    if (!status.ok()) state.SkipWithError(status.message().c_str());
    benchmark::DoNotOptimize(profile.device_events.start_ns.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["bytes_per_row"] = static_cast<double>(data.size()) / state.range(0);
}
BENCHMARK(BM_CsvKernelDetailsParse)->Arg(10000)->Arg(200000)->Unit(benchmark::kMillisecond);

// The same file read in chunks (formats/csv/csv_chunks.h) on range(1)
// threads, 4 MiB a chunk: the in-file parallel path. Real time, since the
// work is on worker threads.
void BM_CsvKernelDetailsParseChunked(benchmark::State& state) {
  const std::string data = MakeKernelDetails(state.range(0));
  trainscope::formats::KernelDetailsOptions options;
  options.threads = static_cast<unsigned>(state.range(1));
  options.chunk_bytes = size_t{4} << 20;
  for (auto _ : state) {
    trainscope::model::RankProfile profile;
    trainscope::Status status =
        trainscope::formats::ParseKernelDetails(data, "bench.csv", &profile, options);
    if (!status.ok()) state.SkipWithError(status.message().c_str());
    benchmark::DoNotOptimize(profile.device_events.start_ns.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CsvKernelDetailsParseChunked)
    ->Args({200000, 1})
    ->Args({200000, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// 3.1 M rows, ~1.06 GB of CSV (342 B/row): only with TRAINSCOPE_BENCH_BIG=1,
// the CSV side of BM_DbProfilerRead1GB (db_bench.cc).
const bool kBigRegistered = [] {
  if (std::getenv("TRAINSCOPE_BENCH_BIG") == nullptr) return false;
  benchmark::RegisterBenchmark("BM_CsvKernelDetailsParse1GB", BM_CsvKernelDetailsParse)
      ->Arg(3100000)
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

// The CSV tokenizer alone, for comparison with the full ingestion.
void BM_CsvReaderOnly(benchmark::State& state) {
  const std::string data = MakeKernelDetails(state.range(0));
  for (auto _ : state) {
    trainscope::formats::CsvReader reader(data);
    trainscope::formats::CsvRecord record;
    size_t fields = 0;
    while (reader.Next(&record)) fields += record.fields.size();
    benchmark::DoNotOptimize(fields);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CsvReaderOnly)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace
