#include "analysis/motifs/motif_mining.h"

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

// The candidate search: groups of equal windows, refined one length at a
// time (a prefix-doubling-free suffix sort capped at max_length): |order_|
// holds the positions whose window of the current length repeats, sorted by
// group then position; group_[p] is the window's group id. Each level is one
// pass over the survivors (plus a sort of the groups that branch), so the
// whole search is about O(n x max_length).
class CandidateSearch {
 public:
  CandidateSearch(const std::vector<int32_t>& tokens, const std::vector<double>& prefix_weight,
                  const MiningOptions& options)
      : tokens_(tokens),
        prefix_weight_(prefix_weight),
        options_(options),
        n_(static_cast<int32_t>(tokens.size())),
        group_(tokens.size(), -1) {
    for (int32_t t : tokens_) vocab_ = std::max(vocab_, t + 1);
    for (int32_t p = 0; p < n_; ++p) {
      if (tokens_[p] >= 0) order_.push_back(p);
    }
    for (int32_t p : order_) group_[p] = tokens_[p];
    groups_ = vocab_;
    CountingSort(
        &order_, groups_, [&](int32_t p) { return group_[p]; }, &scratch_, &counts_);
  }

  std::vector<Candidate> Run() {
    for (int32_t length = 1; length <= options_.max_length && order_.size() >= 2; ++length) {
      next_.clear();
      for (size_t begin = 0; begin < order_.size();) {
        size_t end = begin + 1;
        while (end < order_.size() && group_[order_[end]] == group_[order_[begin]]) ++end;
        if (end - begin >= 2) VisitGroup(begin, end, length);
        begin = end;
      }
      if (length == options_.max_length) break;
      Refine(length);
    }
    return std::move(candidates_);
  }

 private:
  int32_t TokenAt(int32_t p) const { return p >= 0 && p < n_ ? tokens_[p] : -1; }

  // One group of >= 2 equal windows [begin, end) of |order_| at |length|:
  // queues the extendable occurrences for the next level and keeps the
  // group as a candidate where it is maximal.
  void VisitGroup(size_t begin, size_t end, int32_t length) {
    // Maximality: the group is reported only where some occurrence cannot
    // extend by the same token as the others (or at the cap).
    bool right_same = true;
    bool left_same = true;
    // Back-to-back occurrences (one layer after the other): extending would
    // make them overlap, so this length is the period itself.
    bool tandem = false;
    const int32_t p0 = order_[begin];
    const int32_t right0 = TokenAt(p0 + length);
    const int32_t left0 = TokenAt(p0 - 1);
    for (size_t k = begin; k < end; ++k) {
      const int32_t p = order_[k];
      const int32_t right = TokenAt(p + length);
      const int32_t left = TokenAt(p - 1);
      if (right >= 0) next_.push_back(p);
      if (right < 0 || right != right0) right_same = false;
      if (left < 0 || left != left0) left_same = false;
      if (k > begin && p - order_[k - 1] == length) tandem = true;
    }
    const bool at_cap = length == options_.max_length;
    if (length < options_.min_length || !(at_cap || tandem || (!right_same && !left_same))) return;
    // A run of one token (Cast Cast Cast) is not a chain.
    bool distinct = false;
    for (int32_t k = 1; k < length && !distinct; ++k) distinct = tokens_[p0 + k] != tokens_[p0];
    if (!distinct) return;
    Candidate c;
    c.length = length;
    c.positions.assign(order_.begin() + static_cast<std::ptrdiff_t>(begin),
                       order_.begin() + static_cast<std::ptrdiff_t>(end));
    const auto inst = Instances(c.positions, length, nullptr);
    if (static_cast<int>(inst.size()) < options_.min_occurrences) return;
    c.score = static_cast<double>(inst.size()) * (prefix_weight_[p0 + length] - prefix_weight_[p0]);
    candidates_.push_back(std::move(c));
  }

  // Sorts the survivors by (group, next token, position) and numbers the
  // new groups. VisitGroup queued them in |order_|'s order, already by
  // (group, position): only each group's run needs ordering by the next
  // token, and in repetitive code a window is mostly followed by one token,
  // so most runs are already in order. Renumbering in place is safe: each
  // position appears once, and a run's old group is read before it is
  // overwritten. (A counting sort over all groups here cleared a count per
  // group at every length: most of the mining time on big steps.)
  void Refine(int32_t length) {
    auto next_token = [&](int32_t p) { return tokens_[p + length]; };
    int32_t id = -1;
    for (size_t begin = 0; begin < next_.size();) {
      const int32_t group = group_[next_[begin]];
      const int32_t first_token = next_token(next_[begin]);
      bool one_token = true;
      size_t end = begin + 1;
      for (; end < next_.size() && group_[next_[end]] == group; ++end) {
        one_token = one_token && next_token(next_[end]) == first_token;
      }
      const auto run_begin = next_.begin() + static_cast<std::ptrdiff_t>(begin);
      const auto run_end = next_.begin() + static_cast<std::ptrdiff_t>(end);
      if (!one_token) {
        std::stable_sort(run_begin, run_end,
                         [&](int32_t a, int32_t b) { return next_token(a) < next_token(b); });
      }
      int32_t prev_token = -1;
      for (auto it = run_begin; it != run_end; ++it) {
        const int32_t token = next_token(*it);
        if (it == run_begin || token != prev_token) ++id;
        prev_token = token;
        group_[*it] = id;
      }
      begin = end;
    }
    groups_ = id + 1;
    order_.swap(next_);
  }

  const std::vector<int32_t>& tokens_;
  const std::vector<double>& prefix_weight_;
  const MiningOptions& options_;
  const int32_t n_;
  int32_t vocab_ = 0;
  int32_t groups_ = 0;
  std::vector<int32_t> order_;
  std::vector<int32_t> group_;
  std::vector<int32_t> next_, scratch_, counts_;
  std::vector<Candidate> candidates_;
};

// Greedy by coverage with lazy re-evaluation: a candidate's score only drops
// as tokens get covered, so a popped candidate whose fresh score still beats
// the next stored score is the true maximum.
std::vector<RepeatSet> SelectByCoverage(std::vector<Candidate> candidates, int32_t n,
                                        const std::vector<double>& prefix_weight,
                                        const MiningOptions& options) {
  std::vector<RepeatSet> result;
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

}  // namespace

std::vector<RepeatSet> MineRepeats(const std::vector<int32_t>& tokens,
                                   const std::vector<double>& weights,
                                   const MiningOptions& options) {
  const int32_t n = static_cast<int32_t>(tokens.size());
  if (n < options.min_length * 2 || options.max_length < options.min_length) return {};
  std::vector<double> prefix_weight(n + 1, 0);
  for (int32_t i = 0; i < n; ++i)
    prefix_weight[i + 1] = prefix_weight[i] + (weights.empty() ? 1.0 : weights[i]);
  std::vector<Candidate> candidates = CandidateSearch(tokens, prefix_weight, options).Run();
  return SelectByCoverage(std::move(candidates), n, prefix_weight, options);
}

}  // namespace trainscope::analysis
