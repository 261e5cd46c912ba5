// The reports' writers (one core). A 1,024-rank job's JSON is ~250 MB,
// written on one thread after the analysis: its keys, names and numbers go
// through JsonWriter one at a time.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "report/json_writer.h"

namespace {

// |rows| objects shaped like a report's per-operator rows: a kernel name, a
// count and three numbers, pretty-printed as `--json` writes them.
void BM_JsonWriterRows(benchmark::State& state) {
  const auto rows = static_cast<size_t>(state.range(0));
  std::vector<std::string> names;
  for (size_t i = 0; i < 64; ++i) {
    names.push_back(fmt::format("aclnnMatmul_MatMulV3_{}_Transpose<float16>", i));
  }
  size_t bytes = 0;
  for (auto _ : state) {
    trainscope::report::JsonWriter w;
    w.BeginObject().Key("rows").BeginArray();
    for (size_t i = 0; i < rows; ++i) {
      w.BeginObject()
          .Field("name", names[i % names.size()])
          .Field("count", static_cast<int64_t>(i * 37))
          .Key("mean_us")
          .Double(static_cast<double>(i) * 1.37 + 0.25)
          .Key("share")
          .Double(static_cast<double>(i % 1000) / 1000.0, 4)
          .Key("total_ms")
          .Double(static_cast<double>(i) * 0.051)
          .EndObject();
    }
    w.EndArray().EndObject();
    bytes = w.str().size();
    benchmark::DoNotOptimize(w.str().data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
  state.SetItemsProcessed(static_cast<int64_t>(rows * state.iterations()));
}
BENCHMARK(BM_JsonWriterRows)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
