// Motif mining: periodic kernel chains of a compute stream (methodology §2
// step 4). (Interface stub; implemented by the Fingerprints work.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainscope::analysis {

struct Motif {
  std::vector<std::string> kernels;  // op types of one instance, in order
  int64_t occurrences = 0;           // non-overlapping instances in the step
  double period_us = 0;              // median start-to-start distance of consecutive instances
  double total_us = 0;               // summed kernel time of all instances
  double mean_us = 0;                // total_us / occurrences
  double share_of_step = 0;          // total_us / step span
  std::optional<std::string> fingerprint;  // fingerprint id, or nullopt
  std::vector<double> instance_starts_us;  // relative to the step start
};

}  // namespace trainscope::analysis
