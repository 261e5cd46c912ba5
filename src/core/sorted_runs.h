// A stable sort for data that is already nearly in order.
//
// Profiles list their events mostly in time order: a Kineto trace's host
// ops are in order on each thread but for a handful of places where a second
// stream of events starts back in time (an autograd thread's backward ops
// logged after the forward); its memory samples come in two such runs a
// capture. A comparison sort costs n log n on them all the same (the host ops
// of a 6 M-event trace: ~0.1 s on the one core the sort runs on). Here the
// range is cut into its ascending runs and neighbouring runs are merged in
// passes, each merge only over the stretch where the two runs overlap (found
// by binary search): an in-order range costs one comparison an element, and
// runs that follow each other in time (a trace's later captures) cost nothing
// to merge. Many short runs (data that is not nearly sorted) go to
// std::stable_sort.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace trainscope {

// Sorts [first, last) by |less| as std::stable_sort would (equal elements
// keep their order).
template <typename RandomIt, typename Less>
void StableSortNearlySorted(RandomIt first, RandomIt last, Less less) {
  const auto n = static_cast<size_t>(last - first);
  // Where each ascending run starts (a strict descent ends a run). A run
  // every 16 elements or more often: not nearly sorted.
  const size_t most_runs = n / 16;
  std::vector<size_t> starts{0};
  for (size_t i = 1; i < n; ++i) {
    if (!less(first[i], first[i - 1])) continue;
    if (starts.size() > most_runs) {
      std::stable_sort(first, last, less);
      return;
    }
    starts.push_back(i);
  }
  if (starts.size() == 1) return;
  using Value = typename std::iterator_traits<RandomIt>::value_type;
  std::vector<Value> buffer;
  starts.push_back(n);
  while (starts.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t k = 0; k + 1 < starts.size(); k += 2) {
      if (k + 2 >= starts.size()) {  // an odd run out: merged in a later pass
        merged.push_back(starts[k + 1]);
        break;
      }
      const RandomIt left = first + static_cast<std::ptrdiff_t>(starts[k]);
      const RandomIt mid = first + static_cast<std::ptrdiff_t>(starts[k + 1]);
      const RandomIt right_end = first + static_cast<std::ptrdiff_t>(starts[k + 2]);
      // The left run's elements up to the right run's first stay (ties
      // too: they came first), and so do the right run's from the left
      // run's last on: only the stretch between moves.
      const RandomIt from = std::upper_bound(left, mid, *mid, less);
      const RandomIt to = std::lower_bound(mid, right_end, *(mid - 1), less);
      if (from != mid && to != mid) {
        buffer.resize(static_cast<size_t>(to - from));
        std::merge(std::make_move_iterator(from), std::make_move_iterator(mid),
                   std::make_move_iterator(mid), std::make_move_iterator(to), buffer.begin(), less);
        std::move(buffer.begin(), buffer.end(), from);
      }
      merged.push_back(starts[k + 2]);
    }
    starts.swap(merged);
  }
}

}  // namespace trainscope
