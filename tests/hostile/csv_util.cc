#include "hostile/csv_util.h"

#include <fmt/format.h>

#include "hostile/hostile_util.h"
#include "test_paths.h"

namespace trainscope::testing {

std::string DeviceEvent(int index, const std::string& name) {
  // Quoted: names may hold commas, quotes, line breaks and raw bytes.
  std::string quoted = "\"";
  for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  quoted += "\"";
  // The name is the op type too, so it shows in every table of the report.
  return fmt::format("1,{0},{0},AI_CORE,{1}.000\t,12.5,0,8\n", quoted,
                     int64_t{1764246877000000} + int64_t{30} * index);
}

std::string KernelRows(int first, int rows) {
  // Unquoted, as torch_npu writes plain names: a stray quote before them
  // runs to the end of the file.
  std::string out;
  for (int i = first; i < first + rows; ++i) {
    out += fmt::format("1,kernel_{},MatMulV3,AI_CORE,{}.000\t,12.5,0,8\n", i,
                       int64_t{1764246877000000} + int64_t{30} * i);
  }
  return out;
}

std::string WriteAscendJob(const std::string& tag, const std::string& kernel_details,
                           const std::map<std::string, std::string>& other_outputs) {
  const std::string job = MakeTempDir(tag);
  const std::string rank = job + "/rank_0_ascend_pt";
  WriteBytes(rank + "/profiler_info_0.json", "{\"rank_id\": 0}");
  WriteBytes(rank + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv", kernel_details);
  for (const auto& [name, bytes] : other_outputs) {
    WriteBytes(rank + "/ASCEND_PROFILER_OUTPUT/" + name, bytes);
  }
  return job;
}

namespace {

// Kernel names no profiler should write, each several times so they make
// it into the top operators, motifs and the JSON kernel lists.
const char* const kEvilNames[] = {
    "bad\xff\xfe",         // bytes that are never UTF-8
    "\x1b[31mred\x1b[0m",  // an ANSI colour sequence
    "bell\x07",            // BEL
    "cesu\xed\xa0\x80",    // a lone surrogate encoded in UTF-8 (CESU-8)
    "over\xc0\xaf",        // an overlong '/'
    "cut\xe4\xb8",         // a truncated 3-byte sequence
    "c1\xc2\x9b"
    "2J",                                       // C1 CSI, then "2J" (clear screen)
    "cr\rback\b del\x7f",                       // CR, backspace, DEL
    "\xe5\xbd\x92\xe4\xb8\x80\xe5\x8c\x96_ok",  // valid UTF-8 (归一化) stays as it is
    "bidi\xe2\x80\xae"
    "txt",  // a right-to-left override
};

}  // namespace

std::string EvilKernelDetails() {
  std::string data = kKernelDetailsHeader;
  int i = 0;
  for (int round = 0; round < 4; ++round) {
    for (const char* name : kEvilNames) data += DeviceEvent(i++, name);
  }
  // A ledger sample that quotes hostile bytes: an unparsable start time.
  data += "1,k,MatMulV3,AI_CORE,\x1b]0;pwned\x07,12.5,0,8\n";
  return data;
}

}  // namespace trainscope::testing
