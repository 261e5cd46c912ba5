// What applying every finding of the portrait would leave of the step: the
// findings' own gains are each a share of the step, but several of them can
// describe the same time (exposed communication and the step-start wait
// inside it), so their sum is no plan. The projection counts such time once.
//
// Model (docs/findings.md, "Combined projection"):
// - each gain is clamped to [0, 100] % of the step (ClampGainPct);
// - findings that remove the same time form one group and count once, by
//   their largest gain: every finding about waiting for communication
//   (exposed-communication, step-start-skew, straggler-rank, pseudo-overlap,
//   slow-link, fragmented-communication) removes part of the step's exposed
//   communication; every other id is its own group (a fingerprint's kernel
//   chain, device idle, one dominant operator);
// - groups are independent: each removes its share of what the others leave,
//   so remaining = prod(1 - gain_g / 100) and the combined gain is
//   100 * (1 - remaining). It is at most 100 and below the sum of the gains,
//   and above 0 % of the step remains unless a finding claims all of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/common/finding.h"

namespace trainscope::analysis {

// The model above in one sentence, for the reports.
inline constexpr const char* kGainProjectionModel =
    "each gain clamped to [0, 100]% of the step; findings that remove the same time count once "
    "(all communication-wait findings: exposed-communication, step-start-skew, straggler-rank, "
    "pseudo-overlap, slow-link, fragmented-communication, by their largest gain); the other "
    "findings are independent and each removes its share of what the others leave: projected "
    "step = step x product(1 - gain/100). Assumes every saving is realised in full and overlaps "
    "nothing else; an upper bound, like the gains it combines";

// Added to the model where some gains were replayed (GainProjection's
// replayed_findings).
inline constexpr const char* kReplayedProjectionModel =
    "; the findings whose gains were replayed across the ranks' step (gain_source \"replay\") "
    "count once, by replaying all their remedies together (docs/clusters.md §3c), with the other "
    "findings of their groups";

// |pct| limited to [0, 100]; a gain that is not a number is 0.
double ClampGainPct(double pct);

// The group of time a finding id removes: "communication-wait" for the
// communication findings above, else the id itself.
std::string_view GainGroup(std::string_view id);

struct GainProjection {
  double combined_gain_pct = 0;  // 100 * (1 - remaining), in [0, 100]
  int64_t groups = 0;            // independent groups that had a gain
  int64_t withheld = 0;          // findings whose gain is withheld (not counted)
  // Findings whose gains came from replaying the ranks' step
  // (findings/replayed_gains.h): their groups count once, by the replay of
  // all of them together (|replayed_gain_pct|), one of |groups|. 0 and
  // unknown when nothing was replayed.
  int64_t replayed_findings = 0;
  std::optional<double> replayed_gain_pct;
  // The job's step (cluster mean step time, else the mean of the ranks'
  // selected steps) and what would remain of it; unknown without a step.
  std::optional<int64_t> step_ns;
  std::optional<int64_t> projected_step_ns;
};

// |findings| as ranked (gains already clamped or not: clamped here).
// |replayed_together_pct|: the replay of every finding with gain_replayed
// together; the groups of those findings count once, by it.
GainProjection ProjectGains(const std::vector<Finding>& findings, std::optional<int64_t> step_ns,
                            std::optional<double> replayed_together_pct = std::nullopt);

}  // namespace trainscope::analysis
