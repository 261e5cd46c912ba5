#include "analysis/motif_mining.h"

#include <algorithm>
#include <queue>

namespace trainscope::analysis {
namespace {

// Polynomial hashing modulo the Mersenne prime 2^61-1: collisions between
// different windows are ~n^2 / 2^61, negligible for any profile.
constexpr uint64_t kMod = (uint64_t{1} << 61) - 1;
constexpr uint64_t kBase = 1'000'003;

uint64_t MulMod(uint64_t a, uint64_t b) {
  const __uint128_t product = static_cast<__uint128_t>(a) * b;
  uint64_t r = static_cast<uint64_t>(product & kMod) + static_cast<uint64_t>(product >> 61);
  if (r >= kMod) r -= kMod;
  return r;
}

struct Candidate {
  int32_t length = 0;
  std::vector<int32_t> positions;  // all occurrences, ascending (may overlap)
  double score = 0;
};

// Greedy non-overlapping instances among |positions| (ascending) that touch
// no covered token.
std::vector<int32_t> Instances(const std::vector<int32_t>& positions, int32_t length,
                               const std::vector<uint8_t>& covered) {
  std::vector<int32_t> out;
  int32_t next_free = INT32_MIN;
  for (int32_t p : positions) {
    if (p < next_free) continue;
    bool clear = true;
    for (int32_t k = 0; k < length; ++k) {
      if (covered[p + k]) {
        clear = false;
        break;
      }
    }
    if (!clear) continue;
    out.push_back(p);
    next_free = p + length;
  }
  return out;
}

}  // namespace

std::vector<RepeatSet> MineRepeats(const std::vector<int32_t>& tokens, const std::vector<double>& weights,
                                   const MiningOptions& options) {
  const int32_t n = static_cast<int32_t>(tokens.size());
  std::vector<RepeatSet> result;
  if (n < options.min_length * 2 || options.max_length < options.min_length) return result;
  auto weight = [&](int32_t p) { return weights.empty() ? 1.0 : weights[p]; };
  std::vector<double> prefix_weight(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) prefix_weight[i + 1] = prefix_weight[i] + weight(i);
  const std::vector<uint8_t> no_cover(n, 0);

  // alive: positions whose window of the current length is valid and
  // repeated; hash[p]: hash of that window.
  std::vector<int32_t> alive;
  std::vector<uint64_t> hash(n, 0);
  for (int32_t p = 0; p < n; ++p) {
    if (tokens[p] >= 0) alive.push_back(p);
  }
  std::vector<Candidate> candidates;
  std::vector<std::pair<uint64_t, int32_t>> keyed;
  for (int32_t length = 1; length <= options.max_length && alive.size() >= 2; ++length) {
    keyed.clear();
    for (int32_t p : alive) {
      const int32_t last = p + length - 1;
      if (last >= n || tokens[last] < 0) continue;
      hash[p] = (MulMod(hash[p], kBase) + static_cast<uint64_t>(tokens[last]) + 1) % kMod;
      keyed.emplace_back(hash[p], p);
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<int32_t> next_alive;
    for (size_t begin = 0; begin < keyed.size();) {
      size_t end = begin + 1;
      while (end < keyed.size() && keyed[end].first == keyed[begin].first) ++end;
      if (end - begin >= 2) {
        // Maximality: the group is reported only where some occurrence
        // cannot extend by the same token as the others (or at the cap).
        bool right_same = true;
        bool left_same = true;
        const int32_t p0 = keyed[begin].second;
        const int32_t right0 = p0 + length < n ? tokens[p0 + length] : -1;
        const int32_t left0 = p0 > 0 ? tokens[p0 - 1] : -1;
        for (size_t k = begin; k < end; ++k) {
          const int32_t p = keyed[k].second;
          next_alive.push_back(p);
          const int32_t right = p + length < n ? tokens[p + length] : -1;
          const int32_t left = p > 0 ? tokens[p - 1] : -1;
          if (right < 0 || right != right0) right_same = false;
          if (left < 0 || left != left0) left_same = false;
        }
        const bool at_cap = length == options.max_length;
        if (length >= options.min_length && (at_cap || !right_same) && (at_cap || !left_same)) {
          Candidate c;
          c.length = length;
          for (size_t k = begin; k < end; ++k) c.positions.push_back(keyed[k].second);
          // A run of one token (Cast Cast Cast) is not a chain.
          bool distinct = false;
          for (int32_t k = 1; k < length && !distinct; ++k) distinct = tokens[p0 + k] != tokens[p0];
          if (distinct) {
            const auto inst = Instances(c.positions, length, no_cover);
            if (static_cast<int>(inst.size()) >= options.min_occurrences) {
              c.score = static_cast<double>(inst.size()) * (prefix_weight[p0 + length] - prefix_weight[p0]);
              candidates.push_back(std::move(c));
            }
          }
        }
      }
      begin = end;
    }
    std::sort(next_alive.begin(), next_alive.end());
    alive.swap(next_alive);
  }

  // Greedy by coverage with lazy re-evaluation: a candidate's score only
  // drops as tokens get covered, so a popped candidate whose fresh score
  // still beats the next stored score is the true maximum.
  auto less = [&](size_t a, size_t b) {
    if (candidates[a].score != candidates[b].score) return candidates[a].score < candidates[b].score;
    if (candidates[a].length != candidates[b].length) return candidates[a].length > candidates[b].length;
    return candidates[a].positions.front() > candidates[b].positions.front();
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(less)> heap(less);
  for (size_t i = 0; i < candidates.size(); ++i) heap.push(i);
  std::vector<uint8_t> covered(n, 0);
  while (!heap.empty() && result.size() < options.max_motifs) {
    const size_t top = heap.top();
    heap.pop();
    Candidate& c = candidates[top];
    auto inst = Instances(c.positions, c.length, covered);
    if (static_cast<int>(inst.size()) < options.min_occurrences) continue;
    const double score =
        static_cast<double>(inst.size()) * (prefix_weight[inst[0] + c.length] - prefix_weight[inst[0]]);
    if (score < c.score && !heap.empty() && score < candidates[heap.top()].score) {
      c.score = score;
      heap.push(top);
      continue;
    }
    for (int32_t p : inst) std::fill(covered.begin() + p, covered.begin() + p + c.length, 1);
    RepeatSet set;
    set.length = c.length;
    set.coverage = score;
    set.starts = std::move(inst);
    result.push_back(std::move(set));
  }
  return result;
}

}  // namespace trainscope::analysis
