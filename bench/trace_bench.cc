// Chrome-trace scan throughput: the chunked scan of an in-memory Kineto
// trace into a sink that only counts, so the number is the reader's alone
// (finding chunks, reading events), not the timeline's. The text is laid out
// as Kineto writes it (one key per line group, four-space indents) with the
// event mix of the HTA sample trace: CPU ops, runtime launches and their
// flow events, kernels with their launch arguments, memory instants.
// range(0): events; range(1): 1 = PlainEventReader in front of simdjson,
// 0 = simdjson alone.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "formats/trace/chrome_json.h"

namespace {

namespace trace = trainscope::formats::trace;

std::string MakeKinetoTrace(int64_t events) {
  std::string out = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
  out.reserve(static_cast<size_t>(events) * 300 + out.size());
  int64_t ts = 1669783687389292;
  for (int64_t i = 0; i < events; ++i) {
    if (i > 0) out += ",\n";
    const int64_t id = 73689 + i / 6;
    switch (i % 6) {
      case 0:
        fmt::format_to(std::back_inserter(out),
                       "  {{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::{}\", "
                       "\"pid\": 783658, \"tid\": 785244,\n    \"ts\": {}, \"dur\": {},\n"
                       "    \"args\": {{\n      \"External id\": {},\"Ev Idx\": {}\n    }}\n  }}",
                       (i % 4 == 0) ? "addmm" : "as_strided", ts, 3 + i % 50, id, i);
        break;
      case 1:
        fmt::format_to(std::back_inserter(out),
                       "  {{\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                       "\"cudaLaunchKernel\", \"pid\": 783658, \"tid\": 783658,\n    \"ts\": {}, "
                       "\"dur\": 32,\n    \"args\": {{\n      \"External id\": {},\"cbid\": 211, "
                       "\"correlation\": {}\n    }}\n  }}",
                       ts, id, id);
        break;
      case 2:
        fmt::format_to(std::back_inserter(out),
                       "  {{\n    \"ph\": \"s\", \"id\": {}, \"pid\": 783658, \"tid\": 783658,\n"
                       "    \"ts\": {},\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }}",
                       id, ts);
        break;
      case 3:
        fmt::format_to(
            std::back_inserter(out),
            "  {{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void "
            "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
            "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
            "at::detail::Array<char*, 1>)\", \"pid\": 1, \"tid\": 7,\n    \"ts\": {}, \"dur\": "
            "{},\n    \"args\": {{\n      \"External id\": {},\n      \"queued\": 0, \"device\": "
            "1, \"context\": 1,\n      \"stream\": 7, \"correlation\": {},\n      \"registers "
            "per thread\": 16,\n      \"shared memory\": 0,\n      \"blocks per SM\": 0.3,\n      "
            "\"warps per SM\": 1.2,\n      \"grid\": [24, 1, 1],\n      \"block\": [128, 1, 1],\n "
            "     \"est. achieved occupancy %\": 2\n    }}\n  }}",
            ts + 30, 3 + i % 700, id, id);
        break;
      case 4:
        fmt::format_to(std::back_inserter(out),
                       "  {{\n    \"ph\": \"f\", \"id\": {}, \"pid\": 1, \"tid\": 7,\n    \"ts\": "
                       "{},\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }}",
                       id, ts + 30);
        break;
      default:
        fmt::format_to(std::back_inserter(out),
                       "  {{\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", "
                       "\"name\": \"[memory]\",\n    \"pid\": 783658, \"tid\": 785244,\n    "
                       "\"ts\": {},\n    \"args\": {{\n      \"Ev Idx\": {},\n      \"Device "
                       "Type\": 1,\n      \"Device Id\": 1,\n      \"Addr\": 139926520725504,\n "
                       "     \"Bytes\": 5242880,\n      \"Total Allocated\": {},\n      \"Total "
                       "Reserved\": 12782141440\n    }}\n  }}",
                       ts, i, 5435638784 + i);
        break;
    }
    ts += 7;
  }
  out += "\n  ]\n}\n";
  return out;
}

// Counts events and reads a field of each, so that nothing is skipped.
class CountingSink : public trace::SerialEventSink {
 public:
  void OnEvent(const trace::RawEvent& event, size_t /*offset*/) override {
    ++events;
    bytes += event.name.size() + event.ts.size();
  }
  void Reset() override { events = bytes = 0; }
  size_t events = 0;
  size_t bytes = 0;
};

void BM_TraceScan(benchmark::State& state) {
  const std::string text = MakeKinetoTrace(state.range(0));
  trace::ScanOptions options;
  options.threads = 1;
  options.plain_event_reader = state.range(1) != 0;
  for (auto _ : state) {
    CountingSink sink;
    trace::ScanReport report;
    trainscope::Status status = trace::ScanJsonText(text, "bench.json", &sink, &report, options);
    if (!status.ok() || report.damaged || sink.events != static_cast<size_t>(state.range(0))) {
      state.SkipWithError("the trace did not scan whole");
    }
    benchmark::DoNotOptimize(sink.bytes);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_TraceScan)
    ->ArgNames({"events", "plain"})
    ->Args({20000, 1})
    ->Args({600000, 0})
    ->Args({600000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
