// One step of two ranks small enough to re-time by hand, for the replay's
// tests (step_replay_test.cc, replayed_gains_test.cc): one blocking
// all-reduce. Rank 0 computes from 1 ms to its arrival at 10 ms, rank 1 from
// |rank1_start| to 15 ms; the all-reduce ends at 16 ms on both (1 ms of
// transfer after the last arrival); rank 0's step ends at 20 ms, rank 1's
// at 22 ms, each computing to its end. The measured span is 21 ms.
#pragma once

#include <vector>

#include "analysis/cluster/communication.h"
#include "time_units.h"

namespace trainscope::testing {

inline std::vector<analysis::RankComm> TwoRanksOneAllReduce(int64_t rank1_start = kMs) {
  std::vector<analysis::RankComm> comm(2);
  for (int r = 0; r < 2; ++r) {
    comm[r].rank = r;
    const int64_t start = r == 0 ? kMs : rank1_start;
    const int64_t arrival = r == 0 ? 10 * kMs : 15 * kMs;
    analysis::CommInstance op{"ar#0", analysis::CollectiveType::kAllReduce, 1, arrival,
                              16 * kMs - arrival};
    op.compute_before_ns = arrival - start;
    op.compute_during_ns = 0;
    comm[r].ops.push_back(op);
    analysis::RankStepComm step{1, start, (20 + 2 * r) * kMs};
    step.compute_after_last_ns = step.last_end_ns - 16 * kMs;
    comm[r].steps.push_back(step);
  }
  return comm;
}

}  // namespace trainscope::testing
