// The data of the HTML report's interactive timeline (timeline_html.cc):
// every kernel of every rank in the shown step and, within a budget, the
// other steps, from the ranks' StepTimeline::track, as one compact JSON
// document. Kernels are varint
// columns in base64 (7 numbers a kernel, a few bytes each) and every string
// is one entry of a shared table, so a 64-rank step of 10^5 kernels stays a
// few MB (docs/benchmarks.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/job/rank_analysis.h"

namespace trainscope::report {

// The most kernels one page carries, all steps together: past it the shown
// step's ranks each keep their share, the longest first, and other steps
// are carried only whole (the page says what was left out). About 15 bytes
// a kernel: ~9 MB.
inline constexpr size_t kTimelinePageKernels = 600'000;

struct TimelinePayloadStats {
  int64_t ranks = 0;            // ranks with a track
  int64_t kernels = 0;          // kernels in the payload
  int64_t dropped = 0;          // kernels of the step not in it (analysis cap + page budget)
  int64_t motif_instances = 0;  // motif instances in it
  int64_t launches = 0;         // host launches of its kernels
  // Ranks left out because their device timeline of the step is set aside
  // (StepTimeline::set_aside): nothing of it is drawn.
  std::vector<int32_t> set_aside_ranks;
  // The steps the page carries (the shown one and others), ascending; the
  // kernels of the others (not in |kernels|).
  std::vector<int32_t> steps;
  int64_t other_step_kernels = 0;
  // Steps with kernels kept by the analysis but not carried: the page's
  // kernel budget was spent on the shown step and the steps nearer to it.
  std::vector<int32_t> steps_left_out;
  // Steps with device events whose kernels the analysis did not keep (a
  // rank's first captured step, a warm-up, unless --step names it; a step
  // whose timeline is set aside on every rank).
  std::vector<int32_t> steps_without_track;
};

// Base64 (RFC 4648, padded) of |bytes|.
std::string Base64(std::string_view bytes);

// The payload: {"v":2, "step", "span", "shared_axis", "ranks", "other_steps",
// "kernel_budget", "steps_left_out", "steps_without_track", "strings",
// "family_colors", "findings"}. "step", "span", "shared_axis" and "ranks"
// are the shown step's (with "critical_path" when the cross-rank path is of
// that step and the ranks share one axis: [row, start, end, kind] segments,
// kind 0 work, 1 transfer, 2 late start); "other_steps" holds every other step whose kernels
// the analysis kept (AnalysisOptions::timeline_kernels), ascending, each as
// {"step", "span", "shared_axis", "ranks"}, whole and nearest the shown
// step first while the page stays within |kernel_budget| kernels in all;
// the steps past it are "steps_left_out". Each rank: {"rank", "offset",
// "span", "wait", "wait_for", "late", "straggler", "n", "dropped",
// "kernels", "nl", "launches", "instances", "motifs"}. Empty when no rank
// has a track of the shown step.
// "shared_axis" false: the ranks' step starts lie more than nine step spans
// apart (unsynchronised clocks), so each rank is drawn from its own step
// start ("offset" and "late" 0). "kernels", per kernel in start order: start
// minus the previous kernel's start, duration, lane, op type, name, family
// (string indices), motif instance + 1 (0: none), each an unsigned LEB128
// varint. "launches" ("nl" of them), by start: the first start relative to
// the step start zigzag-encoded, then start deltas; each followed by its
// kernel's index in the page and its duration. When the shown step alone
// holds more than |kernel_budget| kernels, each rank keeps its share of it,
// the longest, and no other step is carried.
std::string TimelinePayload(const analysis::JobAnalysis& job, size_t kernel_budget,
                            TimelinePayloadStats* stats = nullptr);

}  // namespace trainscope::report
