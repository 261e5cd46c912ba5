// Straggler detection across ranks, four independent methods:
//  (a) msprof-analyze slow_rank: per collective instance the rank with the
//      shortest communication time (everyone else waited for it), kept when
//      it is an outlier: Dixon's Q-test at 99.5% for 3..100 ranks, 3-sigma
//      beyond;
//  (b) arrival order (TraceLens / HTA): per instance the rank that started
//      the collective last, and each rank's mean lateness;
//  (c) late start: per step the rank that reaches the step's first
//      collective last, when it is an outlier and late by a share of the step
//      (the methodology's step-start barrier: a late rank makes every other
//      rank wait once per step, which (a) and (b) dilute over all instances);
//  (d) least communication: per step each rank's total time in collectives,
//      the smallest when it is an outlier (msprof-analyze's slow rank by
//      rank totals: the rank that waits least is the one the others wait for);
//  (e) compute imbalance: in the compared step, the rank whose computation
//      is an outlier above the others of its pipeline stage (data-parallel
//      peers do the same work) by a share of the step.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/cluster/cluster.h"
#include "analysis/cluster/communication.h"

namespace trainscope::analysis {

// Dixon critical value at 99.5% (alpha = 0.005, one-sided) for n in
// [3, 100]; 0 outside. The ratio form switches with n as Dixon defines:
// r10 (3-7), r11 (8-10), r21 (11-13), r22 (14-100).
double DixonCritical(int n);
// Dixon's ratio for the smallest of |sorted| (ascending, size 3..100).
double DixonRatioLow(const std::vector<double>& sorted);
// True when the smallest value of |values| is an outlier: Dixon for n <= 100,
// 3-sigma beyond (below mean - 3 sigma). Needs n >= 3.
bool SmallestIsOutlier(std::vector<double> values);
// The same for the largest value.
bool LargestIsOutlier(std::vector<double> values);

// Values and origins in data/thresholds.tsv (straggler_min_*).
struct StragglerOptions {
  // A rank is a straggler by (a) when it is the flagged shortest in at least
  // this share of the tested instances (and at least min_instances times).
  double min_flag_share = 0;
  int64_t min_instances = 0;
  // By (b) when it arrives last in at least max(this, 2/n, capped at 0.9)
  // of the instances and its mean lateness exceeds min_lateness_ns.
  double min_last_share = 0;
  // ... and being last that often has a chance probability (binomial, each
  // participant equally likely last) below chance_p / ranks.
  double chance_p = 0;
  int64_t min_lateness_ns = 0;
  // By (c) and (d) when flagged in at least this share of the tested steps;
  // (c) flags a step only when the rank is late by start_late_share of it.
  double min_step_share = 0;
  double start_late_share = 0;
};

StragglerOptions StragglerOptionsOf(const FindingThresholds& thresholds);

// One rank's computation in the compared step (its time budget), with the
// group whose ranks do the same work (the pipeline stage; 0 when unknown).
struct RankComputation {
  int32_t rank = -1;
  int32_t group = 0;
  int64_t computation_ns = 0;
};

// P(X >= k) for X ~ Binomial(n, p): how likely a rank that is last with
// probability p per instance is last k or more times in n instances.
double BinomialUpperTail(int64_t n, int64_t k, double p);

// Fills the five methods, the per-rank straggler columns and
// straggler_ranks of |cluster| (per_rank must already hold one row per entry
// of |ranks|, same order; mean_step_time_ns set). |ranks| holds only the
// collectives whose times are evidence: the caller leaves out those of
// steps whose device timeline is set aside (TimedCollectives). |computation|
// may be empty (method (e) then tests nothing).
void DetectStragglers(const std::vector<RankComm>& ranks, const StragglerOptions& options,
                      ClusterAnalysis* cluster,
                      const std::vector<RankComputation>& computation = {});

}  // namespace trainscope::analysis
