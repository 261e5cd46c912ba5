#include "analysis/cluster/step_ranks.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/rank_ranges.h"

namespace trainscope::analysis {

bool Blocking(const CommInstance& op) {
  return op.compute_during_ns < 0 || 2 * op.compute_during_ns < op.duration_ns;
}

std::vector<RankStep> RanksOfStep(const std::vector<RankComm>& comm, int32_t step,
                                  std::string* note) {
  std::vector<RankStep> out;
  std::vector<int32_t> without;
  for (const RankComm& rc : comm) {
    const auto s = std::find_if(rc.steps.begin(), rc.steps.end(),
                                [step](const RankStepComm& x) { return x.step == step; });
    if (s == rc.steps.end() || s->compute_after_last_ns < 0 ||
        s->last_end_ns <= s->first_start_ns) {
      without.push_back(rc.rank);
      continue;
    }
    RankStep r{rc.rank, &*s, {}, rc.host_known};
    for (const CommInstance& op : rc.ops) {
      if (op.step == step) r.ops.push_back(&op);
    }
    out.push_back(std::move(r));
  }
  note->clear();
  if (!without.empty()) {
    *note = fmt::format(
        "rank(s) {} have no usable device timeline of the step (none, or set aside as wrong): the "
        "path runs over the others",
        CompactRankList(without));
  }
  return out;
}

}  // namespace trainscope::analysis
