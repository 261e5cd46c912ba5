// Fixtures for the loading tests (tests/hostile/load_*_test.cc): small
// synth jobs, hand-written Kineto traces, gzip.
#pragma once

#include <string>

#include "hostile/hostile_util.h"

namespace trainscope::testing {

// A fresh temp dir holding a synth job at <dir>/job (2 ranks unless told).
// Returns <dir>; "" when synth failed.
std::string MakeSynthJob(const std::string& tag, int ranks = 2);

// A Kineto trace: |metadata_bytes| of "distributedInfo"/"deviceProperties"
// padding before "traceEvents", one ProfilerStep, one CPU op and, when
// |with_kernel|, one GPU kernel.
std::string KinetoTraceJson(bool with_kernel, size_t metadata_bytes = 0);

// |text| as one gzip member.
// |text| deflated whole: zlib's window_bits pick the wrapping (15 + 16
// gzip, -15 a raw stream as in a zip member), |level| 0-9.
std::string DeflateBytes(const std::string& text, int window_bits, int level);
std::string GzipBytes(const std::string& text);

// Whether |text| contains |part|, for EXPECT_TRUE with a readable failure.
inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace trainscope::testing
