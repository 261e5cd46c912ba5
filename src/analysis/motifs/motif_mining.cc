#include "analysis/motifs/motif_mining.h"

#include <algorithm>
#include <array>
#include <queue>
#include <span>

namespace trainscope::analysis {
namespace {

// Where the next covered token is, from each position on: next[p] is the
// first covered position >= p (the token count when none), so that an
// occurrence [p, p + length) is free when next[p] >= p + length. One load per
// occurrence: the greedy selection re-reads every candidate's occurrences
// each time its score is refreshed, and a scan of the covered tokens of each
// occurrence was most of its time on streams of many candidates.
class CoveredTokens {
 public:
  explicit CoveredTokens(int32_t n) : next_(static_cast<size_t>(n) + 1, n) {}

  bool Free(int32_t p, int32_t length) const { return next_[p] >= p + length; }

  // Covers [p, p + length) for each p of |starts| (ascending, disjoint).
  // next_ never decreases along the positions, so the walk back from each
  // occurrence stops at the first position whose next is already at or
  // before it: in ascending order, the end of the occurrence before, and the
  // whole update is one pass at most.
  void Cover(std::span<const int32_t> starts, int32_t length) {
    for (const int32_t p : starts) {
      for (int32_t k = p; k < p + length; ++k) next_[k] = k;
      for (int32_t k = p - 1; k >= 0 && next_[k] > p; --k) next_[k] = p;
    }
  }

 private:
  std::vector<int32_t> next_;
};

// A gap between two positions, LEB128 (7 bits a byte, low first), written
// at |out|; returns the bytes written. A sum of gaps never takes more bytes
// than the gaps did, so a list may be rewritten in place with some
// positions left out (SelectByCoverage).
size_t WriteGap(uint32_t gap, uint8_t* out) {
  size_t bytes = 0;
  while (gap >= 0x80) {
    out[bytes++] = static_cast<uint8_t>(gap | 0x80);
    gap >>= 7;
  }
  out[bytes++] = static_cast<uint8_t>(gap);
  return bytes;
}

// The bytes WriteGap writes for |gap|.
size_t GapBytes(uint32_t gap) {
  return 1 + static_cast<size_t>(gap >= 1u << 7) + static_cast<size_t>(gap >= 1u << 14) +
         static_cast<size_t>(gap >= 1u << 21) + static_cast<size_t>(gap >= 1u << 28);
}

uint32_t ReadGap(const uint8_t*& at) {
  uint32_t gap = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t byte = *at++;
    gap |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return gap;
  }
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
      windows_[starts[t]++] = Window{p, -1};
    }
    for (int32_t t = 0; t < vocab; ++t) {
      const size_t end = static_cast<size_t>(starts[t]);
      const size_t begin = t == 0 ? 0 : static_cast<size_t>(starts[t - 1]);
      if (end - begin >= 2) pending_.push_back(Group{begin, end, 1});
    }
  }

  RepeatCandidates Run() {
    if (options_.max_length < 1) return {};
    while (!pending_.empty()) {
      const Group group = pending_.back();
      pending_.pop_back();
      Visit(group);
    }
    return std::move(candidates_);
  }

 private:
  // One occurrence of a window: where it starts and the token after it
  // (-1: none, or a separator), read where the group splits.
  struct Window {
    int32_t position = 0;
    int32_t right = -1;
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
    // Greedy non-overlapping occurrences: the first, then the first that
    // starts after it ends, and so on; and the bytes of the gaps.
    const Window* const windows = windows_.data();
    int32_t instances = 0;
    int32_t next_free = INT32_MIN;
    int32_t previous = windows[group.begin].position;
    uint32_t gap_bits = 0;  // every gap's bits
    for (size_t k = group.begin; k < group.end; ++k) {
      const int32_t p = windows[k].position;
      gap_bits |= static_cast<uint32_t>(p - previous);
      previous = p;
      if (p < next_free) continue;
      ++instances;
      next_free = p + length;
    }
    if (instances < options_.min_occurrences) return;
    // The gaps' bytes: one each when every gap is below 128, as they mostly
    // are.
    size_t bytes = group.end - group.begin - 1;
    if (gap_bits >= 0x80) {
      bytes = 0;
      for (size_t k = group.begin + 1; k < group.end; ++k) {
        bytes += GapBytes(static_cast<uint32_t>(windows[k].position - windows[k - 1].position));
      }
    }
    // All candidates' positions share one list: a list per candidate was
    // thousands of small blocks per step, which the heap kept after the
    // search (two steps mined at once held tens of MB more at the peak).
    // Written through a pointer: appended a byte at a time, each byte waited
    // on the list's end the byte before it had stored.
    GrowableBytes& gaps = candidates_.gaps;
    RepeatCandidates::Group reported{length, windows[group.begin].position, gaps.size(), 0,
                                     instances};
    gaps.resize(gaps.size() + bytes);
    uint8_t* out = gaps.data() + reported.begin;
    for (size_t k = group.begin + 1; k < group.end; ++k) {
      out += WriteGap(static_cast<uint32_t>(windows[k].position - windows[k - 1].position), out);
    }
    reported.end = candidates_.gaps.size();
    candidates_.groups.push_back(reported);
  }

  // Reads the token after each window of |group| (at |length|) into its
  // |right| and notes its bucket: the next tokens in the order they are first
  // seen, up to kMaxBuckets (more: |buckets_overflow_|), with each bucket's
  // size. One pass, and a find only where the next token changes from the
  // window before (windows of a group mostly continue alike); a bucket's
  // size grows by a run at a time, so that no window waits on the count the
  // window before it stored. True when every window continues with the same
  // token (none -1).
  bool ReadNextTokens(const Group& group, int32_t length) {
    Window* const windows = windows_.data() + group.begin;
    const size_t size = group.end - group.begin;
    bucket_of_.resize(size);
    uint8_t* const bucket_of = bucket_of_.data();
    buckets_ = 0;
    buckets_overflow_ = false;
    int32_t previous = INT32_MIN;
    uint8_t bucket = 0;
    size_t run_start = 0;
    size_t k = 0;
    for (; k < size; ++k) {
      const int32_t right = TokenAt(windows[k].position + length);
      windows[k].right = right;
      if (right != previous) {
        if (k > 0) bucket_sizes_[bucket] += k - run_start;
        run_start = k;
        previous = right;
        bucket = static_cast<uint8_t>(
            std::find(tokens_seen_.begin(), tokens_seen_.begin() + buckets_, right) -
            tokens_seen_.begin());
        if (bucket == buckets_) {
          if (buckets_ == kMaxBuckets) {
            buckets_overflow_ = true;
            break;
          }
          tokens_seen_[buckets_] = right;
          bucket_sizes_[buckets_] = 0;
          ++buckets_;
        }
      }
      bucket_of[k] = bucket;
    }
    if (buckets_overflow_) {  // the rest's next tokens only: the split sorts them
      for (; k < size; ++k) windows[k].right = TokenAt(windows[k].position + length);
      return false;
    }
    if (size > 0) bucket_sizes_[bucket] += size - run_start;
    return buckets_ == 1 && tokens_seen_[0] >= 0;
  }

  // Queues the groups one token longer that |group| splits into: the
  // windows with the same next token (ReadNextTokens), >= 2 of them, made
  // contiguous within |group|'s range with their positions still ascending
  // (a window that cannot extend, or is alone with its token, is dropped).
  // The largest such group stays where it is, compacted to the front in one
  // pass with its write cursor in a register; only the others' windows go
  // through the reused buffer. A group mostly splits into one big group and
  // a few windows (a layer whose next kernel differs once in a while):
  // moving every window to its bucket's slot through cursors kept in memory
  // made each window wait on the previous window's cursor store (on a
  // stream that splits at every length, BM_MineRepeatsInterleaved, a fifth
  // of the mining's time). The groups' order does not matter: every
  // group is a candidate on its own, and the selection breaks ties by
  // length and position.
  void PushExtendingGroups(const Group& group, int32_t length) {
    const auto begin = windows_.begin() + static_cast<std::ptrdiff_t>(group.begin);
    const auto end = windows_.begin() + static_cast<std::ptrdiff_t>(group.end);
    if (buckets_overflow_) {
      // More next tokens than buckets: sorted by next token (-1 last), then
      // each run of one token is a group.
      auto key = [](int32_t right) { return right < 0 ? INT32_MAX : right; };
      std::stable_sort(begin, end, [&key](const Window& a, const Window& b) {
        return key(a.right) < key(b.right);
      });
      for (auto run = begin; run != end && run->right >= 0;) {
        auto run_end = run + 1;
        while (run_end != end && run_end->right == run->right) ++run_end;
        if (run_end - run >= 2) {
          PushGroup(run - windows_.begin(), run_end - windows_.begin(), length);
        }
        run = run_end;
      }
      return;
    }
    // The buckets that make a group, and the largest of them.
    const size_t buckets = buckets_;
    constexpr uint8_t kDropped = UINT8_MAX;
    uint8_t largest = kDropped;
    for (size_t b = 0; b < buckets; ++b) {
      if (!MakesGroup(b)) continue;
      if (largest == kDropped || bucket_sizes_[b] > bucket_sizes_[largest]) {
        largest = static_cast<uint8_t>(b);
      }
    }
    if (largest == kDropped) return;
    const size_t group_size = group.end - group.begin;
    if (bucket_sizes_[largest] == group_size) {  // one next token: nothing moves
      PushGroup(begin - windows_.begin(), end - windows_.begin(), length);
      return;
    }
    // Each other group's first slot in the buffer.
    size_t others = 0;
    for (size_t b = 0; b < buckets; ++b) {
      bucket_moved_[b] = b != largest && MakesGroup(b);
      bucket_starts_[b] = others;
      if (bucket_moved_[b]) others += bucket_sizes_[b];
    }
    scratch_.resize(others);
    auto kept = begin;
    for (size_t k = 0; k < group_size; ++k) {
      const uint8_t bucket = bucket_of_[k];
      const Window window = begin[static_cast<std::ptrdiff_t>(k)];
      if (bucket == largest) {
        *kept++ = window;
      } else if (bucket_moved_[bucket]) {
        scratch_[bucket_starts_[bucket]++] = window;
      }
    }
    std::copy(scratch_.begin(), scratch_.end(), kept);
    PushGroup(begin - windows_.begin(), kept - windows_.begin(), length);
    std::ptrdiff_t next = kept - windows_.begin();
    for (size_t b = 0; b < buckets; ++b) {
      if (!bucket_moved_[b]) continue;
      const auto size = static_cast<std::ptrdiff_t>(bucket_sizes_[b]);
      PushGroup(next, next + size, length);
      next += size;
    }
  }

  // Whether bucket |b| (ReadNextTokens) is a group one token longer: >= 2
  // windows that continue, by a token (not -1).
  bool MakesGroup(size_t b) const { return tokens_seen_[b] >= 0 && bucket_sizes_[b] >= 2; }

  void PushGroup(std::ptrdiff_t begin, std::ptrdiff_t end, int32_t length) {
    pending_.push_back(Group{static_cast<size_t>(begin), static_cast<size_t>(end), length});
  }

  void Visit(const Group& group) {
    const int32_t p0 = windows_[group.begin].position;
    // What stays the same at every length of this group: the tokens on the
    // left, the gaps between consecutive windows, the first token that
    // differs from the window's first.
    std::fill(tandem_.begin(), tandem_.end(), 0);
    for (size_t k = group.begin + 1; k < group.end; ++k) {
      const int32_t gap = windows_[k].position - windows_[k - 1].position;
      if (gap <= options_.max_length) tandem_[static_cast<size_t>(gap)] = 1;
    }
    // The left tokens are read from the stream (a load per window, far
    // apart): stop at the first that differs.
    const int32_t left0 = TokenAt(p0 - 1);
    bool left_same = left0 >= 0;
    for (size_t k = group.begin + 1; k < group.end && left_same; ++k) {
      left_same = TokenAt(windows_[k].position - 1) == left0;
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
    const bool right_same = ReadNextTokens(group, split_length);
    MaybeReport(group, split_length, /*maximal=*/!right_same && !left_same);
    PushExtendingGroups(group, split_length + 1);
  }

  const std::vector<int32_t>& tokens_;
  const MiningOptions& options_;
  const int32_t n_;
  std::vector<Window> windows_;
  static constexpr size_t kMaxBuckets = 16;  // next tokens a split buckets; more: a stable sort
  // The split group's next tokens in the order first seen, each one's
  // windows, and each window's bucket (ReadNextTokens).
  std::array<int32_t, kMaxBuckets> tokens_seen_{};
  std::array<size_t, kMaxBuckets> bucket_sizes_{};
  size_t buckets_ = 0;  // of tokens_seen_ and bucket_sizes_
  std::vector<uint8_t> bucket_of_;
  bool buckets_overflow_ = false;
  // Per bucket: where its windows go in |scratch_|, and whether it is a
  // group moved through it (PushExtendingGroups).
  std::array<size_t, kMaxBuckets> bucket_starts_{};
  std::array<bool, kMaxBuckets> bucket_moved_{};
  std::vector<Window> scratch_;  // the split's smaller groups (reused: one buffer for the search)
  std::vector<Group> pending_;   // groups still to visit
  std::vector<uint8_t> tandem_;  // the visited group's gaps (<= max_length) between windows
  int32_t first_different_ =
      0;  // the visited group: its window's first token differing from the first
  RepeatCandidates candidates_;
};

// Greedy by coverage with lazy re-evaluation: a candidate's score only drops
// as tokens get covered, so a popped candidate whose fresh score still beats
// the next stored score is the true maximum. Covered tokens stay covered, so
// an occurrence found covered is dropped from its candidate's positions for
// good (the gaps rewritten in place): after the first pick covers most of a
// stream, every candidate is re-read once in full and then only where it is
// still free.
std::vector<RepeatSet> SelectByCoverage(RepeatCandidates candidates, int32_t n,
                                        const std::vector<double>& prefix_weight,
                                        const MiningOptions& options) {
  const std::vector<RepeatCandidates::Group>& groups = candidates.groups;
  // Each candidate's positions not yet found covered: the first (-1: none
  // left) and the gaps to the others, gaps[begin, free_end).
  std::vector<int32_t> free_first(groups.size());
  std::vector<size_t> free_end(groups.size());
  for (size_t c = 0; c < groups.size(); ++c) {
    free_first[c] = groups[c].first;
    free_end[c] = groups[c].end;
  }
  auto weight_at = [&](int32_t p, int32_t length) {
    return prefix_weight[p + length] - prefix_weight[p];
  };
  // Score: greedy instances x the weight of one.
  std::vector<double> scores(groups.size());
  for (size_t c = 0; c < scores.size(); ++c) {
    scores[c] =
        static_cast<double>(groups[c].instances) * weight_at(groups[c].first, groups[c].length);
  }
  std::vector<RepeatSet> result;
  auto less = [&](size_t a, size_t b) {
    if (scores[a] != scores[b]) return scores[a] < scores[b];
    if (groups[a].length != groups[b].length) return groups[a].length > groups[b].length;
    return groups[a].first > groups[b].first;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(less)> heap(less);
  for (size_t i = 0; i < scores.size(); ++i) heap.push(i);
  CoveredTokens covered(n);
  std::vector<int32_t> inst;
  while (!heap.empty() && result.size() < options.max_motifs) {
    const size_t top = heap.top();
    heap.pop();
    const int32_t length = groups[top].length;
    // The greedy occurrences among the free positions, dropping the covered
    // ones: the writer never passes the reader (WriteGap).
    inst.clear();
    uint8_t* const gaps = candidates.gaps.data();
    const uint8_t* read = gaps + groups[top].begin;
    const uint8_t* const read_end = gaps + free_end[top];
    uint8_t* write = gaps + groups[top].begin;
    int32_t kept_first = -1;
    int32_t kept_last = 0;
    int32_t next_free = INT32_MIN;
    auto visit = [&](int32_t p) {
      if (!covered.Free(p, length)) return;
      if (kept_first < 0) {
        kept_first = p;
      } else {
        write += WriteGap(static_cast<uint32_t>(p - kept_last), write);
      }
      kept_last = p;
      if (p < next_free) return;
      inst.push_back(p);
      next_free = p + length;
    };
    if (free_first[top] >= 0) {
      int32_t p = free_first[top];
      visit(p);
      while (read < read_end) {
        p += static_cast<int32_t>(ReadGap(read));
        visit(p);
      }
    }
    free_first[top] = kept_first;
    free_end[top] = static_cast<size_t>(write - gaps);
    if (static_cast<int>(inst.size()) < options.min_occurrences) continue;
    const double score = static_cast<double>(inst.size()) * weight_at(inst[0], length);
    if (score < scores[top] && !heap.empty() && score < scores[heap.top()]) {
      scores[top] = score;
      heap.push(top);
      continue;
    }
    covered.Cover(inst, length);
    RepeatSet set;
    set.length = length;
    set.coverage = score;
    set.starts = inst;
    result.push_back(std::move(set));
  }
  return result;
}

}  // namespace

std::vector<int32_t> RepeatCandidates::Positions(const Group& group) const {
  std::vector<int32_t> out = {group.first};
  const uint8_t* at = gaps.data() + group.begin;
  while (at < gaps.data() + group.end)
    out.push_back(out.back() + static_cast<int32_t>(ReadGap(at)));
  return out;
}

RepeatCandidates FindRepeatCandidates(const std::vector<int32_t>& tokens,
                                      const MiningOptions& options) {
  return CandidateSearch(tokens, options).Run();
}

std::vector<RepeatSet> MineRepeats(const std::vector<int32_t>& tokens, std::vector<double> weights,
                                   const MiningOptions& options) {
  const int32_t n = static_cast<int32_t>(tokens.size());
  if (n < options.min_length * 2 || options.max_length < options.min_length) return {};
  // The weights become their prefix sums in place (prefix[i] = the weight
  // of positions [0, i)): a big step's are megabytes, and a second list
  // beside them was held while the step was mined.
  std::vector<double>& prefix_weight = weights;
  if (prefix_weight.empty()) prefix_weight.assign(static_cast<size_t>(n), 1.0);
  prefix_weight.push_back(0);
  double sum = 0;
  for (double& w : prefix_weight) {
    const double here = w;
    w = sum;
    sum += here;
  }
  return SelectByCoverage(FindRepeatCandidates(tokens, options), n, prefix_weight, options);
}

}  // namespace trainscope::analysis
