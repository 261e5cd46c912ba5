// Motif mining: periodic kernel chains of a compute stream (methodology §2
// step 4). A motif is either a library fingerprint (a known decomposed
// operator, counted exactly by fingerprint_match.h) or a mined repeat
// (motif_mining.h), often one layer, whose period is then the layer time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainscope::analysis {

struct Motif {
  std::vector<std::string> kernels;  // op types of one instance, in order
  int64_t occurrences = 0;           // non-overlapping instances in the step
  double period_ns = 0;              // median start-to-start distance of consecutive instances
  int64_t total_ns = 0;              // summed kernel time of all instances (mean: / occurrences)
  double share_of_step = 0;          // total_ns / step span
  std::optional<std::string> fingerprint;   // fingerprint id, or nullopt
  std::optional<std::string> variant;       // fingerprint variant (fwd, bwd...), with fingerprint
  std::vector<int64_t> instance_starts_ns;  // relative to the step start
  int32_t stream = -1;                      // device stream the chain runs on
  // Where the chain comes from: the framework op / module and the Python
  // source line when the profile has host data (trace with launcher links),
  // else empty.
  std::string framework_op;
  std::string source;
  // The same in words, or the position in the layer when there is no host
  // data ("2 per repeat of the 53-kernel motif, period 1.2 ms: one layer").
  std::string attribution;
  // How many of |kernels| the export left untyped (Ascend Level0): their
  // types, and a fingerprint matched on them, rest on a guess from the
  // kernel name, which the reports say.
  int64_t derived_types = 0;
};

// The name of a motif as the HTML timeline and the exports show it:
// "fingerprint/variant", else "motif: A B C ..." (the first kernels).
inline std::string MotifLabel(const Motif& motif) {
  if (motif.fingerprint) {
    return motif.variant ? *motif.fingerprint + "/" + *motif.variant : *motif.fingerprint;
  }
  std::string label = "motif:";
  const size_t shown = std::min<size_t>(motif.kernels.size(), 4);
  for (size_t k = 0; k < shown; ++k) label += " " + motif.kernels[k];
  if (motif.kernels.size() > shown) label += " ...";
  return label;
}

}  // namespace trainscope::analysis
