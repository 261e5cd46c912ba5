// libFuzzer harness for the data-only pickle reader (formats/pickle) and the
// flight-recorder dump read from a pickle (formats/log), with the analysis
// on what it read.
//
// Checks more than "does not crash": a document that reads has its STOP
// inside the input, no more values than the limit, every item of every
// container reachable (a bounded walk of the DAG), a small dict's Get finds
// the value of its last pair of that key; a dump that reads is analysed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "analysis/health/flight_recorder.h"
#include "formats/log/flight_recorder_reader.h"
#include "formats/pickle/pickle_reader.h"
#include "fuzz_flags.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

void Walk(const trainscope::formats::PickleValue& root) {
  using trainscope::formats::PickleKind;
  std::vector<trainscope::formats::PickleValue> todo{root};
  size_t budget = 100000;  // values visited: the DAG may share a value many times
  while (!todo.empty() && budget-- > 0) {
    const auto v = todo.back();
    todo.pop_back();
    switch (v.kind()) {
      case PickleKind::kDict:
        for (size_t i = 0; i < v.size(); ++i) {
          todo.push_back(v.value(i));
          if (auto k = v.key(i).AsString(); k && v.size() <= 64) {
            auto got = v.Get(*k);
            Check(got.has_value());
            // The last pair with this key is what Get returns.
            size_t last = i;
            for (size_t j = i + 1; j < v.size(); ++j) {
              if (v.key(j).AsString() == k) last = j;
            }
            Check(got->kind() == v.value(last).kind());
          }
        }
        break;
      case PickleKind::kList:
      case PickleKind::kTuple:
      case PickleKind::kSet:
        for (size_t i = 0; i < v.size(); ++i) todo.push_back(v.at(i));
        break;
      case PickleKind::kBigInt:
        Check(!v.BigIntText().empty() && !v.AsInt());
        break;
      case PickleKind::kString:
        Check(v.AsString().has_value());
        break;
      default:
        Check(v.size() == 0);
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  trainscope::formats::PickleLimits limits;
  limits.max_values = 1 << 16;
  limits.max_depth = 64;
  auto doc = trainscope::formats::ReadPickle(bytes, "fuzz.pkl", limits);
  if (doc.ok()) {
    Check((*doc)->stop_offset() < size);
    Check((*doc)->value_count() <= limits.max_values);
    Walk((*doc)->root());
  }
  auto dump = trainscope::formats::ParseFlightRecorderPickle(bytes, "_dump_7");
  if (dump.ok()) {
    Check(dump->rank == 7 && dump->from_pickle);
    const auto fr = trainscope::analysis::AnalyzeFlightRecorder({*dump});
    Check(fr.dumps == 1);
  }
  return 0;
}
