// libFuzzer harness for DeserializeRankResult (analysis/job/rank_result_io.h):
// bytes gathered from another process are untrusted.
//
// Beyond "does not crash, leak or allocate wildly": a buffer is refused
// with a message, or it is accepted and then it is canonical: serialising
// what was read gives back exactly the input bytes, which read again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/job/rank_result_io.h"
#include "fuzz_flags.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto result = trainscope::analysis::DeserializeRankResult(input);
  if (!result.ok()) {
    if (result.status().message().find("byte ") == std::string::npos) std::abort();
    return 0;
  }
  const std::string again = trainscope::analysis::SerializeRankResult(*result);
  if (again != input) std::abort();
  if (!trainscope::analysis::DeserializeRankResult(again).ok()) std::abort();
  return 0;
}
