#include "analysis/motif_mining.h"

#include <algorithm>
#include <queue>

namespace trainscope::analysis {
namespace {

// Stable counting sort of |items| by key(item) in [0, keys).
template <typename Key>
void CountingSort(std::vector<int32_t>* items, int32_t keys, Key key, std::vector<int32_t>* scratch,
                  std::vector<int32_t>* counts) {
  counts->assign(static_cast<size_t>(keys) + 1, 0);
  for (int32_t item : *items) ++(*counts)[key(item) + 1];
  for (int32_t k = 0; k < keys; ++k) (*counts)[k + 1] += (*counts)[k];
  scratch->resize(items->size());
  for (int32_t item : *items) (*scratch)[(*counts)[key(item)]++] = item;
  items->swap(*scratch);
}

struct Candidate {
  int32_t length = 0;
  std::vector<int32_t> positions;  // all occurrences, ascending (may overlap)
  double score = 0;
};

// Greedy non-overlapping instances among |positions| (ascending) that touch
// no covered token (|covered| nullptr: nothing is covered yet, the common
// case while candidates are collected, which then costs O(occurrences)
// instead of O(occurrences x length)).
std::vector<int32_t> Instances(const std::vector<int32_t>& positions, int32_t length,
                               const std::vector<uint8_t>* covered) {
  std::vector<int32_t> out;
  int32_t next_free = INT32_MIN;
  for (int32_t p : positions) {
    if (p < next_free) continue;
    bool clear = true;
    for (int32_t k = 0; covered != nullptr && k < length; ++k) {
      if ((*covered)[p + k]) {
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

std::vector<RepeatSet> MineRepeats(const std::vector<int32_t>& tokens,
                                   const std::vector<double>& weights,
                                   const MiningOptions& options) {
  const int32_t n = static_cast<int32_t>(tokens.size());
  std::vector<RepeatSet> result;
  if (n < options.min_length * 2 || options.max_length < options.min_length) return result;
  auto weight = [&](int32_t p) { return weights.empty() ? 1.0 : weights[p]; };
  std::vector<double> prefix_weight(n + 1, 0);
  for (int32_t i = 0; i < n; ++i) prefix_weight[i + 1] = prefix_weight[i] + weight(i);

  // Groups of equal windows, refined one length at a time (a prefix
  // doubling-free suffix sort capped at max_length): |order| holds the
  // positions whose window of the current length repeats, sorted by group
  // then position; group[p] is the window's group id. Each level is two
  // counting sorts, so the whole search is O(n x max_length).
  int32_t vocab = 0;
  for (int32_t t : tokens) vocab = std::max(vocab, t + 1);
  std::vector<int32_t> order;
  for (int32_t p = 0; p < n; ++p) {
    if (tokens[p] >= 0) order.push_back(p);
  }
  std::vector<int32_t> group(n, -1);
  for (int32_t p : order) group[p] = tokens[p];
  int32_t groups = vocab;
  std::vector<int32_t> scratch, counts, next;
  CountingSort(
      &order, groups, [&](int32_t p) { return group[p]; }, &scratch, &counts);
  std::vector<Candidate> candidates;
  for (int32_t length = 1; length <= options.max_length && order.size() >= 2; ++length) {
    next.clear();
    for (size_t begin = 0; begin < order.size();) {
      size_t end = begin + 1;
      while (end < order.size() && group[order[end]] == group[order[begin]]) ++end;
      if (end - begin >= 2) {
        // Maximality: the group is reported only where some occurrence
        // cannot extend by the same token as the others (or at the cap).
        bool right_same = true;
        bool left_same = true;
        // Back-to-back occurrences (one layer after the other): extending
        // would make them overlap, so this length is the period itself.
        bool tandem = false;
        const int32_t p0 = order[begin];
        const int32_t right0 = p0 + length < n ? tokens[p0 + length] : -1;
        const int32_t left0 = p0 > 0 ? tokens[p0 - 1] : -1;
        for (size_t k = begin; k < end; ++k) {
          const int32_t p = order[k];
          const int32_t right = p + length < n ? tokens[p + length] : -1;
          const int32_t left = p > 0 ? tokens[p - 1] : -1;
          if (right >= 0) next.push_back(p);
          if (right < 0 || right != right0) right_same = false;
          if (left < 0 || left != left0) left_same = false;
          if (k > begin && p - order[k - 1] == length) tandem = true;
        }
        const bool at_cap = length == options.max_length;
        if (length >= options.min_length && (at_cap || tandem || (!right_same && !left_same))) {
          // A run of one token (Cast Cast Cast) is not a chain.
          bool distinct = false;
          for (int32_t k = 1; k < length && !distinct; ++k) distinct = tokens[p0 + k] != tokens[p0];
          if (distinct) {
            Candidate c;
            c.length = length;
            c.positions.assign(order.begin() + static_cast<std::ptrdiff_t>(begin),
                               order.begin() + static_cast<std::ptrdiff_t>(end));
            const auto inst = Instances(c.positions, length, nullptr);
            if (static_cast<int>(inst.size()) >= options.min_occurrences) {
              c.score = static_cast<double>(inst.size()) *
                        (prefix_weight[p0 + length] - prefix_weight[p0]);
              candidates.push_back(std::move(c));
            }
          }
        }
      }
      begin = end;
    }
    if (length == options.max_length) break;
    // Refine: sort the survivors by (group, next token, position) and
    // number the new groups.
    CountingSort(
        &next, vocab, [&](int32_t p) { return tokens[p + length]; }, &scratch, &counts);
    CountingSort(
        &next, groups, [&](int32_t p) { return group[p]; }, &scratch, &counts);
    int32_t id = -1;
    int32_t prev_group = -1, prev_token = -1;
    std::vector<int32_t> new_group(next.size());
    for (size_t k = 0; k < next.size(); ++k) {
      const int32_t p = next[k];
      if (group[p] != prev_group || tokens[p + length] != prev_token) {
        ++id;
        prev_group = group[p];
        prev_token = tokens[p + length];
      }
      new_group[k] = id;
    }
    for (size_t k = 0; k < next.size(); ++k) group[next[k]] = new_group[k];
    groups = id + 1;
    order.swap(next);
  }

  // Greedy by coverage with lazy re-evaluation: a candidate's score only
  // drops as tokens get covered, so a popped candidate whose fresh score
  // still beats the next stored score is the true maximum.
  auto less = [&](size_t a, size_t b) {
    if (candidates[a].score != candidates[b].score)
      return candidates[a].score < candidates[b].score;
    if (candidates[a].length != candidates[b].length)
      return candidates[a].length > candidates[b].length;
    return candidates[a].positions.front() > candidates[b].positions.front();
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(less)> heap(less);
  for (size_t i = 0; i < candidates.size(); ++i) heap.push(i);
  std::vector<uint8_t> covered(n, 0);
  while (!heap.empty() && result.size() < options.max_motifs) {
    const size_t top = heap.top();
    heap.pop();
    Candidate& c = candidates[top];
    auto inst = Instances(c.positions, c.length, &covered);
    if (static_cast<int>(inst.size()) < options.min_occurrences) continue;
    const double score = static_cast<double>(inst.size()) *
                         (prefix_weight[inst[0] + c.length] - prefix_weight[inst[0]]);
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
