// What the exports add to one rank's device events, computed while its
// profile is alive: each event's family and the fingerprint instance it
// belongs to, the extent of every motif instance, the device's idle gaps and
// the pseudo-overlap windows of every step. Plain data, freed with the
// rank's export fragment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cluster/communication.h"
#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "model/rank_profile.h"

namespace trainscope::exports {

struct MotifInstance {
  int32_t step = model::kNoStep;
  int32_t motif = 0;  // index into that step's StepDistribution::motifs
  int32_t index = 0;  // instance number within the motif, from 0
  int32_t stream = model::kNoStream;
  int64_t start_ns = 0;   // absolute: first kernel start
  int64_t end_ns = 0;     // absolute: last kernel end (the latest end of its kernels)
  int64_t kernels = 0;    // kernels found for the instance (the motif's length unless cut)
  int64_t kernel_ns = 0;  // summed kernel time
};

struct TimeWindow {
  int32_t step = model::kNoStep;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct RankTracks {
  std::vector<uint32_t> family;          // per DeviceEvents row: index into FamilyRules::families()
  std::vector<int32_t> instance;         // per row: index into |instances| of its fingerprint
                                         // instance (else of a mined motif's), -1 none
  std::vector<MotifInstance> instances;  // step order, then motif, then instance
  std::vector<TimeWindow> idle_gaps;     // device idle inside each step, >= min_gap_ns
  std::vector<analysis::PseudoOverlapWindow> pseudo_overlap;
  analysis::RankComm comm;  // collectives with their windows' ops
};

// |min_gap_ns|: shorter idle is not listed (the timeline's TimelineOptions).
RankTracks BuildRankTracks(const model::RankProfile& profile, const analysis::RankResult& result,
                           const analysis::FamilyRules& rules,
                           const analysis::CommOptions& comm_options, int64_t min_gap_ns);

}  // namespace trainscope::exports
