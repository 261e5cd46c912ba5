// Scaling efficiency across runs at several device counts (`trainscope
// health --scaling run8/ run16/ run64/`, docs/health.md): each run's
// throughput per device (the median over its logs of each log's median)
// against the run with the fewest devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/health/training_health.h"

namespace trainscope::analysis {

struct ScalingRunInput {
  std::string name;  // the run's directory
  int64_t devices = 0;
  std::vector<const RunHealth*> logs;  // one per rank log read
};

struct ScalingRow {
  std::string name;
  int64_t devices = 0;
  int64_t logs = 0;
  std::optional<double> per_device;      // in |metric|
  std::optional<double> total;           // per_device x devices
  std::optional<double> speedup;         // total over the baseline's total
  std::optional<double> efficiency_pct;  // per_device over the baseline's per_device
  std::optional<double> step_ms;         // median step time
};

struct ScalingTable {
  std::string metric;  // "tokens/s per device" | "TFLOP/s per device" | "" (none common)
  std::string baseline;
  std::vector<ScalingRow> rows;  // by device count
};

// The metric is the first every run has: the log's tokens/s per device, the
// log's TFLOP/s per device, then --model's TGS.
ScalingTable ComputeScaling(std::vector<ScalingRunInput> runs);

}  // namespace trainscope::analysis
