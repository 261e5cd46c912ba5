// Benchmarks of the per-step analyses on a synthetic kernel table, and of
// repeat mining on a layered token stream.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/common/statistics.h"
#include "analysis/common/visited_quantiles.h"
#include "analysis/motifs/motif_mining.h"
#include "analysis/step/kernel_distribution.h"
#include "analysis/timeline/step_timeline.h"
#include "model/rank_profile.h"

namespace {

using trainscope::analysis::FamilyRules;

// |kernels| kernels in one step: a repeating 12-kernel layer pattern with
// realistic Ascend op types and a communication op every 40 kernels.
trainscope::model::RankProfile MakeProfile(int64_t kernels) {
  static const char* kTypes[] = {"Cast",     "Pows", "ReduceMean", "Adds",
                                 "Rsqrt",    "Mul",  "Mul",        "Cast",
                                 "MatMulV3", "Add",  "Swish",      "FlashAttentionScore"};
  trainscope::model::RankProfile profile;
  profile.device_events.Reserve(static_cast<size_t>(kernels));
  int64_t t = 1'764'246'877'000'000'000;
  for (int64_t i = 0; i < kernels; ++i) {
    trainscope::model::DeviceEvent row;
    row.step = 5;
    bool comm = i % 40 == 39;
    const char* type = comm ? "hcom_allGather_" : kTypes[i % 12];
    row.op_type = profile.strings.Intern(type);
    row.name = profile.strings.Intern(std::string("aclnn") + type + "_" + type);
    row.kind = comm ? trainscope::model::ActivityKind::kCommunication
                    : trainscope::model::ActivityKind::kCompute;
    row.start_ns = t;
    row.duration_ns = 5'000 + (i * 7919) % 200'000;
    t += row.duration_ns + 3'000;
    profile.device_events.Append(row);
  }
  return profile;
}

void BM_AnalysisStepDistribution(benchmark::State& state) {
  auto profile = MakeProfile(state.range(0));
  const trainscope::analysis::KernelFamilies families(profile, FamilyRules::Builtin());
  for (auto _ : state) {
    auto distribution = trainscope::analysis::ComputeStepDistribution(profile, 5, families);
    benchmark::DoNotOptimize(distribution);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_AnalysisStepDistribution)->Arg(20'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_AnalysisStepTimeline(benchmark::State& state) {
  auto profile = MakeProfile(state.range(0));
  const trainscope::analysis::KernelFamilies families(profile, FamilyRules::Builtin());
  for (auto _ : state) {
    auto timeline = trainscope::analysis::ComputeStepTimeline(profile, 5, families);
    benchmark::DoNotOptimize(timeline);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_AnalysisStepTimeline)->Arg(20'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// |tokens| tokens of model-like code: a 52-token and a 66-token layer in
// turn (forward and backward), one stray token after about one layer in
// fifty, so that almost every window repeats layer after layer.
std::vector<int32_t> LayeredTokens(int64_t tokens) {
  uint64_t state = 42;
  auto next = [&state](uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int32_t>((state >> 33) % bound);
  };
  std::vector<int32_t> forward(52);
  std::vector<int32_t> backward(66);
  for (int32_t& t : forward) t = next(40);
  for (int32_t& t : backward) t = next(40);
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(tokens) + 200);
  while (static_cast<int64_t>(out.size()) < tokens) {
    out.insert(out.end(), forward.begin(), forward.end());
    out.insert(out.end(), backward.begin(), backward.end());
    if (next(50) == 0) out.push_back(next(40));
  }
  out.resize(static_cast<size_t>(tokens));
  return out;
}

void BM_MineRepeatsLayered(benchmark::State& state) {
  const std::vector<int32_t> tokens = LayeredTokens(state.range(0));
  for (auto _ : state) {
    auto repeats = trainscope::analysis::MineRepeats(tokens, {}, {});
    benchmark::DoNotOptimize(repeats);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MineRepeatsLayered)->Arg(20'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// A stream where repeats keep splitting: a 40-token cycle with one token in
// 97 missing (the compute stream of scripts/gen_profiler_db.py's kernels,
// where a collective takes a compute kernel's place out of phase with the
// cycle), so most groups split at every length instead of extending in one
// comparison.
void BM_MineRepeatsInterleaved(benchmark::State& state) {
  std::vector<int32_t> tokens;
  tokens.reserve(static_cast<size_t>(state.range(0)));
  for (int64_t i = 0; static_cast<int64_t>(tokens.size()) < state.range(0); ++i) {
    if (i % 97 != 0) tokens.push_back(static_cast<int32_t>(i % 40));
  }
  for (auto _ : state) {
    auto repeats = trainscope::analysis::MineRepeats(tokens, {}, {});
    benchmark::DoNotOptimize(repeats);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MineRepeatsInterleaved)->Arg(20'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// p50 and p90 of 3 M step times (one decimal, near one value: what a
// training log's health summarises), by selection in a copy (Quantiles) and
// by reading the values four times without one (QuantilesOfVisited).
std::vector<double> StepTimes(size_t n) {
  std::vector<double> values(n);
  uint64_t state = 7;
  for (double& v : values) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    v = 1000 + static_cast<double>((state >> 33) % 5000) / 10;
  }
  return values;
}

void BM_QuantilesOfACopy(benchmark::State& state) {
  const std::vector<double> values = StepTimes(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    std::vector<double> copy = values;
    benchmark::DoNotOptimize(trainscope::analysis::Quantiles(copy, {0.5, 0.9}));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_QuantilesOfACopy)->Arg(3'000'000)->Unit(benchmark::kMillisecond);

void BM_QuantilesOfVisited(benchmark::State& state) {
  const std::vector<double> values = StepTimes(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(trainscope::analysis::QuantilesOfVisited(
        [&values](auto&& visit) {
          for (const double v : values) visit(v);
        },
        values.size(), {0.5, 0.9}));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_QuantilesOfVisited)->Arg(3'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
