// `trainscope triage` over a whole job: every rank's flight-recorder dump
// (JSON form, a default group and a tensor-parallel group of 8, 2,000
// entries each), its c10d log (startup lines, then the watchdog timeout)
// and its Megatron-LM training log (500 iterations), one rank missing from
// the last all-reduce and one iteration behind (scripts/gen_triage_job.py
// writes the same job for timing the CLI). Files are written once to a
// temporary folder; the loop reads, sniffs and triages them all. CI runs 16
// ranks; TRAINSCOPE_BENCH_TRIAGE_RANKS=1024 measures a large job.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/triage/triage.h"
#include "formats/triage/failure_log_reader.h"

namespace {

int64_t BenchTriageRanks() {
  const char* env = std::getenv("TRAINSCOPE_BENCH_TRIAGE_RANKS");
  const int64_t n = env != nullptr ? std::atoll(env) : 16;
  return n >= 8 ? n - n % 8 : 8;
}

std::string BenchTriageDump(int64_t rank, int64_t ranks, int64_t entries, int64_t missing) {
  std::string ranks_all;
  for (int64_t r = 0; r < ranks; ++r) ranks_all += fmt::format("{}{}", r ? ", " : "", r);
  const int64_t tp0 = rank - rank % 8;
  std::string out = fmt::format(
      R"({{"version": "2.9", "pg_config": {{"0": {{"name": "0", "desc": "default_pg", "ranks": "[{}]"}},)"
      R"( "tp{}": {{"name": "tp{}", "desc": "TENSOR_MODEL_PARALLEL_GROUP", "ranks": "[{}, {}, {}, {}, {}, {}, {}, {}]"}}}},)"
      R"( "pg_status": {{}}, "entries": [)",
      ranks_all, tp0, tp0, tp0, tp0 + 1, tp0 + 2, tp0 + 3, tp0 + 4, tp0 + 5, tp0 + 6, tp0 + 7);
  out.reserve(static_cast<size_t>(entries) * 420);
  const int64_t last = rank == missing ? entries - 1 : entries;
  for (int64_t s = 1; s <= last; ++s) {
    const bool world = s % 4 == 0;
    out += fmt::format(
        R"({}{{"record_id": {}, "pg_id": {}, "process_group": ["{}", "{}"], "collective_seq_id": {},)"
        R"( "p2p_seq_id": 0, "profiling_name": "nccl:{}", "time_created_ns": {},)"
        R"( "input_sizes": [[4096, 5120]], "input_dtypes": ["BFloat16"], "output_sizes": [[4096, 5120]],)"
        R"( "output_dtypes": ["BFloat16"], "state": "{}", "timeout_ms": 600000, "is_p2p": false}})",
        s > 1 ? ", " : "", s, world ? 0 : 1, world ? "0" : fmt::format("tp{}", tp0),
        world ? "default_pg" : "TENSOR_MODEL_PARALLEL_GROUP", world ? s / 4 : s - s / 4,
        world ? "all_reduce" : "_all_gather_base", 1'700'000'000'000'000'000 + s * 1'000'000,
        s < entries ? "completed" : "scheduled");
  }
  out += "]}";
  return out;
}

std::string BenchTriageLog(int64_t rank, int64_t ranks) {
  std::string out;
  for (int i = 0; i < 200; ++i) {
    out +=
        fmt::format("node{}:{}:{} [{}] NCCL INFO Channel {:02d}/0 : {}[{}] -> {}[{}] via P2P/IPC\n",
                    rank / 8, 1000 + rank, 2000 + rank, rank % 8, i % 32, rank, rank % 8,
                    (rank + 1) % ranks, (rank + 1) % 8);
  }
  out += fmt::format(
      "node{}:{}:{} [{}] NCCL INFO comm 0x55 rank {} nRanks {} nNodes {} localRanks 8\n", rank / 8,
      1000 + rank, 2000 + rank, rank % 8, rank, ranks, ranks / 8);
  out += fmt::format(
      "[rank{}]:[E ProcessGroupNCCL.cpp:563] [Rank {}] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=500, OpType=ALLREDUCE, NumelIn=20971520, NumelOut=20971520, "
      "Timeout(ms)=600000) ran for 600{:03d} milliseconds before timing out.\n",
      rank, rank, rank % 1000);
  return out;
}

std::string BenchTriageTrainingLog(int64_t rank, int64_t steps, int64_t missing) {
  std::string out = fmt::format("using world size: {}, data-parallel size: 8\n", rank);
  const int64_t last = rank == missing ? steps - 1 : steps;
  for (int64_t it = 1; it <= last; ++it) {
    const int64_t sec = 1000 + it;
    out += fmt::format(
        " [2024-05-01 {:02d}:{:02d}:{:02d}] iteration {:8d}/{:8d} | consumed samples: {:12d} | "
        "elapsed time per iteration (ms): {:.1f} | learning rate: 3.000000E-04 | global batch "
        "size:   256 | lm loss: {:.6E} | loss scale: 1.0 | grad norm: 1.000 | number of skipped "
        "iterations:   0 | number of nan iterations:   0 |\n",
        10 + sec / 3600, sec / 60 % 60, sec % 60, it, 100000, it * 256,
        1000.0 + static_cast<double>((it * 7 + rank) % 13), 3.0 - static_cast<double>(it) * 1e-4);
  }
  return out;
}

void BM_TriageJob(benchmark::State& state) {
  const int64_t ranks = BenchTriageRanks();
  const int64_t entries = 2000;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("trainscope-bench-triage-{}", ranks);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "logs");
  std::filesystem::create_directories(dir / "train");
  const int64_t missing = ranks / 2 + 3;
  int64_t bytes = 0;
  for (int64_t r = 0; r < ranks; ++r) {
    const std::string dump = BenchTriageDump(r, ranks, entries, missing);
    const std::string log = BenchTriageLog(r, ranks);
    const std::string train = BenchTriageTrainingLog(r, 500, missing);
    std::ofstream(dir / fmt::format("nccl_trace_rank_{}.json", r), std::ios::binary) << dump;
    std::ofstream(dir / "logs" / fmt::format("rank{}.log", r), std::ios::binary) << log;
    std::ofstream(dir / "train" / fmt::format("rank{}.log", r), std::ios::binary) << train;
    bytes += static_cast<int64_t>(dump.size() + log.size() + train.size());
  }
  for (auto _ : state) {
    const trainscope::model::TriageInputs in =
        trainscope::formats::LoadTriageInputs({dir.string()}, 0);
    const trainscope::analysis::TriageReport report = trainscope::analysis::Triage(in);
    if (report.stuck.empty() || report.stuck.front().missing.size() != 1) {
      state.SkipWithError("the missing rank was not found");
    }
    if (report.behind != std::vector<int64_t>{missing}) {
      state.SkipWithError("the rank behind in its training log was not found");
    }
    benchmark::DoNotOptimize(report.verdict.size());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["ranks"] = static_cast<double>(ranks);
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_TriageJob)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
