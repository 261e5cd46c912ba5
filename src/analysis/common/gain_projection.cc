#include "analysis/common/gain_projection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace trainscope::analysis {

double ClampGainPct(double pct) {
  if (std::isnan(pct)) return 0;
  return std::clamp(pct, 0.0, 100.0);
}

std::string_view GainGroup(std::string_view id) {
  // Each removes (part of) the time the compute stream waits for
  // communication: the step's exposed communication.
  static constexpr std::string_view kCommunicationWait[] = {
      "exposed-communication", "step-start-skew", "straggler-rank",
      "pseudo-overlap",        "slow-link",       "fragmented-communication"};
  for (std::string_view wait : kCommunicationWait) {
    if (id == wait) return "communication-wait";
  }
  // Each removes (part of) the device's free time in the step.
  for (std::string_view idle : {"host-bound", "host-sync", "launch-blocking", "dynamic-shape"}) {
    if (id == idle) return "device-idle";
  }
  // An imbalance between stages is part of what the stages wait for in
  // send/receive.
  if (id == "pipeline-bubble" || id == "stage-imbalance") return "pipeline-wait";
  // A slow matmul shape's lost time is part of the dominant operator's time
  // above its threshold when matmul is that operator.
  if (id == "dominant-operator" || id == "slow-matmul-shape") return "operator-time";
  return id;
}

GainProjection ProjectGains(const std::vector<Finding>& findings, std::optional<int64_t> step_ns,
                            std::optional<double> replayed_together_pct) {
  // A group with a replayed member counts through the replay of all
  // replayed findings together: its other members describe time the
  // replayed remedy already removes (or leaves by construction).
  std::set<std::string, std::less<>> replayed_groups;
  if (replayed_together_pct) {
    for (const Finding& f : findings) {
      if (f.gain_replayed) replayed_groups.insert(std::string(GainGroup(f.id)));
    }
  }
  std::map<std::string, double, std::less<>> largest;  // per group
  int64_t withheld = 0;
  int64_t replayed = 0;
  for (const Finding& f : findings) {
    if (f.gain_withheld) ++withheld;
    const std::string_view group = GainGroup(f.id);
    if (replayed_groups.contains(group)) {
      replayed += f.gain_replayed ? 1 : 0;
      continue;
    }
    const double gain = ClampGainPct(f.estimated_gain_pct);
    if (gain <= 0) continue;
    double& g = largest[std::string(group)];
    g = std::max(g, gain);
  }
  double remaining = 1.0;
  for (const auto& [group, gain] : largest) remaining *= 1.0 - gain / 100.0;
  GainProjection p;
  p.groups = static_cast<int64_t>(largest.size());
  if (!replayed_groups.empty()) {
    p.replayed_findings = replayed;
    p.replayed_gain_pct = ClampGainPct(*replayed_together_pct);
    remaining *= 1.0 - *p.replayed_gain_pct / 100.0;
    ++p.groups;
  }
  p.combined_gain_pct = ClampGainPct(100.0 * (1.0 - remaining));
  p.withheld = withheld;
  if (step_ns && *step_ns > 0) {
    p.step_ns = *step_ns;
    p.projected_step_ns =
        static_cast<int64_t>(std::llround(static_cast<double>(*step_ns) * remaining));
  }
  return p;
}

}  // namespace trainscope::analysis
