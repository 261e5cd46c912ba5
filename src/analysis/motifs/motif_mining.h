// Repeat mining on an integer token sequence: the engine behind motifs.
//
// Finds chains of tokens that repeat, keeps the maximal ones (a chain that
// always extends by the same token on the left or right is not reported;
// its extension is), and picks non-overlapping instances greedily by
// coverage (instances x weight of one instance), so that the chain that
// explains most of the stream comes first. Equal windows are grouped by
// refining the groups of length L into those of length L+1 (each group's
// windows ordered by their next token: a suffix sort capped at max_length):
// O(n x max_length) where windows mostly extend one way, as in model code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainscope::analysis {

struct MiningOptions {
  int min_length = 3;   // tokens
  int max_length = 40;  // tokens; repeats longer than this are cut
  int min_occurrences = 2;
  size_t max_motifs = 20;
};

struct RepeatSet {
  int32_t length = 0;           // tokens per instance
  std::vector<int32_t> starts;  // non-overlapping instance starts, ascending
  double coverage = 0;          // starts.size() x weight of one instance
};

// |tokens|: negative values are separators that never match. |weights|:
// weight of each position (e.g. kernels it stands for); empty = all 1.
// Chains made of a single repeated token are skipped (a run, not a motif).
std::vector<RepeatSet> MineRepeats(const std::vector<int32_t>& tokens,
                                   const std::vector<double>& weights,
                                   const MiningOptions& options);

}  // namespace trainscope::analysis
