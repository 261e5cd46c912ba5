#include "analysis/motifs/motif_mining.h"

#include <algorithm>
#include <queue>

namespace trainscope::analysis {
namespace {

struct Candidate {
  int32_t length = 0;
  std::vector<int32_t> positions;  // all occurrences, ascending (may overlap)
  double score = 0;                // greedy instances x the weight of one
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

// The candidate search: groups of equal windows, the nodes of a suffix tree
// of the tokens cut at max_length, built top-down one group at a time (the
// "write only, top down" construction). A group of >= 2 equal windows of
// some length is first extended for as long as all its windows continue with
// the same token (one sequential comparison of token runs, no bookkeeping
// per length: in repetitive code almost every window of a layer repeats
// layer after layer, so a search that refined every window at every length
// did max_length passes over nearly all tokens), then split by the token
// that follows each window. Where a group is a candidate, i.e. at which
// lengths a repeat is reported, is decided exactly as a search one length
// at a time would (tests/unit/motif_test.cc compares the two on random
// token streams).
class CandidateSearch {
 public:
  CandidateSearch(const std::vector<int32_t>& tokens, const MiningOptions& options)
      : tokens_(tokens),
        options_(options),
        n_(static_cast<int32_t>(tokens.size())),
        tandem_(static_cast<size_t>(std::max(options.max_length, 0)) + 1, 0) {
    int32_t vocab = 0;
    for (int32_t t : tokens_) vocab = std::max(vocab, t + 1);
    // Windows of length 1, grouped by token, positions ascending within a
    // group (a stable counting sort).
    std::vector<int32_t> starts(static_cast<size_t>(vocab) + 1, 0);
    size_t windows = 0;
    for (int32_t t : tokens_) {
      if (t < 0) continue;
      ++starts[t + 1];
      ++windows;
    }
    for (int32_t k = 0; k < vocab; ++k) starts[k + 1] += starts[k];
    windows_.resize(windows);
    for (int32_t p = 0; p < n_; ++p) {
      const int32_t t = tokens_[p];
      if (t < 0) continue;
      windows_[starts[t]++] = Window{p, TokenAt(p - 1), -1};
    }
    for (int32_t t = 0; t < vocab; ++t) {
      const size_t end = static_cast<size_t>(starts[t]);
      const size_t begin = t == 0 ? 0 : static_cast<size_t>(starts[t - 1]);
      if (end - begin >= 2) pending_.push_back(Group{begin, end, 1});
    }
  }

  std::vector<RepeatCandidate> Run() {
    if (options_.max_length < 1) return {};
    while (!pending_.empty()) {
      const Group group = pending_.back();
      pending_.pop_back();
      Visit(group);
    }
    return std::move(candidates_);
  }

 private:
  // One occurrence of a window: where it starts and the tokens around it
  // (-1: none, or a separator).
  struct Window {
    int32_t position = 0;
    int32_t left = -1;   // the token before the window
    int32_t right = -1;  // the token after it, read where the group splits
  };
  // Windows_[begin, end): >= 2 equal windows of |length| tokens, positions
  // ascending.
  struct Group {
    size_t begin = 0;
    size_t end = 0;
    int32_t length = 0;
  };

  int32_t TokenAt(int32_t p) const { return p >= 0 && p < n_ ? tokens_[p] : -1; }

  // How many more tokens every window of |group| shares with the first one
  // (all of them >= 0, none past the end), at most max_length - length:
  // over those lengths the group neither splits nor loses a window.
  int32_t SharedExtension(const Group& group) const {
    const int32_t p0 = windows_[group.begin].position;
    int32_t reach = options_.max_length - group.length;
    for (int32_t j = 0; j < reach; ++j) {
      if (TokenAt(p0 + group.length + j) < 0) {
        reach = j;
        break;
      }
    }
    for (size_t k = group.begin + 1; k < group.end && reach > 0; ++k) {
      const int32_t* first = tokens_.data() + p0 + group.length;
      const int32_t p = windows_[k].position;
      const int32_t* other = tokens_.data() + p + group.length;
      const int32_t limit = std::min(reach, n_ - (p + group.length));
      int32_t j = 0;
      while (j < limit && other[j] == first[j]) ++j;
      reach = j;
    }
    return reach;
  }

  // Reports |group| at |length| when it is a candidate: long enough, not a
  // run of one token, maximal (some window cannot extend by the token the
  // others do, on both sides), back to back (one layer after the other:
  // extending would make them overlap, so this length is the period
  // itself) or at the cap, and with enough non-overlapping instances.
  void MaybeReport(const Group& group, int32_t length, bool maximal) {
    if (length < options_.min_length) return;
    const bool at_cap = length == options_.max_length;
    if (!(at_cap || maximal || tandem_[static_cast<size_t>(length)] != 0)) return;
    if (length <= first_different_) return;  // a run of one token (Cast Cast Cast) is not a chain
    RepeatCandidate c;
    c.length = length;
    c.positions.reserve(group.end - group.begin);
    for (size_t k = group.begin; k < group.end; ++k) c.positions.push_back(windows_[k].position);
    if (static_cast<int>(Instances(c.positions, length, nullptr).size()) <
        options_.min_occurrences) {
      return;
    }
    candidates_.push_back(std::move(c));
  }

  // NOLINTNEXTLINE(readability-function-cognitive-complexity): one node of the tree, in order
  void Visit(const Group& group) {
    const int32_t p0 = windows_[group.begin].position;
    // What stays the same at every length of this group: the tokens on the
    // left, the gaps between consecutive windows, the first token that
    // differs from the window's first.
    bool left_same = true;
    const int32_t left0 = windows_[group.begin].left;
    std::fill(tandem_.begin(), tandem_.end(), 0);
    for (size_t k = group.begin; k < group.end; ++k) {
      if (windows_[k].left < 0 || windows_[k].left != left0) left_same = false;
      if (k > group.begin) {
        const int32_t gap = windows_[k].position - windows_[k - 1].position;
        if (gap <= options_.max_length) tandem_[static_cast<size_t>(gap)] = 1;
      }
    }
    first_different_ = options_.max_length;
    for (int32_t j = 1; j < options_.max_length && p0 + j < n_; ++j) {
      if (tokens_[p0 + j] != tokens_[p0]) {
        first_different_ = j;
        break;
      }
    }
    // Lengths over which every window continues with one same token: only
    // back-to-back windows make a candidate there.
    const int32_t split_length = group.length + SharedExtension(group);
    for (int32_t length = group.length; length < split_length; ++length) {
      MaybeReport(group, length, /*maximal=*/false);
    }
    if (split_length == options_.max_length) {
      MaybeReport(group, split_length, /*maximal=*/false);  // at the cap
      return;
    }
    // The group splits (or loses windows) after |split_length| tokens.
    bool right_same = true;
    const int32_t right0 = TokenAt(p0 + split_length);
    for (size_t k = group.begin; k < group.end; ++k) {
      windows_[k].right = TokenAt(windows_[k].position + split_length);
      if (windows_[k].right < 0 || windows_[k].right != right0) right_same = false;
    }
    MaybeReport(group, split_length, /*maximal=*/!right_same && !left_same);
    // The windows that extend, by their next token (positions stay
    // ascending within each): each run of >= 2 is a group one token longer.
    const auto begin = windows_.begin() + static_cast<std::ptrdiff_t>(group.begin);
    const auto end = windows_.begin() + static_cast<std::ptrdiff_t>(group.end);
    const auto extending =
        std::stable_partition(begin, end, [](const Window& w) { return w.right >= 0; });
    std::stable_sort(begin, extending,
                     [](const Window& a, const Window& b) { return a.right < b.right; });
    for (auto run = begin; run != extending;) {
      auto run_end = run + 1;
      while (run_end != extending && run_end->right == run->right) ++run_end;
      if (run_end - run >= 2) {
        pending_.push_back(Group{static_cast<size_t>(run - windows_.begin()),
                                 static_cast<size_t>(run_end - windows_.begin()),
                                 split_length + 1});
      }
      run = run_end;
    }
  }

  const std::vector<int32_t>& tokens_;
  const MiningOptions& options_;
  const int32_t n_;
  std::vector<Window> windows_;
  std::vector<Group> pending_;   // groups still to visit
  std::vector<uint8_t> tandem_;  // the visited group's gaps (<= max_length) between windows
  int32_t first_different_ =
      0;  // the visited group: its window's first token differing from the first
  std::vector<RepeatCandidate> candidates_;
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

std::vector<RepeatCandidate> FindRepeatCandidates(const std::vector<int32_t>& tokens,
                                                  const MiningOptions& options) {
  return CandidateSearch(tokens, options).Run();
}

std::vector<RepeatSet> MineRepeats(const std::vector<int32_t>& tokens,
                                   const std::vector<double>& weights,
                                   const MiningOptions& options) {
  const int32_t n = static_cast<int32_t>(tokens.size());
  if (n < options.min_length * 2 || options.max_length < options.min_length) return {};
  std::vector<double> prefix_weight(n + 1, 0);
  for (int32_t i = 0; i < n; ++i)
    prefix_weight[i + 1] = prefix_weight[i] + (weights.empty() ? 1.0 : weights[i]);
  std::vector<Candidate> candidates;
  for (RepeatCandidate& found : FindRepeatCandidates(tokens, options)) {
    Candidate c;
    c.length = found.length;
    c.positions = std::move(found.positions);
    const int32_t p0 = c.positions.front();
    c.score = static_cast<double>(Instances(c.positions, c.length, nullptr).size()) *
              (prefix_weight[p0 + c.length] - prefix_weight[p0]);
    candidates.push_back(std::move(c));
  }
  return SelectByCoverage(std::move(candidates), n, prefix_weight, options);
}

}  // namespace trainscope::analysis
