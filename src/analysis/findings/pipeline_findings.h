// Findings of a pipeline-parallel job across its stages: the slowest stage
// sets the pace of every micro-batch.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/common/finding.h"
#include "analysis/common/findings_catalog.h"

namespace trainscope::analysis {

// One rank's computation in the compared step and its pipeline stage.
struct StageComputation {
  int32_t rank = -1;
  int32_t stage = -1;
  int64_t computation_ns = 0;  // the time budget's computation
  int64_t step_ns = 0;         // the budget's step
};

// stage-imbalance: the stages' mean computation differs by at least
// stage_imbalance_pct of the mean step. Needs two or more stages with a
// budget; adds nothing otherwise. The finding is data (RenderFindings).
void AddStageImbalance(const std::vector<StageComputation>& ranks, const FindingThresholds& t,
                       std::vector<Finding>* out);

}  // namespace trainscope::analysis
