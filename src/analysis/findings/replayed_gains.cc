#include "analysis/findings/replayed_gains.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainscope::analysis {
namespace {

double Value(const std::vector<std::pair<std::string, double>>& values, const std::string& key) {
  for (const auto& [k, v] : values) {
    if (k == key) return v;
  }
  return -1;
}

// Each rank's saving from a fingerprint finding: its own gain (its
// instances of the chain summed) of its own step.
ReplayChange FusedChain(const Finding& f) {
  ReplayChange change;
  auto add = [&change](int32_t rank, double gain_pct, double step_ms) {
    if (rank < 0 || gain_pct <= 0 || step_ms <= 0) return;
    change.compute_saved_ns[rank] += std::llround(gain_pct / 100 * step_ms * 1e6);
  };
  if (!f.per_rank.empty()) {
    for (const RankEvidence& e : f.per_rank) {
      if (!e.gain_withheld) add(e.rank, e.estimated_gain_pct, Value(e.evidence_values, "step_ms"));
    }
  } else if (f.ranks.size() == 1) {
    add(f.ranks.front(), f.estimated_gain_pct, Value(f.evidence_values, "step_ms"));
  }
  return change;
}

// The ranks a rank finding's gain is for: each rank's own evidence, else
// the finding's one rank.
template <class Each>
void ForEachRankEvidence(const Finding& f, Each each) {
  if (!f.per_rank.empty()) {
    for (const RankEvidence& e : f.per_rank) {
      if (!e.gain_withheld) each(e.rank, e.evidence_values);
    }
  } else if (f.ranks.size() == 1) {
    each(f.ranks.front(), f.evidence_values);
  }
}

// A matmul at the step's best achieved rate for its kind (the detector's
// yardstick shape): each rank saves the time its flagged shapes lose.
ReplayChange MatmulAtYardstick(const Finding& f) {
  ReplayChange change;
  ForEachRankEvidence(f, [&change](int32_t rank, const auto& values) {
    const double lost_ms = Value(values, "lost_ms");
    if (rank >= 0 && lost_ms > 0) change.compute_saved_ns[rank] += std::llround(lost_ms * 1e6);
  });
  return change;
}

// The host's idle of |kind| removed on each rank the finding names.
ReplayChange HostIdleRemoved(const Finding& f, HostIdleKind kind) {
  ReplayChange change;
  ForEachRankEvidence(f, [&](int32_t rank, const auto&) {
    if (rank >= 0) change.host_idle_removed.emplace_back(rank, kind);
  });
  return change;
}

// Every slow link at its transport's mean bandwidth: the collectives over
// it keep slow / mean of their transfer.
ReplayChange LinksAtTransportPace(const ClusterAnalysis& cluster) {
  ReplayChange change;
  for (const SlowLink& link : cluster.slow_links) {
    if (link.src >= 0 && link.dst >= 0 && link.ratio > 0 && link.ratio < 1)
      change.links_sped_up.push_back({link.src, link.dst, link.ratio});
  }
  return change;
}

std::optional<ReplayChange> UnlessEmpty(ReplayChange change) {
  if (change.empty()) return std::nullopt;
  return change;
}

}  // namespace

std::optional<ReplayChange> RemedyAsChange(const Finding& f, const ClusterAnalysis& cluster,
                                           const FindingThresholds& thresholds) {
  if (f.gain_withheld) return std::nullopt;
  if (f.template_entry == "fingerprint") return UnlessEmpty(FusedChain(f));
  if (f.id == "slow-matmul-shape") return UnlessEmpty(MatmulAtYardstick(f));
  if (f.id == "host-bound") return UnlessEmpty(HostIdleRemoved(f, HostIdleKind::kLaunch));
  if (f.id == "input-bound") return UnlessEmpty(HostIdleRemoved(f, HostIdleKind::kDataLoader));
  if (f.id == "host-sync") return UnlessEmpty(HostIdleRemoved(f, HostIdleKind::kHostSync));
  if (f.id == "slow-link") return UnlessEmpty(LinksAtTransportPace(cluster));
  if (f.id == "straggler-rank" && !f.ranks.empty()) return ReplayChange{.at_peers_pace = f.ranks};
  if (f.id == "step-start-skew" && cluster.mean_step_time_ns > 0) {
    // Binding the ranks leaves a residual spread: the finding's own model.
    return ReplayChange{.start_spread_ns = std::llround(thresholds.skew_residual_pct / 100 *
                                                        cluster.mean_step_time_ns)};
  }
  // Overlap that brings the exposed share down to the normal band
  // (exposed_comm_normal, the detector's own target): every blocking
  // transfer keeps that share of itself.
  if (f.id == "exposed-communication") {
    const double exposed_pct = Value(f.evidence_values, "exposed_communication_pct");
    if (exposed_pct <= 0) return std::nullopt;
    return ReplayChange{.transfer_kept_share =
                            std::min(1.0, thresholds.exposed_comm_normal * 100 / exposed_pct)};
  }
  // Compute waiting for the FSDP unshard: the all-gathers prefetched.
  if (f.id == "pseudo-overlap")
    return ReplayChange{.transfers_hidden_of = {CollectiveType::kAllGather}};
  return std::nullopt;
}

void ReplayFindingGains(const StepReplay& replay, const FindingCatalog& catalog,
                        ClusterAnalysis* cluster, std::vector<Finding>* findings) {
  const auto base = static_cast<double>(replay.replayed_ns());
  CriticalPath& path = cluster->critical_path;
  const auto measured = static_cast<double>(path.end_ns - path.start_ns);
  if (base <= 0 || measured <= 0) return;
  const FindingThresholds& t = catalog.thresholds();
  // A replay that does not reproduce the measured step is no model of it.
  const double error_pct = 100 * std::abs(base - measured) / measured;
  if (error_pct > t.replay_max_error_pct) {
    path.replay_note = fmt::format(
        "the unchanged replay ({:.3f} ms) is {:.1f}% off the measured span ({:.3f} ms), more "
        "than replay_max_error_pct ({:g}%): the findings keep their own estimates",
        base / 1e6, error_pct, measured / 1e6, t.replay_max_error_pct);
    return;
  }
  const FindingEntry* entry = catalog.Find("_replayed-gain");
  size_t replayed = 0;
  ReplayChange all;
  for (Finding& f : *findings) {
    const std::optional<ReplayChange> change = RemedyAsChange(f, *cluster, t);
    if (!change) continue;
    const std::optional<int64_t> predicted = replay.Predict(*change);
    if (!predicted) continue;
    const double gain = std::max(0.0, 100 * (base - static_cast<double>(*predicted)) / base);
    if (entry != nullptr) {
      Finding values;
      values.text_values = {{"replayed_ms", base / 1e6},
                            {"predicted_ms", static_cast<double>(*predicted) / 1e6},
                            {"gain_pct", gain},
                            {"estimate_pct", f.estimated_gain_pct}};
      // fmt::format, not a literal + a temporary: GCC 12 at -O3 (the release preset) warns
      // falsely of overlapping copies there (-Wrestrict, GCC bug 105329).
      f.gain_model +=
          fmt::format(" {}", catalog.RenderPart(entry->Part("evidence"), values, nullptr));
    }
    f.estimated_gain_pct = gain;
    f.gain_replayed = true;
    path.what_if.push_back({fmt::format("the remedy of {}", f.id), *predicted, f.id});
    ++replayed;
    all.Add(*change);
  }
  if (replayed == 0) return;
  const std::optional<int64_t> predicted = replay.Predict(all);
  if (!predicted) return;
  path.findings_together_gain_pct =
      std::max(0.0, 100 * (base - static_cast<double>(*predicted)) / base);
  if (replayed > 1)
    path.what_if.push_back({"the remedies of all replayed findings together", *predicted, "all"});
}

}  // namespace trainscope::analysis
