// Which inputs form one run. Ranks are combined into one job only when they
// can be the same capture of the same training run; inputs that cannot be
// (the same rank claimed twice, capture windows apart, different versions,
// world sizes or devices) form separate runs, and the job analyses one of
// them and names the others (docs/clusters.md, "Runs").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

// What a loaded rank says about the run it belongs to. Plain data: it is
// taken from the profile before the profile is freed.
struct RunIdentity {
  int32_t rank = -1;
  std::string source;
  std::string torch_npu_version;  // "" = unknown
  std::string cann_version;       // "" = unknown
  std::string device;             // the trace's first device name; "" = unknown
  std::optional<int32_t> world_size;
  // The capture window: first start and last end of the rank's device
  // events and host ops, absolute (a Kineto trace's baseTimeNanoseconds
  // added). Unset when the profile has no timed event.
  std::optional<int64_t> first_ns;
  std::optional<int64_t> last_ns;
};

RunIdentity RunIdentityOf(const model::RankProfile& profile);

// One run: its members as indices into the identities given to GroupRuns,
// in input order.
struct RunGroup {
  std::vector<size_t> members;
};

// Inputs in order; each joins the first run it is compatible with (WhyApart
// returns "" for it), else starts a new run. One coherent job is one run.
std::vector<RunGroup> GroupRuns(const std::vector<RunIdentity>& inputs);

// Why |input| cannot belong to the run of |members| (indices into
// |inputs|): the first reason found, as a sentence part ("rank 0 is claimed
// by both a and b"), or "" when it can.
// Rule for capture windows: two captures of one run overlap; clocks of
// different hosts and profilers started a little apart are allowed a gap of
// up to the shorter capture's length (a capture holds at least one step, so
// this is at least one step). A larger gap means another capture.
std::string WhyApart(const RunIdentity& input, const std::vector<size_t>& members,
                     const std::vector<RunIdentity>& inputs);

// One run of the inputs when they form more than one (run_grouping.h).
struct RunSummary {
  int32_t number = 0;  // 1-based, in input order
  bool analysed = false;
  std::vector<int32_t> ranks;        // input order
  std::vector<std::string> sources;  // the same order
  std::string why_apart;             // why it is not part of the analysed run; "" for that run
};

// The run a job analyses: the one with the most ranks, the earliest input
// among equals.
size_t AnalysedRun(const std::vector<RunGroup>& runs);

// GroupRuns, AnalysedRun and the summaries: |kept| are the inputs (indices)
// of the analysed run, in input order; |runs| is empty when there is one
// run, else one summary per run.
struct RunSelection {
  std::vector<size_t> kept;
  std::vector<RunSummary> runs;
};
RunSelection SelectRun(const std::vector<RunIdentity>& inputs);
// The same with the run to analyse chosen by the user (--run N, 1-based, in
// input order) instead of the largest; an error naming how many runs there
// are when N is not one of them.
Result<RunSelection> SelectRun(const std::vector<RunIdentity>& inputs,
                               std::optional<int32_t> requested);

}  // namespace trainscope::analysis
