// Motif mining: repeats on token streams, and motifs of whole steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/motifs/fingerprint_attribution.h"
#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/mining_memo.h"
#include "analysis/motifs/motif_mining.h"
#include "analysis/motifs/motif_step.h"
#include "core/parallel.h"
#include "formats/load_profiles.h"
#include "random_draws.h"
#include "synth/synth.h"
#include "synth_job.h"
#include "test_paths.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TS_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define TS_UNDER_SANITIZER 1
#endif
#endif
#ifndef NDEBUG
#ifndef TS_UNDER_SANITIZER
#define TS_UNDER_SANITIZER 1  // unoptimised builds: the bound is for Release
#endif
#endif

namespace trainscope::analysis {
namespace {

TEST(MotifMining, PeriodicChainWithNoiseBetweenInstances) {
  std::vector<int32_t> tokens;
  for (int i = 0; i < 10; ++i) {
    for (int t : {1, 2, 3, 4, 5}) tokens.push_back(t);
    tokens.push_back(100 + i);  // a different kernel between instances
  }
  const auto repeats = MineRepeats(tokens, {}, MiningOptions{});
  ASSERT_FALSE(repeats.empty());
  EXPECT_EQ(repeats[0].length, 5);
  EXPECT_EQ(repeats[0].starts.size(), 10u);
  EXPECT_EQ(repeats[0].starts[1], 6);
}

TEST(MotifMining, BackToBackRepeatsAreCountedOncePerPeriod) {
  std::vector<int32_t> tokens = {9};
  for (int i = 0; i < 20; ++i) {
    for (int t : {1, 2, 3, 4}) tokens.push_back(t);
  }
  tokens.push_back(8);
  const auto repeats = MineRepeats(tokens, {}, MiningOptions{});
  ASSERT_FALSE(repeats.empty());
  EXPECT_EQ(repeats[0].length, 4);
  EXPECT_EQ(repeats[0].starts.size(), 20u);
}

TEST(MotifMining, RunsAndSeparatorsAreNotMotifs) {
  std::vector<int32_t> run(50, 7);
  EXPECT_TRUE(MineRepeats(run, {}, MiningOptions{}).empty());
  std::vector<int32_t> separated;
  for (int i = 0; i < 30; ++i) separated.insert(separated.end(), {1, -1, 2, -1, 3, -1});
  EXPECT_TRUE(MineRepeats(separated, {}, MiningOptions{}).empty());
}

TEST(MotifMining, WeightsPreferTheChainThatCoversMoreKernels) {
  // Chain A (3 tokens, x6) and chain B (3 tokens, x4) whose first token
  // stands for 10 kernels: B covers more.
  std::vector<int32_t> tokens;
  std::vector<double> weights;
  for (int i = 0; i < 6; ++i) {
    for (int t : {1, 2, 3, 50 + i}) {
      tokens.push_back(t);
      weights.push_back(1);
    }
  }
  for (int i = 0; i < 4; ++i) {
    for (int t : {4, 5, 6, 70 + i}) {
      tokens.push_back(t);
      weights.push_back(t == 4 ? 10 : 1);
    }
  }
  const auto repeats = MineRepeats(tokens, weights, MiningOptions{});
  ASSERT_GE(repeats.size(), 2u);
  EXPECT_EQ(tokens[repeats[0].starts[0]], 4);
  EXPECT_EQ(repeats[0].starts.size(), 4u);
  EXPECT_EQ(repeats[1].starts.size(), 6u);
}

TEST(MotifMining, WindowsThatBranchSplitIntoOneGroupPerNextToken) {
  // [1 2 3] is followed by 4 and 5 in turn: at length 4 its group splits in
  // two, interleaved in position order. The heavy 4 and 5 make both
  // five-token chains outweigh [1 2 3] itself.
  std::vector<int32_t> tokens;
  std::vector<double> weights;
  for (int i = 0; i < 12; ++i) {
    for (int t : {1, 2, 3, i % 2 == 0 ? 4 : 5, 6, 100 + i}) {
      tokens.push_back(t);
      weights.push_back(t == 4 || t == 5 ? 10 : 1);
    }
  }
  const auto repeats = MineRepeats(tokens, weights, MiningOptions{});
  ASSERT_EQ(repeats.size(), 2u);
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(repeats[r].length, 5) << r;
    ASSERT_EQ(repeats[r].starts.size(), 6u) << r;
    for (size_t k = 0; k < 6; ++k) {
      EXPECT_EQ(repeats[r].starts[k], static_cast<int32_t>(6 * r + 12 * k)) << r << " " << k;
    }
  }
  EXPECT_EQ(tokens[repeats[0].starts[0] + 3], 4);
  EXPECT_EQ(tokens[repeats[1].starts[0] + 3], 5);
}

// Every non-overlapping occurrence of tokens [p, p + length), taken
// greedily from the left, found by comparing every window (no grouping).
std::vector<int32_t> OccurrencesByBruteForce(const std::vector<int32_t>& tokens, int32_t p,
                                             int32_t length) {
  std::vector<int32_t> found;
  const auto n = static_cast<int32_t>(tokens.size());
  for (int32_t q = 0; q + length <= n; ++q) {
    if (!found.empty() && q < found.back() + length) continue;
    if (std::equal(tokens.begin() + p, tokens.begin() + p + length, tokens.begin() + q)) {
      found.push_back(q);
    }
  }
  return found;
}

// A stream of 5 + next(max_pieces) pieces: a planted chain (|pick| of
// next(picks) below the chain count), a separator (pick 5) or a single
// token of 12 (the rest). |next(bound)| draws below bound.
template <typename Next>
std::vector<int32_t> PlantedChainStream(const std::vector<std::vector<int32_t>>& chains,
                                        uint32_t max_pieces, uint32_t picks, Next& next) {
  std::vector<int32_t> tokens;
  const int32_t pieces = 5 + next(max_pieces);
  for (int32_t k = 0; k < pieces; ++k) {
    const int32_t pick = next(picks);
    if (pick < static_cast<int32_t>(chains.size())) {
      const auto& chain = chains[static_cast<size_t>(pick)];
      tokens.insert(tokens.end(), chain.begin(), chain.end());
    } else if (pick == 5) {
      tokens.push_back(-1);
    } else {
      tokens.push_back(next(12));
    }
  }
  return tokens;
}

TEST(MotifMining, RandomBranchingStreamsAgreeWithBruteForce) {
  // Streams of planted chains that share prefixes and suffixes (so groups
  // split at many lengths, in every order), with noise and separators.
  testing::RandomDraws next(12345);
  const std::vector<std::vector<int32_t>> chains = {
      {1, 2, 3, 4}, {1, 2, 3, 5}, {1, 2, 6, 4}, {7, 2, 3, 4, 8}, {9, 1, 2}};
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<int32_t> tokens = PlantedChainStream(chains, 60, 8, next);
    const auto repeats = MineRepeats(tokens, {}, MiningOptions{});
    std::vector<bool> covered(tokens.size(), false);
    for (size_t r = 0; r < repeats.size(); ++r) {
      const RepeatSet& set = repeats[r];
      ASSERT_GE(set.starts.size(), 2u) << trial;
      const int32_t first = set.starts.front();
      for (size_t k = 0; k < set.starts.size(); ++k) {
        const int32_t p = set.starts[k];
        if (k > 0) {
          EXPECT_GE(p, set.starts[k - 1] + set.length) << trial << " overlap";
        }
        // Every instance is the same window as the first.
        EXPECT_TRUE(std::equal(tokens.begin() + first, tokens.begin() + first + set.length,
                               tokens.begin() + p))
            << trial << " set " << r << " instance " << k;
        for (int32_t t = p; t < p + set.length; ++t) {
          EXPECT_FALSE(covered[static_cast<size_t>(t)]) << trial << " covered twice";
          covered[static_cast<size_t>(t)] = true;
        }
      }
      // The first set is chosen before anything is covered: it has every
      // greedy occurrence of its window.
      if (r == 0) {
        EXPECT_EQ(set.starts, OccurrencesByBruteForce(tokens, first, set.length)) << trial;
      }
    }
  }
}

// FindRepeatCandidates' definition, one length at a time: every window of
// |length| tokens (none negative) grouped by content, and a group kept where
// the header says.
using Candidates = std::vector<std::pair<int32_t, std::vector<int32_t>>>;  // (length, positions)

Candidates CandidatesByDefinition(const std::vector<int32_t>& tokens,
                                  const MiningOptions& options) {
  const auto n = static_cast<int32_t>(tokens.size());
  auto token_at = [&](int32_t p) { return p >= 0 && p < n ? tokens[p] : -1; };
  Candidates out;
  for (int32_t length = 1; length <= options.max_length; ++length) {
    std::map<std::vector<int32_t>, std::vector<int32_t>> groups;
    for (int32_t p = 0; p + length <= n; ++p) {
      const std::vector<int32_t> window(tokens.begin() + p, tokens.begin() + p + length);
      if (std::any_of(window.begin(), window.end(), [](int32_t t) { return t < 0; })) continue;
      groups[window].push_back(p);
    }
    for (const auto& [window, positions] : groups) {
      if (positions.size() < 2 || length < options.min_length) continue;
      bool right_same = true;
      bool left_same = true;
      bool back_to_back = false;
      for (size_t k = 0; k < positions.size(); ++k) {
        const int32_t right = token_at(positions[k] + length);
        const int32_t left = token_at(positions[k] - 1);
        right_same = right_same && right >= 0 && right == token_at(positions[0] + length);
        left_same = left_same && left >= 0 && left == token_at(positions[0] - 1);
        back_to_back = back_to_back || (k > 0 && positions[k] - positions[k - 1] == length);
      }
      const bool one_token =
          std::all_of(window.begin(), window.end(), [&](int32_t t) { return t == window.front(); });
      if (one_token) continue;
      if (!(length == options.max_length || back_to_back || (!right_same && !left_same))) continue;
      int32_t instances = 0;
      int32_t next_free = INT32_MIN;
      for (int32_t p : positions) {
        if (p < next_free) continue;
        ++instances;
        next_free = p + length;
      }
      if (instances < options.min_occurrences) continue;
      out.emplace_back(length, positions);
    }
  }
  return out;
}

Candidates Sorted(Candidates candidates) {
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

Candidates Sorted(const RepeatCandidates& found) {
  Candidates out;
  for (const RepeatCandidates::Group& g : found.groups) {
    out.emplace_back(g.length, found.Positions(g));
  }
  return Sorted(std::move(out));
}

TEST(MotifMining, CandidatesAreTheDefinitionOneLengthAtATime) {
  // Streams of a few planted chains (so windows repeat at many lengths and
  // split at many places), single tokens, runs of one token and
  // separators, under varied options (caps down to 0, minimum lengths and
  // occurrences).
  testing::RandomDraws next(987654321);
  size_t nonempty = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int32_t vocab = 1 + next(8);
    std::vector<std::vector<int32_t>> chains(static_cast<size_t>(1 + next(3)));
    for (auto& chain : chains) {
      chain.resize(static_cast<size_t>(1 + next(30)));
      for (int32_t& t : chain) t = next(static_cast<uint32_t>(vocab));
    }
    std::vector<int32_t> tokens;
    const int32_t size = next(250);
    while (static_cast<int32_t>(tokens.size()) < size) {
      const int32_t pick = next(12);
      if (pick < 7) {
        const auto& chain = chains[static_cast<size_t>(next(static_cast<uint32_t>(chains.size())))];
        tokens.insert(tokens.end(), chain.begin(), chain.end());
      } else if (pick < 10) {
        tokens.push_back(next(static_cast<uint32_t>(vocab)));
      } else if (pick == 10) {
        tokens.push_back(-1 - next(2));
      } else {
        tokens.insert(tokens.end(), static_cast<size_t>(1 + next(6)),
                      next(static_cast<uint32_t>(vocab)));
      }
    }
    MiningOptions options;
    options.min_length = 1 + next(4);
    options.max_length = trial % 4 == 0 ? next(8) : 5 + next(40);
    options.min_occurrences = 2 + next(2);
    const auto expected = Sorted(CandidatesByDefinition(tokens, options));
    EXPECT_EQ(Sorted(FindRepeatCandidates(tokens, options)), expected)
        << "trial " << trial << ", " << tokens.size() << " tokens";
    nonempty += expected.empty() ? 0 : 1;
  }
  EXPECT_GT(nonempty, 500u);  // the streams do repeat
}

TEST(MotifMining, GroupsWithMoreNextTokensThanBucketsAreTheDefinition) {
  // Planted chains followed by one of many tokens: a group's windows
  // continue with more next tokens than the search buckets (16), so the
  // split sorts them; the chains share a prefix, and each continues one way
  // more often than any other.
  testing::RandomDraws next(424242);
  size_t overflowing = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<std::vector<int32_t>> chains = {{1, 2, 3}, {1, 2, 4, 5}, {6, 7, 8, 9, 10}};
    const int32_t followers = 17 + next(30);
    std::vector<int32_t> tokens;
    std::map<int32_t, std::set<int32_t>> next_after_chain;
    const int32_t size = 400 + next(400);
    while (static_cast<int32_t>(tokens.size()) < size) {
      const size_t c = static_cast<size_t>(next(3));
      tokens.insert(tokens.end(), chains[c].begin(), chains[c].end());
      const int32_t follower = next(4) != 0 ? 100 + next(static_cast<uint32_t>(followers)) : 99;
      tokens.push_back(follower);
      next_after_chain[static_cast<int32_t>(c)].insert(follower);
      if (next(10) == 0) tokens.push_back(-1);
    }
    for (const auto& [chain, nexts] : next_after_chain) overflowing += nexts.size() > 16 ? 1 : 0;
    MiningOptions options;
    options.min_length = 1 + next(3);
    options.max_length = 3 + next(12);
    options.min_occurrences = 2 + next(2);
    EXPECT_EQ(Sorted(FindRepeatCandidates(tokens, options)),
              Sorted(CandidatesByDefinition(tokens, options)))
        << "trial " << trial << ", " << tokens.size() << " tokens";
  }
  EXPECT_GT(overflowing, 450u);  // most chains did continue more ways than there are buckets
}

// The greedy selection as first written: lazy re-evaluation over one byte
// per covered token, every occurrence of a popped candidate re-read in full
// and its tokens checked one by one. MineRepeats drops occurrences found
// covered and looks up each position's next covered token instead; it must
// pick the same sets, ties included.
std::vector<RepeatSet> SelectedAsFirstWritten(const std::vector<int32_t>& tokens,
                                              const std::vector<double>& weights,
                                              const MiningOptions& options) {
  const auto n = static_cast<int32_t>(tokens.size());
  if (n < options.min_length * 2 || options.max_length < options.min_length) return {};
  const RepeatCandidates candidates = FindRepeatCandidates(tokens, options);
  std::vector<double> prefix(tokens.size() + 1, 0);
  for (size_t p = 0; p < tokens.size(); ++p) prefix[p + 1] = prefix[p] + weights[p];
  auto positions = [&](size_t c) { return candidates.Positions(candidates.groups[c]); };
  std::vector<uint8_t> covered(tokens.size(), 0);
  auto instances = [&](size_t c) {
    std::vector<int32_t> out;
    const int32_t length = candidates.groups[c].length;
    for (const int32_t p : positions(c)) {
      if (!out.empty() && p < out.back() + length) continue;
      bool clear = true;
      for (int32_t k = 0; k < length; ++k)
        clear = clear && covered[static_cast<size_t>(p + k)] == 0;
      if (clear) out.push_back(p);
    }
    return out;
  };
  auto weight_of = [&](int32_t p, int32_t length) { return prefix[p + length] - prefix[p]; };
  std::vector<double> scores;
  for (size_t c = 0; c < candidates.groups.size(); ++c) {
    scores.push_back(static_cast<double>(instances(c).size()) *
                     weight_of(positions(c).front(), candidates.groups[c].length));
  }
  auto less = [&](size_t a, size_t b) {
    if (scores[a] != scores[b]) return scores[a] < scores[b];
    if (candidates.groups[a].length != candidates.groups[b].length) {
      return candidates.groups[a].length > candidates.groups[b].length;
    }
    return positions(a).front() > positions(b).front();
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(less)> heap(less);
  for (size_t c = 0; c < scores.size(); ++c) heap.push(c);
  std::vector<RepeatSet> result;
  while (!heap.empty() && result.size() < options.max_motifs) {
    const size_t top = heap.top();
    heap.pop();
    const int32_t length = candidates.groups[top].length;
    const std::vector<int32_t> found = instances(top);
    if (static_cast<int>(found.size()) < options.min_occurrences) continue;
    const double score = static_cast<double>(found.size()) * weight_of(found[0], length);
    if (score < scores[top] && !heap.empty() && score < scores[heap.top()]) {
      scores[top] = score;
      heap.push(top);
      continue;
    }
    for (const int32_t p : found) {
      std::fill(covered.begin() + p, covered.begin() + p + length, uint8_t{1});
    }
    result.push_back(RepeatSet{length, found, score});
  }
  return result;
}

TEST(MotifMining, SelectionPicksWhatTheSelectionAsFirstWrittenPicks) {
  testing::RandomDraws next(777);
  const std::vector<std::vector<int32_t>> chains = {
      {1, 2, 3, 4}, {1, 2, 3, 5}, {1, 2, 6, 4, 4}, {7, 2, 3, 4, 8, 9, 10}, {9, 1, 2}};
  size_t picked_after_the_first = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int32_t> tokens = PlantedChainStream(chains, 120, 9, next);
    // Unit weights in one trial in three (ties everywhere), else 1-4.
    std::vector<double> weights(tokens.size(), 1.0);
    if (trial % 3 != 0) {
      for (double& w : weights) w = 1 + next(4);
    }
    MiningOptions options;
    options.max_length = 3 + next(20);
    options.max_motifs = 1 + static_cast<size_t>(next(25));
    const auto expected = SelectedAsFirstWritten(tokens, weights, options);
    const auto got = MineRepeats(tokens, weights, options);
    ASSERT_EQ(got.size(), expected.size()) << "trial " << trial;
    for (size_t r = 0; r < got.size(); ++r) {
      EXPECT_EQ(got[r].length, expected[r].length) << "trial " << trial << " set " << r;
      EXPECT_EQ(got[r].starts, expected[r].starts) << "trial " << trial << " set " << r;
      EXPECT_EQ(got[r].coverage, expected[r].coverage) << "trial " << trial << " set " << r;
    }
    picked_after_the_first += got.size() > 1 ? got.size() - 1 : 0;
  }
  EXPECT_GT(picked_after_the_first, 300u);  // the selection goes on after covering the first
}

// A 100k-kernel compute stream: a 60-kernel "layer" with an RMSNorm, a
// SwiGLU and matmuls, where one instance in 7 drops a Cast (a variation).
model::RankProfile BigStream(size_t kernels) {
  const std::vector<std::string> layer = {"Cast",       "Pows",
                                          "ReduceMean", "Adds",
                                          "Rsqrt",      "Mul",
                                          "Mul",        "Cast",
                                          "MatMulV3",   "Slice",
                                          "Slice",      "RotaryMul",
                                          "RotaryMul",  "FlashAttentionScore",
                                          "MatMulV3",   "Add",
                                          "Cast",       "Pows",
                                          "ReduceMean", "Adds",
                                          "Rsqrt",      "Mul",
                                          "Mul",        "Cast",
                                          "MatMulV3",   "MatMulV3",
                                          "Swish",      "Mul",
                                          "MatMulV3",   "Add"};
  model::RankProfile p;
  std::vector<StringId> ids;
  for (const auto& t : layer) ids.push_back(p.strings.Intern(t));
  p.device_events.Reserve(kernels);
  int64_t t = 0;
  for (size_t i = 0, instance = 0; p.device_events.size() < kernels; ++instance) {
    for (size_t k = 0; k < layer.size() && p.device_events.size() < kernels; ++k, ++i) {
      if (instance % 7 == 3 && k == 7) continue;  // the optional Cast
      model::DeviceEvent row;
      row.step = 1;
      row.op_type = ids[k];
      row.name = ids[k];
      row.stream = 2;
      row.start_ns = t;
      row.duration_ns = 5'000 + static_cast<int64_t>((k * 7919) % 50) * 1'000;
      p.device_events.Append(row);
      t += row.duration_ns + 3'000;
    }
  }
  return p;
}

// What MineRepeats found, comparable.
std::vector<std::pair<int32_t, std::vector<int32_t>>> SetsOf(const std::vector<RepeatSet>& sets) {
  std::vector<std::pair<int32_t, std::vector<int32_t>>> out;
  for (const RepeatSet& set : sets) out.emplace_back(set.length, set.starts);
  return out;
}

// A layered stream with noise: |seed| varies the noise.
std::vector<int32_t> NoisyLayers(uint32_t seed, size_t layers) {
  std::vector<int32_t> tokens;
  for (size_t layer = 0; layer < layers; ++layer) {
    for (int32_t t = 0; t < 12; ++t) tokens.push_back(t);
    seed = seed * 1103515245u + 12345u;
    tokens.push_back(20 + static_cast<int32_t>((seed >> 16) % 5));
  }
  return tokens;
}

TEST(MiningMemo, RemembersAStreamTheSecondTimeAndAnswersTheThirdFromMemory) {
  MiningMemo memo;
  const std::vector<int32_t> tokens = NoisyLayers(1, 200);
  const std::vector<double> weights(tokens.size(), 2.0);
  const auto expected = SetsOf(MineRepeats(tokens, weights, MiningOptions{}));
  ASSERT_FALSE(expected.empty());
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(SetsOf(memo.Mine(tokens, weights, MiningOptions{})), expected) << k;
  }
  EXPECT_EQ(memo.runs(), 2u);  // the first and second sightings
  EXPECT_EQ(memo.hits(), 2u);
  // Another stream, other weights or other options are mined, not recalled.
  const std::vector<int32_t> other = NoisyLayers(2, 200);
  std::vector<double> heavier = weights;
  heavier[5] = 7;
  MiningOptions shorter;
  shorter.max_length = 8;
  EXPECT_EQ(SetsOf(memo.Mine(other, weights, MiningOptions{})),
            SetsOf(MineRepeats(other, weights, MiningOptions{})));
  EXPECT_EQ(SetsOf(memo.Mine(tokens, heavier, MiningOptions{})),
            SetsOf(MineRepeats(tokens, heavier, MiningOptions{})));
  EXPECT_EQ(SetsOf(memo.Mine(tokens, weights, shorter)),
            SetsOf(MineRepeats(tokens, weights, shorter)));
  EXPECT_NE(SetsOf(MineRepeats(tokens, weights, shorter)), expected);
  EXPECT_EQ(memo.runs(), 5u);
  EXPECT_EQ(memo.hits(), 2u);
}

TEST(MiningMemo, KeepsNoStreamOverItsBytesAndAgreesAcrossThreads) {
  const std::vector<int32_t> tokens = NoisyLayers(3, 300);
  const auto expected = SetsOf(MineRepeats(tokens, {}, MiningOptions{}));
  MiningMemo none(/*max_key_bytes=*/0);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(SetsOf(none.Mine(tokens, {}, MiningOptions{})), expected);
  EXPECT_EQ(none.runs(), 3u);
  EXPECT_EQ(none.hits(), 0u);
  // Eight threads mining the same few streams: every answer is the stream's.
  MiningMemo shared;
  std::vector<std::vector<int32_t>> streams;
  for (uint32_t s = 0; s < 3; ++s) streams.push_back(NoisyLayers(10 + s, 150));
  std::vector<std::vector<std::pair<int32_t, std::vector<int32_t>>>> answers(48);
  ParallelFor(answers.size(), 8, [&](size_t i) {
    answers[i] = SetsOf(shared.Mine(streams[i % 3], {}, MiningOptions{}));
  });
  for (size_t i = 0; i < answers.size(); ++i) {
    EXPECT_EQ(answers[i], SetsOf(MineRepeats(streams[i % 3], {}, MiningOptions{}))) << i;
  }
  EXPECT_EQ(shared.runs() + shared.hits(), answers.size());
  EXPECT_GT(shared.hits(), 0u);
}

TEST(MotifMining, HundredThousandKernelStreamInWellUnderASecond) {
  const model::RankProfile p = BigStream(100'000);
  const HostAttributor host(p);
  const auto begin = std::chrono::steady_clock::now();
  const StepMotifs motifs = AnalyzeStepMotifs(
      p, 1, 0, static_cast<double>(p.device_events.end_ns(p.device_events.size() - 1)) / 1e3,
      FingerprintLibrary::Builtin(), host);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::printf("motif mining: %zu kernels in %.3f s = %.2f M kernels/s\n", p.device_events.size(),
              seconds, static_cast<double>(p.device_events.size()) / seconds / 1e6);
  RecordProperty("kernels_per_second",
                 std::to_string(static_cast<int64_t>(p.device_events.size() / seconds)));
  ASSERT_FALSE(motifs.motifs.empty());
  // Both RMSNorms of every layer, with and without the optional Cast.
  int64_t norms = 0;
  for (const auto& m : motifs.motifs) {
    if (m.fingerprint == "unfused-rmsnorm") norms += m.occurrences;
  }
  const int64_t layers = static_cast<int64_t>((100'000 + 29) / 30);  // ~1 Cast dropped per 7 layers
  EXPECT_NEAR(static_cast<double>(norms), 2.0 * static_cast<double>(layers),
              0.01 * static_cast<double>(layers));
#ifndef TS_UNDER_SANITIZER
  EXPECT_LT(seconds, 1.0);
#endif
}

TEST(MotifMining, StepSpanSetAfterTheMiningGivesTheSameShares) {
  // The rank's analysis mines a step before its time budget is known and
  // sets the span afterwards (SetStepSpan): the same motifs and shares as
  // mining with the span.
  const model::RankProfile p = BigStream(3'000);
  const HostAttributor host(p);
  const int64_t span = p.device_events.end_ns(p.device_events.size() - 1) + 12'345;
  const StepMotifs with_span =
      AnalyzeStepMotifs(p, 1, 0, span, FingerprintLibrary::Builtin(), host);
  StepMotifs later = AnalyzeStepMotifs(p, 1, 0, 0, FingerprintLibrary::Builtin(), host);
  ASSERT_FALSE(later.motifs.empty());
  EXPECT_EQ(later.motifs.front().share_of_step, 0.0);
  SetStepSpan(span, &later);
  EXPECT_EQ(later.step_ns, with_span.step_ns);
  ASSERT_EQ(later.motifs.size(), with_span.motifs.size());
  for (size_t m = 0; m < later.motifs.size(); ++m) {
    EXPECT_EQ(later.motifs[m].kernels, with_span.motifs[m].kernels) << m;
    EXPECT_EQ(later.motifs[m].total_ns, with_span.motifs[m].total_ns) << m;
    EXPECT_EQ(later.motifs[m].share_of_step, with_span.motifs[m].share_of_step) << m;
    EXPECT_GT(later.motifs[m].share_of_step, 0.0) << m;
  }
}

TEST(MotifSynth, OneLayerIsTheMainMotifAndFingerprintsAreMeasured) {
  synth::SynthOptions options;
  options.layers = 6;
  options.steps = 2;
  options.seed = 3;
  auto profiles = testing::LoadSynthJob(options, "motif_synth");
  ASSERT_TRUE(profiles.ok()) << profiles.status().message();
  auto job = AnalyzeJob(profiles->profiles, FamilyRules::Builtin(), AnalysisOptions{}, 2);
  ASSERT_TRUE(job.ok()) << job.status().message();
  const StepDistribution* step = job->ranks[0].selected();
  ASSERT_NE(step, nullptr);
  ASSERT_FALSE(step->motifs.empty());
  // The mined (non-fingerprint) motifs with the most time are the forward
  // and backward layers: one per layer and micro-batch.
  int layer_motifs = 0;
  // The window the shares are of: the step's time budget, else its span.
  const int64_t step_ns = step->breakdown && step->breakdown->budget.total_ns > 0
                              ? step->breakdown->budget.total_ns
                              : step->kernels.span_ns;
  for (const auto& m : step->motifs) {
    // The period is the median gap between instance starts (even count: the
    // mean of the two middle gaps).
    std::vector<double> gaps;
    for (size_t k = 1; k < m.instance_starts_ns.size(); ++k)
      gaps.push_back(static_cast<double>(m.instance_starts_ns[k] - m.instance_starts_ns[k - 1]));
    std::sort(gaps.begin(), gaps.end());
    if (!gaps.empty()) {
      const size_t mid = gaps.size() / 2;
      const double median = gaps.size() % 2 ? gaps[mid] : (gaps[mid - 1] + gaps[mid]) / 2;
      EXPECT_DOUBLE_EQ(m.period_ns, median);
    }
    if (m.fingerprint) {
      EXPECT_GT(m.period_ns, 0);
      EXPECT_GT(m.share_of_step, 0);
      EXPECT_LT(m.share_of_step, 1);
      EXPECT_EQ(m.instance_starts_ns.size(), static_cast<size_t>(m.occurrences));
      EXPECT_GT(m.total_ns, 0);
      EXPECT_NEAR(m.share_of_step * static_cast<double>(step_ns), static_cast<double>(m.total_ns),
                  1e-9 * static_cast<double>(m.total_ns));
      continue;
    }
    if (m.kernels.size() >= 40 && m.occurrences == options.layers * options.micro_batches)
      ++layer_motifs;
  }
  EXPECT_EQ(layer_motifs, 2);
  // Positions are inside the step.
  for (const auto& m : step->motifs) {
    for (const int64_t s : m.instance_starts_ns) {
      EXPECT_GE(s, 0);
      EXPECT_LE(s, step->kernels.span_ns);
    }
  }
}

}  // namespace
}  // namespace trainscope::analysis
