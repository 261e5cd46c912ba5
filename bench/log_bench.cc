// Training-log reading throughput (the goal: >= 300 MB/s per core in
// Release): a generated Megatron-LM log, one training line per iteration
// with the fields training_log prints, and one line of other output every
// ten (a warning, a memory report), read through the ledgered reader.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "analysis/common/findings_catalog.h"
#include "analysis/health/training_health.h"
#include "formats/log/flight_recorder_reader.h"
#include "formats/log/training_log_reader.h"
#include "formats/pickle/pickle_reader.h"

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

// `health`'s judgement of a read log on one thread (the reader above is
// the other half of `health`): the summaries, curves and rules read the
// packed records a column at a time.
void BM_HealthJudge(benchmark::State& state) {
  const std::string data = MakeMegatronLog(state.range(0));
  auto read = trainscope::formats::ReadTrainingLogBytes(data, false, "bench.log");
  if (!read.ok()) {
    state.SkipWithError(read.status().message().c_str());
    return;
  }
  const auto& thresholds = trainscope::analysis::FindingCatalog::Builtin().thresholds();
  for (auto _ : state) {
    const trainscope::analysis::RunHealth health =
        trainscope::analysis::AnalyzeTrainingLog(read->log, thresholds, nullptr, 1);
    benchmark::DoNotOptimize(health.findings.size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_HealthJudge)->Arg(1000)->Arg(200000)->Unit(benchmark::kMillisecond);

// A pickled flight-recorder dump shaped like torch's (protocol 2: BINUNICODE
// strings memoized with BINPUT and fetched again with BINGET, LONG1 ints,
// EMPTY_DICT/MARK/SETITEMS per entry): |entries| entries of ~560 bytes.
class BenchPickle {
 public:
  std::string bytes = "\x80\x02";
  void Str(std::string_view s) {
    if (auto it = memo_.find(std::string(s)); it != memo_.end()) {
      bytes += 'h';  // BINGET (the first 256 strings are memoized, as BINPUT allows)
      bytes.push_back(static_cast<char>(it->second));
      return;
    }
    bytes += 'X';
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>(s.size() >> (8 * i)));
    bytes += s;
    if (memo_.size() < 256) {
      bytes += 'q';
      bytes.push_back(static_cast<char>(memo_.size()));
      memo_.emplace(std::string(s), memo_.size());
    }
  }
  void Int(int64_t v) {
    bytes += "\x8a\x08";
    for (int i = 0; i < 8; ++i)
      bytes.push_back(static_cast<char>(static_cast<uint64_t>(v) >> (8 * i)));
  }

 private:
  std::map<std::string, size_t> memo_;
};

std::string MakePickledDump(int64_t entries) {
  BenchPickle p;
  p.bytes += "}(";
  p.Str("version");
  p.Str("2.9");
  p.Str("pg_config");
  p.bytes += "}(";
  p.Str("0");
  p.bytes += "}(";
  p.Str("name");
  p.Str("0");
  p.Str("desc");
  p.Str("default_pg");
  p.Str("ranks");
  p.Str("[0, 1, 2, 3, 4, 5, 6, 7]");
  p.bytes += "uu";
  p.Str("entries");
  p.bytes += "](";
  for (int64_t i = 0; i < entries; ++i) {
    p.bytes += "}(";
    for (const char* k : {"record_id", "pg_id", "collective_seq_id", "p2p_seq_id", "op_id"}) {
      p.Str(k);
      p.Int(i);
    }
    p.Str("process_group");
    p.Str("0");
    p.Str("default_pg");
    p.bytes += "\x86";  // TUPLE2
    p.Str("profiling_name");
    p.Str(i % 3 == 0 ? "nccl:all_reduce" : "nccl:_all_gather_base");
    p.Str("time_created_ns");
    p.Int(1758580156092493363 + i);
    for (const char* k : {"input_sizes", "output_sizes"}) {
      p.Str(k);
      p.bytes += "](](";
      p.Int(2048 + i % 64);
      p.Int(5120);
      p.bytes += "ee";
    }
    for (const char* k : {"input_dtypes", "output_dtypes"}) {
      p.Str(k);
      p.bytes += "](";
      p.Str("BFloat16");
      p.bytes += "e";
    }
    p.Str("state");
    p.Str("scheduled");
    p.Str("thread_name");
    p.Str("pt_main_thread");
    p.Str("timeout_ms");
    p.Int(180000);
    p.Str("retired");
    p.bytes += "\x89";
    p.Str("is_p2p");
    p.bytes += "\x89";
    p.bytes += "u";
  }
  p.bytes += "eu.";
  return p.bytes;
}

// The pickle reader alone and the dump made of it.
void BM_FlightRecorderPickleParse(benchmark::State& state) {
  const std::string data = MakePickledDump(state.range(0));
  const bool dump = state.range(1) != 0;
  for (auto _ : state) {
    if (dump) {
      auto d = trainscope::formats::ParseFlightRecorderPickle(data, "_dump_0");
      if (!d.ok()) state.SkipWithError(d.status().message().c_str());
      benchmark::DoNotOptimize(d->entries.size());
    } else {
      auto doc = trainscope::formats::ReadPickle(data, "_dump_0");
      if (!doc.ok()) state.SkipWithError(doc.status().message().c_str());
      benchmark::DoNotOptimize((*doc)->value_count());
    }
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(data.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FlightRecorderPickleParse)
    ->ArgNames({"entries", "dump"})
    ->Args({2000, 0})
    ->Args({200000, 0})
    ->Args({200000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
