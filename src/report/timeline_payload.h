// The data of the HTML report's interactive timeline (timeline_html.cc):
// every kernel of the shown step of every rank, from the ranks'
// StepTimeline::track, as one compact JSON document. Kernels are varint
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

// The most kernels one page carries: past it each rank keeps its share, the
// longest first (the page says how many were left out). About 15 bytes a
// kernel: ~9 MB.
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
};

// Base64 (RFC 4648, padded) of |bytes|.
std::string Base64(std::string_view bytes);

// The payload: {"v":1, "step", "span", "shared_axis", "strings",
// "family_colors", "findings", "ranks":[{"rank", "offset", "span", "wait",
// "wait_for", "late", "straggler", "n", "dropped", "kernels", "nl",
// "launches", "instances", "motifs"}]}; empty when no rank has a track.
// "shared_axis" false: the ranks' step starts lie more than nine step spans
// apart (unsynchronised clocks), so each rank is drawn from its own step
// start ("offset" and "late" 0). "kernels", per kernel in start order: start
// minus the previous kernel's start, duration, lane, op type, name, family
// (string indices), motif instance + 1 (0: none), each an unsigned LEB128
// varint. "launches" ("nl" of them), by start: the first start relative to
// the step start zigzag-encoded, then start deltas; each followed by its
// kernel's index in the page and its duration.
std::string TimelinePayload(const analysis::JobAnalysis& job, size_t kernel_budget,
                            TimelinePayloadStats* stats = nullptr);

}  // namespace trainscope::report
