// Motifs and fingerprint instances of one step of one rank: tokenise each
// compute stream, match the fingerprint library, collapse each instance to
// one token and mine the repeats of what remains (so a layer shows up as one
// motif whose members include its fingerprints), then measure everything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/motifs/fingerprint_attribution.h"
#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/mining_memo.h"
#include "analysis/motifs/motif_mining.h"
#include "analysis/motifs/motifs.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// One fingerprint (library row) in one step, all streams together.
struct FingerprintStepStats {
  int32_t fingerprint = -1;  // index into the library
  int64_t instances = 0;
  int64_t kernels = 0;    // member kernels of all instances (kept op excluded)
  int64_t kernel_ns = 0;  // their summed durations
  int64_t span_ns = 0;    // summed instance spans
  int64_t saving_ns = 0;  // gain_model.h
  int64_t fused_ns = 0;   // summed estimated fused time
  // Instances whose members all carry shapes (gain_model.h), and their
  // summed traffic unfused and fused.
  int64_t sized_instances = 0;
  double member_bytes = 0;
  double fused_bytes = 0;
};

struct StepMotifs {
  std::vector<Motif> motifs;  // fingerprints and mined repeats, by total time
  std::vector<FingerprintStepStats> fingerprints;
  int64_t step_ns = 0;
  int64_t launch_overhead_ns = 0;
  int64_t compute_kernels = 0;
};

struct MotifStepOptions {
  MiningOptions mining;
  size_t max_motifs = 20;
  // The rank's memo of the library's member answers (its steps share it).
  FingerprintAcceptMemo* accept_memo = nullptr;
  // The job's remembered minings (steps and ranks that repeat one stream).
  MiningMemo* mining_memo = nullptr;
};

// Sets the step's length of |motifs| (step_ns and every motif's share of the
// step) as AnalyzeStepMotifs with |step_ns| would have set it: the motifs can
// be mined before the step's time budget is known.
void SetStepSpan(int64_t step_ns, StepMotifs* motifs);

// |step_start_ns|, |step_ns|: the step window used for positions and shares.
StepMotifs AnalyzeStepMotifs(const model::RankProfile& profile, int32_t step, int64_t step_start_ns,
                             int64_t step_ns, const FingerprintLibrary& library,
                             const HostAttributor& host, const MotifStepOptions& options = {});

}  // namespace trainscope::analysis
