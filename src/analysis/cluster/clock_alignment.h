#pragma once
// Clock alignment across hosts (docs/clusters.md §0b). Ranks on different
// hosts read different clocks, micro- to milliseconds apart, and every
// cross-rank conclusion (late start, last arrival, skew) reads those clocks
// against each other. A collective completes at one true moment on all of
// its participants however late each arrived, so the ends of many
// collectives measure each host's offset; a late rank moves its starts, not
// the common end. Estimated per host (the ranks of one host share a clock),
// robustly (medians over instances), and applied before any cross-rank
// method.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/cluster/communication.h"

namespace trainscope::analysis {

// The host a rank's profile was written on, from the name the profiler gave
// its output: torch_npu's `{hostname}_{pid}_{timestamp}_ascend_pt` and
// torch's tensorboard_trace_handler `{hostname}_{pid}.{ms}.pt.trace.json`
// (worker_name defaults to `{hostname}_{pid}` in both). "" when the path
// follows neither (a renamed file says nothing about its host).
std::string HostOfProfilePath(std::string_view path);

struct HostClock {
  std::string host;
  std::vector<int32_t> ranks;
  // This host's clock minus the reference host's: the median, over the
  // collective instances both ran, of the difference of their ends (each
  // host's end: the median over its ranks). nullopt when it shares no
  // instance with the reference host.
  std::optional<int64_t> offset_ns;
  int64_t instances = 0;  // the instances the median is over
  // The spread of one instance's difference (sigma ~ 1.4826 x the median
  // absolute deviation of the differences from their median).
  double jitter_ns = 0;
  // |offset_ns| stands out of the jitter (more than 3 sigma, or nonzero
  // when the differences agree exactly) and subtracting it narrows the
  // ends' spread. Only then is it applied: hosts that share one clock (or
  // one host split by a name that only looks like {host}_{pid}) measure
  // noise, and moving their ranks by it would add noise.
  bool applied = false;
};

struct ClockAlignment {
  // Two or more hosts known and collectives to align them by.
  bool estimated = false;
  // Some host's offset was subtracted from its ranks' collective and step
  // times (HostClock::applied).
  bool applied = false;
  std::string reference_host;  // the host with the most ranks (offset 0)
  std::vector<HostClock> hosts;
  // The median, over instances seen by two or more ranks, of the spread of
  // their ends (latest - earliest), before and after alignment; nullopt
  // when no instance has two ranks.
  std::optional<int64_t> end_spread_before_ns;
  std::optional<int64_t> end_spread_after_ns;
  int64_t instances = 0;  // the instances the spreads are over
  // Why nothing was estimated or applied, or what was left ("" when every
  // other host's offset was applied).
  std::string note;
};

// Estimates each host's offset from the ends of the collectives that
// complete together on every participant (all-reduce, all-gather,
// reduce-scatter, all-to-all) and subtracts it from every time in |comm|
// (ops' starts, steps' first start and last end). |hosts|[i]: rank i's host
// (|comm|'s order), "" unknown. Nothing is moved unless every rank's host
// is known and there are two hosts or more.
ClockAlignment AlignClocks(const std::vector<std::string>& hosts, std::vector<RankComm>* comm);

}  // namespace trainscope::analysis
