// Repeat mining on an integer token sequence: the engine behind motifs.
//
// Finds chains of tokens that repeat, keeps the maximal ones (a chain that
// always extends by the same token on the left or right is not reported;
// its extension is), and picks non-overlapping instances greedily by
// coverage (instances x weight of one instance), so that the chain that
// explains most of the stream comes first. Equal windows are grouped as the
// nodes of a suffix tree cut at max_length, built top-down: a group is
// extended by comparing token runs for as long as its windows agree, and
// split by their next token where they do not, so repetitive model code
// (every window of a layer repeats) costs one sequential comparison per
// window and group, not one pass over every window per length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/growable_bytes.h"

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

// The groups of equal windows the search may report: each group is
// |length| tokens at each of its positions (ascending; occurrences may
// overlap). One byte list holds every group's positions after its first,
// each as its distance from the one before (LEB128: one byte below 128, as
// the gaps between a group's windows mostly are): a step of a million
// kernels whose chains split at every length yields ~30 positions a kernel,
// 120 MB as int32 for each step being mined, a quarter of that as gaps.
struct RepeatCandidates {
  struct Group {
    int32_t length = 0;
    int32_t first = 0;  // the first position
    size_t begin = 0;   // the gaps to the other positions: gaps[begin, end)
    size_t end = 0;
    int32_t instances = 0;  // greedy non-overlapping occurrences among the positions
  };
  std::vector<Group> groups;
  GrowableBytes gaps;  // grown in place: no second copy at each doubling

  std::vector<int32_t> Positions(const Group& group) const;
};

// The groups MineRepeats chooses from, in no particular order: windows of
// min_length..max_length tokens (none negative) that occur at >= 2 places
// with >= min_occurrences non-overlapping, are not a run of one token, and
// are maximal (some occurrence extends differently on each side), back to
// back (a gap between two occurrences equals the length: the period) or at
// max_length. Exposed for the tests, which check it against this definition
// one length at a time.
RepeatCandidates FindRepeatCandidates(const std::vector<int32_t>& tokens,
                                      const MiningOptions& options);

// |tokens|: negative values are separators that never match. |weights|:
// weight of each position (e.g. kernels it stands for); empty = all 1. Taken
// by value: a caller done with them moves them in (they become the prefix sums).
// Chains made of a single repeated token are skipped (a run, not a motif).
std::vector<RepeatSet> MineRepeats(const std::vector<int32_t>& tokens, std::vector<double> weights,
                                   const MiningOptions& options);

}  // namespace trainscope::analysis
