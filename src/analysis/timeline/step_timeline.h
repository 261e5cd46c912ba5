// Timeline panorama of one step (methodology §2 step 3): four lanes
// (Compute, Comm, Other, Free), the idle at step start and what it waits
// for, the longest free gaps, and zoom windows on the densest region.
//
// Works on model::DeviceEvents, so it needs only device activity: Ascend
// kernel_details.csv or the kernels of a GPU trace.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/motifs/motifs.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

enum class Lane : uint8_t { kCompute = 0, kComm = 1, kOther = 2 };

// One kernel placed on the timeline; times relative to the step start.
// Strings are indices into StepTimeline::strings: a step has 10^4-10^6
// kernels but only hundreds of distinct names.
struct TimelineKernel {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  Lane lane = Lane::kCompute;
  uint32_t op_type = 0;
  uint32_t name = 0;
  uint32_t family = 0;
};

struct FreeGap {
  int64_t start_ns = 0;  // relative to the step start
  int64_t duration_ns = 0;
  std::string before;  // op type of the kernel that ended last before the gap
  std::string after;   // op type of the kernel that starts the gap's end
};

// Not whole nanoseconds: a step shorter than every configured width gets
// one window of a quarter of its span.
struct ZoomWindow {
  double width_ns = 0;
  double start_ns = 0;  // relative to the step start
  int64_t kernel_count = 0;
  // Every kernel running in the window (also one that started before it),
  // in start order; at most max_kernels_per_zoom.
  std::vector<TimelineKernel> kernels;
  // The width asked for when more kernels than the cap ran in it: the window
  // was then narrowed to the kept kernels, so nothing drawn is missing.
  // 0 when not narrowed.
  double requested_width_ns = 0;
};

// The step drawn at a fixed resolution: each lane split into |columns|
// equal columns; in each column the family with the most kernel time names
// the column, and neighbouring columns of the same family form one run.
// Computed once from every kernel of the step, so a timeline keeps a few
// hundred runs instead of 10^4-10^6 kernels (report/charts.cc draws it).
struct OverviewRun {
  int32_t first_column = 0;
  int32_t end_column = 0;  // exclusive
  uint32_t family = 0;     // index into StepTimeline::strings
  double time_ns = 0;      // kernel time of every family in the run's columns (parts of kernels)
  int64_t kernels = 0;     // kernels touching the run's columns (once per column)
};

struct ColumnRange {
  int32_t first_column = 0;
  int32_t end_column = 0;  // exclusive
};

struct TimelineOverview {
  int32_t columns = 0;
  double ns_per_column = 0;
  std::array<std::vector<OverviewRun>, 3> lanes;  // by Lane
  std::vector<ColumnRange> free;                  // columns less than half covered by any kernel
};

// The Gantt's plot width in pixels (report/charts.cc: 1100 - 70 - 20): one
// column per pixel.
inline constexpr int32_t kOverviewColumns = 1010;

// Aggregates |kernels| (times relative to the step start) in [t0_ns, t1_ns)
// into |columns| columns.
TimelineOverview AggregateColumns(const std::vector<TimelineKernel>& kernels, double t0_ns,
                                  double t1_ns, int32_t columns);

// A motif instance on the interactive timeline: times relative to the step
// start, from its first kernel's start to the latest end of its kernels.
struct TrackInstance {
  int32_t motif = 0;  // index into the step's StepDistribution::motifs
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// The host call that launched a kernel (its launcher: cudaLaunchKernel, an
// aclnn op, ...), on the interactive timeline's host-launch lane.
struct TrackLaunch {
  uint32_t kernel = 0;   // index into TimelineTrack::kernels
  int64_t start_ns = 0;  // relative to the step start (a launch can precede it)
  int64_t duration_ns = 0;
};

// Every kernel of the step, for the HTML report's interactive timeline
// (TimelineOptions::kernels; empty otherwise). A RankResult outlives its
// profile, so the timeline's per-kernel data travels here, compact: times
// relative to the step start, strings as indices into StepTimeline::strings.
struct TimelineTrack {
  std::vector<TimelineKernel> kernels;  // start order
  std::vector<int32_t> instance;        // per kernel: index into |instances|, -1 none
  std::vector<TrackInstance> instances;
  // The launches of the kernels with a launch link (a trace's host ops), by start.
  std::vector<TrackLaunch> launches;
  // Kernels of the step not kept (more than TimelineOptions::max_track_kernels:
  // the shortest are left out).
  int64_t dropped = 0;
};

struct StepTimeline {
  int32_t step = model::kNoStep;
  int64_t step_start_ns = 0;  // absolute, first kernel start of the step
  int64_t span_ns = 0;
  int64_t kernel_count = 0;  // kernels of the step
  // Lane totals as interval unions and Free = span - |union of all|.
  int64_t compute_ns = 0;
  int64_t comm_ns = 0;
  int64_t other_ns = 0;
  int64_t comm_not_overlapped_ns = 0;  // comm union minus compute union
  // Of it, send/receive (pipeline stages waiting for each other's
  // activations or gradients): p2p union minus compute union.
  int64_t p2p_not_overlapped_ns = 0;
  // Of it, all-to-all (MoE token dispatch and combine across experts).
  int64_t all_to_all_not_overlapped_ns = 0;
  // Of it, collectives of the tensor-parallel group (CollectiveGroups: the
  // group-hash suffix of HCCL op names and parallel_group_info).
  int64_t tensor_parallel_not_overlapped_ns = 0;
  int64_t free_ns = 0;
  // The idle of the compute lane at step start and the collective running then.
  int64_t step_start_idle_ns = 0;
  std::string step_start_waits_for;  // op type of the first collective, "" if none
  int64_t step_start_wait_collective_ns = 0;
  std::vector<FreeGap> longest_gaps;  // longest first
  std::vector<ZoomWindow> zooms;      // widest first, each nested in the previous
  std::string zoom_centre;            // what the zooms are centred on
  TimelineOverview overview;          // the whole step at kOverviewColumns columns
  std::vector<std::string> strings;   // op types, names and families of zoom kernels and runs
  TimelineTrack track;                // every kernel (TimelineOptions::kernels), else empty
  // False when the picture (longest_gaps, zooms, overview, strings) was not
  // computed: only the step a report shows needs one (TimelineOptions).
  bool drawn = true;
  // Why the step's device timeline is set aside (StepDistribution::
  // timeline_set_aside), "" when it is used. A set-aside timeline keeps
  // nothing: no picture, lanes or span (all 0, drawn false); the reports
  // show the step_trace_time.csv budget and say why.
  std::string set_aside;

  const std::string& Str(uint32_t index) const { return strings[index]; }
};

struct TimelineOptions {
  std::vector<int64_t> zoom_widths_ns = {40'000'000, 4'000'000, 1'000'000};
  size_t longest_gaps = 5;
  size_t max_kernels_per_zoom = 400;
  int64_t min_gap_ns = 1'000;  // gaps shorter than 1 us are not "free time" worth listing
  // False: only the lane totals and the step-start idle (what findings use);
  // no gaps, zooms or overview. A rank analyses every step, but a report
  // draws one, and the picture is most of a step's timeline work.
  bool picture = true;
  // Keep every kernel of a drawn step in StepTimeline::track (an HTML report
  // was asked for: AnalysisOptions::timeline_kernels), at most
  // |max_track_kernels| (the longest).
  bool kernels = false;
  size_t max_track_kernels = 200'000;
};

// What the zoom windows are centred on: each zoom is the window of its
// width, inside the previous one, that holds the most anchors (times
// relative to the step start), e.g. the instance starts of the top motif.
struct ZoomCentre {
  std::vector<int64_t> anchors_ns;
  std::string label;
};

// |centre| nullptr: the zooms go to the densest region of compute kernel starts.
StepTimeline ComputeStepTimeline(const model::RankProfile& profile, int32_t step,
                                 const KernelFamilies& families,
                                 const TimelineOptions& options = {},
                                 const ZoomCentre* centre = nullptr);

// Tags each kernel of |timeline|'s track with the motif instance it belongs
// to and lists the instances: an instance is the motif's length of compute
// kernels on its stream from its start (as fingerprint matching counted
// them); a kernel in a mined motif and a fingerprint is tagged with the
// fingerprint's. Then applies the track's kernel cap. No-op without a track.
void AddTrackInstances(const model::RankProfile& profile, const std::vector<Motif>& motifs,
                       size_t max_kernels, StepTimeline* timeline);

}  // namespace trainscope::analysis
