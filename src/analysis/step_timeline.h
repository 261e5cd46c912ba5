// Timeline panorama of one step (methodology §2 step 3): four lanes
// (Compute, Comm, Other, Free), the idle at step start and what it waits
// for, the longest free gaps, and zoom windows on the densest region.
//
// Works on model::KernelTable, so it needs only device activity: Ascend
// kernel_details.csv or the kernels of a GPU trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/family_rules.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

enum class Lane : uint8_t { kCompute = 0, kComm = 1, kOther = 2 };

// One kernel placed on the timeline; times relative to the step start (us).
// Strings are indices into StepTimeline::strings: a step has 10^4-10^6
// kernels but only hundreds of distinct names.
struct TimelineKernel {
  double start_us = 0;
  double duration_us = 0;
  Lane lane = Lane::kCompute;
  uint32_t op_type = 0;
  uint32_t name = 0;
  uint32_t family = 0;
};

struct FreeGap {
  double start_us = 0;  // relative to the step start
  double duration_us = 0;
  std::string before;  // op type of the kernel that ended last before the gap
  std::string after;   // op type of the kernel that starts the gap's end
};

struct ZoomWindow {
  double width_us = 0;
  double start_us = 0;  // relative to the step start
  int64_t kernel_count = 0;
  std::vector<TimelineKernel> kernels;  // every kernel starting in the window (capped)
  bool truncated = false;
};

struct StepTimeline {
  int32_t step = model::kNoStep;
  int64_t step_start_ns = 0;  // absolute, first kernel start of the step
  double span_us = 0;
  // Lane totals as interval unions (us) and Free = span - |union of all|.
  double compute_us = 0;
  double comm_us = 0;
  double other_us = 0;
  double comm_not_overlapped_us = 0;  // comm union minus compute union
  double free_us = 0;
  // The idle of the compute lane at step start and the collective running then.
  double step_start_idle_us = 0;
  std::string step_start_waits_for;  // op type of the first collective, "" if none
  double step_start_wait_collective_us = 0;
  std::vector<FreeGap> longest_gaps;  // longest first
  std::vector<ZoomWindow> zooms;      // widest first, each nested in the previous
  std::string zoom_centre;            // what the zooms are centred on
  // Every kernel of the step, in start order (for pictures). Kernels are
  // aggregated by the report where a picture cannot show them anyway.
  std::vector<TimelineKernel> kernels;
  std::vector<std::string> strings;  // op types, names and families of |kernels|

  const std::string& Str(uint32_t index) const { return strings[index]; }
};

struct TimelineOptions {
  std::vector<double> zoom_widths_us = {40'000, 4'000, 1'000};
  size_t longest_gaps = 5;
  size_t max_kernels_per_zoom = 400;
  int64_t min_gap_ns = 1'000;  // gaps shorter than 1 us are not "free time" worth listing
};

StepTimeline ComputeStepTimeline(const model::RankProfile& profile, int32_t step,
                                 const KernelFamilies& families,
                                 const TimelineOptions& options = {});

// (Re)builds the nested zoom windows: each is the window of its width, inside
// the previous one, that holds the most |anchors_us| (times relative to the
// step start), e.g. the instance starts of the costliest motif.
void BuildZooms(StepTimeline* timeline, std::vector<double> anchors_us,
                const std::string& centred_on, const TimelineOptions& options = {});

}  // namespace trainscope::analysis
