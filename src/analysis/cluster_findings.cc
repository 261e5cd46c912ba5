#include "analysis/cluster_findings.h"

#include <fmt/format.h>

#include <algorithm>

namespace trainscope::analysis {
namespace {

double Pct(double part, double whole) { return whole > 0 ? part / whole * 100.0 : 0; }

std::string RankList(const std::vector<int32_t>& ranks) {
  std::string s;
  for (int32_t r : ranks) s += fmt::format("{}{}", s.empty() ? "" : ", ", r);
  return s;
}

void Straggler(const ClusterAnalysis& c, std::vector<Finding>* out) {
  if (c.straggler_ranks.empty()) return;
  Finding f;
  f.id = "straggler-rank";
  f.title = fmt::format("rank(s) {} hold back every collective", RankList(c.straggler_ranks));
  f.ranks = c.straggler_ranks;
  double lateness = 0, collectives = 0;
  int64_t flags = 0, last = 0;
  for (const RankClusterStats& r : c.per_rank) {
    if (std::find(f.ranks.begin(), f.ranks.end(), r.rank) == f.ranks.end()) continue;
    lateness = std::max(lateness, r.mean_lateness_us);
    collectives = std::max(collectives, static_cast<double>(r.collectives));
    flags += r.shortest_flags;
    last += r.last_arrivals;
  }
  f.occurrences = static_cast<int64_t>(collectives);
  f.evidence = fmt::format(
      "shortest-communication (msprof-analyze) flags rank(s) [{}] in {} of {} tested collectives; "
      "last-arrival flags [{}]: last in {} of {} instances, on average {:.0f} us after the median "
      "rank; step time spread {:.1f}%",
      RankList(c.by_shortest_comm.ranks), flags, c.by_shortest_comm.instances_tested,
      RankList(c.by_last_arrival.ranks), last, c.by_last_arrival.instances_tested, lateness,
      c.step_time_spread_pct);
  f.evidence_values = {
      {"shortest_flags", static_cast<double>(flags)},
      {"instances_tested_a", static_cast<double>(c.by_shortest_comm.instances_tested)},
      {"last_arrivals", static_cast<double>(last)},
      {"instances_tested_b", static_cast<double>(c.by_last_arrival.instances_tested)},
      {"mean_lateness_us", lateness},
      {"step_time_spread_pct", c.step_time_spread_pct}};
  f.root_cause =
      "the rank computes (or dispatches) slower than its peers, so every other rank waits for it "
      "inside each collective: a slower or throttled device, host-side contention on its node, "
      "or more work assigned to it (uneven data or pipeline stages)";
  f.remedy =
      "compare the straggler's compute kernels with a fast rank (trainscope compare / "
      "msprof-analyze "
      "compare_tools); check its device clock and temperature (npu-smi / nvidia-smi), CPU binding "
      "(CPU_AFFINITY_CONF=1 or numactl), and the data balance of its batches";
  f.estimated_gain_pct = std::min(20.0, Pct(lateness * collectives, c.mean_step_time_us));
  f.gain_model =
      "if the straggler ran at the median rank's pace each of its collectives would start its mean "
      "lateness earlier on every rank: mean lateness x collectives per step / mean step time "
      "(an upper bound: lateness also carries queueing behind earlier collectives; capped at 20%)";
  out->push_back(f);
}

void StepStartSkew(const ClusterAnalysis& c, const ClusterFindingThresholds& t,
                   std::vector<Finding>* out) {
  const double wait_pct = Pct(c.mean_step_start_wait_us, c.mean_step_time_us);
  // Binding leaves a residual spread (70.2 ms in the methodology's case);
  // only the spread above it is what binding is known to recover.
  const double excess = c.first_kernel_skew_us > t.residual_skew_us
                            ? (c.first_kernel_skew_us - t.residual_skew_us) / c.first_kernel_skew_us
                            : 0.0;
  const double gain = wait_pct * excess;
  if (wait_pct < t.skew_wait_pct || gain < t.skew_min_gain_pct) return;
  Finding f;
  f.id = "step-start-skew";
  f.title =
      fmt::format("ranks start each step up to {:.1f} ms apart and wait at the first collective",
                  c.first_kernel_skew_us / 1000.0);
  f.occurrences = 1;
  f.evidence = fmt::format(
      "first-kernel start spread {:.1f} ms across {} ranks in step {}; the step-start collective "
      "lasts {:.1f} ms on average (max {:.1f} ms), {:.1f}% of the {:.1f} ms step",
      c.first_kernel_skew_us / 1000.0, c.ranks, c.step, c.mean_step_start_wait_us / 1000.0,
      c.max_step_start_wait_us / 1000.0, wait_pct, c.mean_step_time_us / 1000.0);
  f.evidence_values = {{"first_kernel_skew_us", c.first_kernel_skew_us},
                       {"mean_step_start_wait_us", c.mean_step_start_wait_us},
                       {"max_step_start_wait_us", c.max_step_start_wait_us},
                       {"step_start_wait_pct", wait_pct}};
  f.root_cause =
      "host-side skew: the processes and threads of the ranks drift across NUMA nodes and cores, "
      "so ranks reach the step at different times and the early ones idle in the first collective";
  f.remedy =
      "bind each rank to the cores of its NUMA node: CPU_AFFINITY_CONF=1 (torch_npu) or "
      "numactl --cpunodebind=<node> --membind=<node>; keep data loader workers on the same node";
  f.estimated_gain_pct = gain;
  f.gain_model = fmt::format(
      "binding left a residual spread of {:.1f} ms in the methodology's case (104.5 -> 70.2 ms); "
      "gain = mean step-start wait / mean step time x (spread - residual) / spread",
      t.residual_skew_us / 1000);
  out->push_back(f);
}

void PseudoOverlap(const ClusterAnalysis& c, const ClusterFindingThresholds& t,
                   std::vector<Finding>* out) {
  double sum = 0;
  int64_t count = 0;
  Finding f;
  // Behind a straggler every other rank idles in its collectives: that is
  // the straggler's cost, so only the stragglers' own waits count then.
  auto counted = [&c](int32_t rank) {
    return c.straggler_ranks.empty() ||
           std::find(c.straggler_ranks.begin(), c.straggler_ranks.end(), rank) !=
               c.straggler_ranks.end();
  };
  for (const RankClusterStats& r : c.per_rank) {
    if (!counted(r.rank)) continue;
    const bool repeated = r.pseudo_overlap_count >= t.pseudo_overlap_min_count &&
                          static_cast<double>(r.pseudo_overlap_count) >=
                              t.pseudo_overlap_min_share * static_cast<double>(r.all_gathers);
    if (!repeated) continue;
    sum += r.pseudo_overlap_us;
    count += r.pseudo_overlap_count;
    f.ranks.push_back(r.rank);
  }
  const double n = static_cast<double>(std::max<size_t>(
      1, c.straggler_ranks.empty() ? c.per_rank.size() : c.straggler_ranks.size()));
  const double mean_us = sum / n;
  const double pct = Pct(mean_us, c.mean_step_time_us);
  if (pct < t.pseudo_overlap_pct || f.ranks.empty()) return;
  if (f.ranks.size() == c.per_rank.size()) f.ranks.clear();  // job-wide
  f.id = "pseudo-overlap";
  f.title = "compute idles while the all-gathers it depends on run on another stream";
  f.occurrences = count;
  f.evidence = fmt::format(
      "{:.0f} all-gather waits per rank in step {}: compute idle {:.1f} ms per rank ({:.1f}% of "
      "the "
      "step) while an all-gather runs, resuming within 50 us of its end",
      static_cast<double>(count) / n, c.step, mean_us / 1000.0, pct);
  f.evidence_values = {{"pseudo_overlap_us_per_rank", mean_us},
                       {"pseudo_overlap_pct", pct},
                       {"waits_per_rank", static_cast<double>(count) / n}};
  f.root_cause =
      "the FSDP unshard all-gather is issued on a separate stream only "
      "when its layer is reached, so the compute stream has nothing to run until it ends: it "
      "looks overlapped but is not";
  f.remedy =
      "prefetch: FSDP2 forward/backward prefetch (set_modules_to_forward_prefetch / "
      "set_modules_to_backward_prefetch, or MindSpeed's prefetch options) so the unshard runs "
      "one layer ahead; or issue/wait the unshard on the compute stream to drop the per-stream "
      "memory pool";
  f.estimated_gain_pct = pct;
  f.gain_model =
      "a prefetched all-gather hides behind the previous layer's compute: gain = the "
      "compute idle behind all-gathers / mean step time";
  out->push_back(f);
}

void SlowLinks(const ClusterAnalysis& c, std::vector<Finding>* out) {
  if (c.slow_links.empty()) return;
  const SlowLink* worst = &c.slow_links.front();
  std::vector<int32_t> ranks;
  for (const SlowLink& l : c.slow_links) {
    if (l.ratio < worst->ratio) worst = &l;
    for (int32_t r : {l.src, l.dst}) {
      if (std::find(ranks.begin(), ranks.end(), r) == ranks.end()) ranks.push_back(r);
    }
  }
  std::sort(ranks.begin(), ranks.end());
  double exposed = 0;
  for (const RankClusterStats& r : c.per_rank) exposed += r.exposed_comm_us;
  const double exposed_pct = Pct(
      exposed / static_cast<double>(std::max<size_t>(1, c.per_rank.size())), c.mean_step_time_us);
  Finding f;
  f.id = "slow-link";
  f.title =
      fmt::format("{} link(s) run below 20% of their transport's bandwidth", c.slow_links.size());
  f.ranks = ranks;
  f.occurrences = static_cast<int64_t>(c.slow_links.size());
  f.evidence = fmt::format(
      "worst: rank {} -> {} over {} at {:.2f} GB/s vs {:.2f} GB/s average ({:.0f}%), reported by "
      "rank {}; {} of {} links below 20%",
      worst->src, worst->dst, worst->transport, worst->bandwidth_gbps, worst->transport_mean_gbps,
      worst->ratio * 100, worst->reporting_rank, c.slow_links.size(), c.links_checked);
  f.evidence_values = {{"slow_links", static_cast<double>(c.slow_links.size())},
                       {"links_checked", static_cast<double>(c.links_checked)},
                       {"worst_bandwidth_gbps", worst->bandwidth_gbps},
                       {"transport_mean_gbps", worst->transport_mean_gbps},
                       {"worst_ratio", worst->ratio}};
  f.root_cause =
      "a degraded link (cable, port, optics, PCIe/HCCS lane) or a mis-routed/contended "
      "path between these ranks; ring and tree collectives run at the slowest link's pace";
  f.remedy =
      "check the node's links: hccn_tool -i <dev> -link -g / -net_health (Ascend) or "
      "nvidia-smi nvlink -s / ibstat (GPU), run hccl_test / nccl-tests between the two ranks, and "
      "review HCCL_* settings (HCCL_INTRA_ROCE_ENABLE, HCCL_INTRA_PCIE_ENABLE, HCCL_BUFFSIZE, "
      "HCCL_ALGO)";
  f.estimated_gain_pct = exposed_pct * (1.0 - worst->ratio);
  f.gain_model =
      "upper bound: ring collectives move at the slowest link's pace, so at most the "
      "exposed communication share x (1 - slow/average bandwidth) is recovered";
  out->push_back(f);
}

void Fragmented(const ClusterAnalysis& c, const ClusterFindingThresholds& t,
                std::vector<Finding>* out) {
  double small = 0, small_us = 0, comm_us = 0, exposed_us = 0;
  for (const RankClusterStats& r : c.per_rank) {
    small += static_cast<double>(r.small_collectives);
    small_us += r.small_comm_us;
    comm_us += r.comm_us;
    exposed_us += r.exposed_comm_us;
  }
  const double n = static_cast<double>(std::max<size_t>(1, c.per_rank.size()));
  const double per_rank = small / n;
  const double share = comm_us > 0 ? small_us / comm_us : 0;
  if (per_rank < t.fragmented_min_slices || share < t.fragmented_min_share) return;
  Finding f;
  f.id = "fragmented-communication";
  f.title = "communication runs in many small slices";
  f.occurrences = static_cast<int64_t>(per_rank);
  f.evidence = fmt::format(
      "{:.0f} collectives per rank in step {} are < 1 ms (and < 50 KB where the size is known); "
      "they take {:.0f}% of the communication time",
      per_rank, c.step, share * 100);
  f.evidence_values = {{"small_collectives_per_rank", per_rank},
                       {"small_share", share},
                       {"small_comm_us_per_rank", small_us / n}};
  f.root_cause =
      "gradients/parameters are communicated tensor by tensor or in small buckets: "
      "per-collective launch and synchronisation latency dominates and compute "
      "cannot hide it";
  f.remedy =
      "bucket the collectives: larger DDP bucket_cap_mb, FSDP wrapping of bigger units, "
      "Megatron/MindSpeed overlap-grad-reduce with larger buckets, coalesced collectives";
  const double exposed_share = comm_us > 0 ? exposed_us / comm_us : 0;
  f.estimated_gain_pct = 0.5 * Pct(small_us / n * exposed_share, c.mean_step_time_us);
  f.gain_model =
      "assumes bucketing halves the latency-bound time of the small slices, counted "
      "only for the exposed part of communication";
  out->push_back(f);
}

}  // namespace

void AddClusterFindings(const ClusterAnalysis& cluster, std::vector<Finding>* findings,
                        const ClusterFindingThresholds& t) {
  if (!cluster.present || cluster.mean_step_time_us <= 0) return;
  Straggler(cluster, findings);
  StepStartSkew(cluster, t, findings);
  PseudoOverlap(cluster, t, findings);
  SlowLinks(cluster, findings);
  Fragmented(cluster, t, findings);
}

}  // namespace trainscope::analysis
