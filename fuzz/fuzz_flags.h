// Default libFuzzer flags of every fuzzer, added from
// LLVMFuzzerInitialize (libFuzzer parses its flags after calling it).
//
// -entropic=0: libFuzzer 14's entropic schedule updates a frequency per
// feature on every run; with the ~50k features of the readers that
// was 95% of the time (perf: InputCorpus::UpdateFeatureFrequency), 4
// executions/s instead of 120. A flag given on the command line wins.
#pragma once

#include <cstring>
#include <vector>

namespace trainscope::fuzz {

inline void AddDefaultFlags(int* argc, char*** argv) {
  static std::vector<char*> args;
  static char entropic[] = "-entropic=0";
  args.assign(*argv, *argv + *argc);
  for (char* arg : args) {
    if (std::strncmp(arg, "-entropic=", 10) == 0) return;
  }
  args.insert(args.begin() + 1, entropic);
  args.push_back(nullptr);
  *argc = static_cast<int>(args.size()) - 1;
  *argv = args.data();
}

}  // namespace trainscope::fuzz
