// The cluster section: per-rank table, both straggler methods side by side,
// collectives, slow links (text and JSON).
#include <fmt/format.h>

#include <algorithm>

#include "core/safe_text.h"
#include "report/sections.h"
#include "report/text_report.h"
#include "report/text_table.h"
#include "report/units.h"

namespace trainscope::report {
namespace {

std::string Ranks(const std::vector<int32_t>& ranks) {
  if (ranks.empty()) return "none";
  std::string s;
  for (int32_t r : ranks) s += fmt::format("{}{}", s.empty() ? "" : ", ", r);
  return s;
}

// Text tables stay readable for big jobs: the slowest/latest rows first, capped.
constexpr size_t kMaxTextRows = 16;

void WriteMethod(JsonWriter& w, const analysis::StragglerMethod& m) {
  w.BeginObject();
  w.Field("id", m.id);
  w.Field("rule", m.rule);
  w.Field("instances_tested", m.instances_tested);
  w.Key("ranks").BeginArray();
  for (int32_t r : m.ranks) w.Int(r);
  w.EndArray();
  w.Key("scores").BeginArray();
  for (const auto& [rank, score] : m.scores) {
    w.BeginObject().Field("rank", rank).Field("score", score).EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// "8", "2-8" or "n/a": the group sizes of a type's calls.
std::string GroupSizes(const analysis::CollectiveTypeStats& s) {
  if (s.group_size_max <= 0) return "n/a";
  if (s.group_size_min == s.group_size_max) return fmt::format("{}", s.group_size_max);
  return fmt::format("{}-{}", s.group_size_min, s.group_size_max);
}

// What a group-size source means, for the line under the table.
const char* GroupSizeSourceText(analysis::GroupSizeSource source) {
  switch (source) {
    case analysis::GroupSizeSource::kRecorded:
      return "the op's own record (Group size / Process Group Ranks / rank_size)";
    case analysis::GroupSizeSource::kParallelGroups:
      return "profiler_metadata.json parallel_group_info (the group's global_ranks)";
    case analysis::GroupSizeSource::kLinks:
      return "communication_matrix.json (largest group-local rank + 1: a lower bound)";
    case analysis::GroupSizeSource::kUnknown:
      break;
  }
  return "not in the export";
}

// Count and total are over every rank's calls of every step; the mean, the
// message and the bandwidths are per call (docs/clusters.md §1).
std::string CollectivesText(const std::vector<analysis::CollectiveTypeStats>& rows, int width) {
  std::string out =
      "  collectives: count and total over all ranks, all steps; mean, message and bandwidth "
      "per call\n";
  const std::vector<TextColumn> columns = {
      {.header = "collective", .left = true, .elastic = true, .min_width = 14},
      {.header = "count", .drop_order = 2},
      {.header = "calls"},
      {.header = "total ms"},
      {.header = "mean µs", .drop_order = 3},
      {.header = "msg MB", .drop_order = 4},
      {.header = "n", .drop_order = 5},
      {.header = "algbw GB/s", .drop_order = 1},
      {.header = "busbw GB/s"},
      {.header = "small", .drop_order = 6}};
  std::vector<std::vector<std::string>> cells;
  analysis::GroupSizeSource weakest = analysis::GroupSizeSource::kUnknown;
  int64_t unknown = 0;
  int64_t untimed = 0;
  for (const auto& s : rows) {
    const std::string algbw = s.bandwidth_known ? fmt::format("{:.2f}", s.algbw_gbps) : "n/a";
    const std::string busbw = s.busbw_known ? fmt::format("{:.2f}", s.busbw_gbps) : "n/a";
    const std::string mb = s.mean_bytes > 0 ? fmt::format("{:.3f}", s.mean_bytes / 1e6) : "n/a";
    const bool timed = s.timed_count > 0;
    cells.push_back({TerminalSafe(s.type), std::to_string(s.count), std::to_string(s.instances),
                     timed ? fmt::format("{:.1f}", Ms(s.total_ns)) : "n/a",
                     timed ? fmt::format("{:.1f}", MeanUs(s.total_ns, s.timed_count)) : "n/a", mb,
                     GroupSizes(s), algbw, busbw, timed ? std::to_string(s.small_count) : "n/a"});
    untimed += s.count - s.timed_count;
    weakest = std::max(weakest, s.group_size_source);
    unknown += s.group_size_unknown;
  }
  TextTableOptions table;
  table.width = width;
  table.gap = 2;
  out += RenderTextTable(columns, cells, table);
  if (untimed > 0)
    out += fmt::format(
        "  {} calls read off a set-aside device timeline: counted, their times left out of total, "
        "mean, bandwidth and small\n",
        untimed);
  if (weakest != analysis::GroupSizeSource::kUnknown)
    out += fmt::format("  group size n from {}\n", GroupSizeSourceText(weakest));
  if (unknown > 0) {
    out += fmt::format(
        "  {} calls' group size is not in the export: their busbw is n/a (not computed from the "
        "ranks present)\n",
        unknown);
  }
  return out;
}

// One line when the hosts are known (else the JSON's note says why not):
// the offsets applied (the first six) and how many hosts were left as
// they are.
std::string ClockAlignmentText(const analysis::ClockAlignment& clock) {
  if (!clock.estimated) return {};
  std::string offsets;
  int64_t applied = 0;
  for (const analysis::HostClock& host : clock.hosts) {
    if (!host.applied) continue;
    if (++applied > 6) continue;
    offsets += fmt::format("{}{} {:+.3f} ms ({} ends)", offsets.empty() ? "" : ", ",
                           TerminalSafe(host.host), Ms(*host.offset_ns), host.instances);
  }
  if (applied > 6) offsets += fmt::format(" and {} more", applied - 6);
  auto spread = [](const std::optional<int64_t>& ns) {
    return ns ? FormatDurationNs(static_cast<double>(*ns)) : std::string("n/a");
  };
  const auto others = static_cast<int64_t>(clock.hosts.size()) - 1 - applied;
  return fmt::format(
      "  clocks: {} hosts against {}: {}{}; collective ends spread {} (was {}){}{}\n",
      clock.hosts.size(), TerminalSafe(clock.reference_host),
      applied > 0 ? "offsets applied before the methods below: " + offsets : "no offset applied",
      others > 0 ? fmt::format("; {} {} as read", others, others == 1 ? "host" : "hosts") : "",
      spread(clock.end_spread_after_ns), spread(clock.end_spread_before_ns),
      clock.note.empty() ? "" : "; ", TerminalSafe(clock.note));
}

// A replayed change as a share of the unchanged replay.
double WhatIfChangePct(const analysis::CriticalPath& path,
                       const analysis::CriticalPath::WhatIf& w) {
  return path.replayed_ns > 0 ? 100.0 * static_cast<double>(w.predicted_ns - path.replayed_ns) /
                                    static_cast<double>(path.replayed_ns)
                              : 0;
}

// Consecutive segments on one rank as one link of the chain.
struct PathLink {
  int32_t rank = -1;
  int64_t ns = 0;
  int64_t compute_ns = 0;
  int64_t transfer_ns = 0;
  int64_t collectives = 0;
  int64_t late_ns = 0;                // the whole late start
  analysis::HostIdleTimes late_host;  // of it, the host's
  analysis::HostIdleTimes host;       // in the rank's work
};

std::vector<PathLink> PathLinks(const analysis::CriticalPath& path) {
  std::vector<PathLink> links;
  for (const analysis::PathSegment& s : path.segments) {
    if (links.empty() || links.back().rank != s.rank) links.push_back({.rank = s.rank});
    PathLink& link = links.back();
    link.ns += s.duration_ns();
    if (s.kind == analysis::PathSegmentKind::kWork) link.compute_ns += s.compute_ns;
    if (s.kind == analysis::PathSegmentKind::kLateStart) {
      link.late_ns += s.duration_ns();
      link.late_host += s.host;
    } else {
      link.host += s.host;
    }
    if (s.kind == analysis::PathSegmentKind::kTransfer) {
      link.transfer_ns += s.duration_ns();
      ++link.collectives;
    }
  }
  return links;
}

std::string PathLinkText(const PathLink& link) {
  std::string parts;
  auto add = [&parts](const std::string& part) { parts += (parts.empty() ? "" : ", ") + part; };
  if (link.late_ns > 0) {
    const std::string host = HostIdleText(link.late_host);
    add(fmt::format("started {} late{}", FormatDurationNs(link.late_ns),
                    host.empty() ? "" : ": " + host));
  }
  add(fmt::format("compute {}", FormatDurationNs(link.compute_ns)));
  if (const std::string host = HostIdleText(link.host); !host.empty()) add(host);
  const int64_t idle =
      link.ns - link.compute_ns - link.transfer_ns - link.late_ns - link.host.total();
  if (idle > 0) add(fmt::format("idle {}", FormatDurationNs(idle)));
  if (link.collectives > 0)
    add(fmt::format("{} {} {}", link.collectives,
                    link.collectives == 1 ? "collective" : "collectives",
                    FormatDurationNs(link.transfer_ns)));
  return fmt::format("rank {} {} ({})", link.rank, FormatDurationNs(link.ns), parts);
}

// The replayed changes, each against the unchanged replay.
std::string WhatIfText(const analysis::CriticalPath& path) {
  if (path.replayed_ns < 0)
    return path.replay_note.empty() ? "" : "    what-if: " + path.replay_note + "\n";
  std::string out = fmt::format("    what-if by replay (unchanged: {} against {} measured):\n",
                                FormatDurationNs(static_cast<double>(path.replayed_ns)),
                                FormatDurationNs(static_cast<double>(path.end_ns - path.start_ns)));
  for (const analysis::CriticalPath::WhatIf& w : path.what_if) {
    out += fmt::format("      {}: {} ({:+.1f}%)\n", w.change,
                       FormatDurationNs(static_cast<double>(w.predicted_ns)),
                       WhatIfChangePct(path, w));
  }
  if (!path.replay_note.empty()) out += "      note: " + path.replay_note + "\n";
  return out;
}

}  // namespace

std::string HostIdleText(const analysis::HostIdleTimes& host) {
  std::string out;
  for (const auto& [name, ns] :
       {std::pair{"data loader", host.data_loader_ns}, std::pair{"host sync", host.host_sync_ns},
        std::pair{"launch", host.launch_ns}}) {
    if (ns > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, FormatDurationNs(ns));
  }
  return out;
}

std::string PathWaitsText(const analysis::CriticalPath& path, size_t shown) {
  std::string out;
  for (size_t i = 0; i < path.waits.size() && i < shown; ++i) {
    const analysis::CriticalPath::RankWait& w = path.waits[i];
    out += fmt::format(
        "{}rank {} {} ({}, mostly for rank {}: {})", i ? ", " : "", w.rank,
        FormatDurationNs(static_cast<double>(w.waited_ns)),
        w.collectives == 1 ? "1 collective" : fmt::format("{} collectives", w.collectives),
        w.mostly_for, FormatDurationNs(static_cast<double>(w.mostly_for_ns)));
  }
  if (path.waits.size() > shown)
    out += fmt::format(", and {} more ranks", path.waits.size() - shown);
  return out;
}

std::string CriticalPathShares(const analysis::CriticalPath& path) {
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  auto pct = [span](int64_t ns) { return span > 0 ? 100.0 * static_cast<double>(ns) / span : 0; };
  std::string out =
      fmt::format("compute {:.1f}%, transfer {:.1f}% through {} blocking collectives",
                  pct(path.compute_ns), pct(path.transfer_ns), path.blocking_collectives);
  if (path.host_known) {
    out += fmt::format(
        ", data loader {:.1f}%, host sync {:.1f}%, launch {:.1f}%, idle {:.1f}% (no host cause "
        "found)",
        pct(path.host.data_loader_ns), pct(path.host.host_sync_ns), pct(path.host.launch_ns),
        pct(path.idle_ns));
  } else {
    out += fmt::format(
        ", idle {:.1f}% (host launch, data loading and syncs not told apart: a rank on the path "
        "has no host trace)",
        pct(path.idle_ns));
  }
  out += fmt::format(", late start {:.1f}%{}", pct(path.late_start_ns),
                     path.host_known ? " (its time with no host cause)" : "");
  return out;
}

namespace {

// The path in two lines: where the step's time goes along it, then the
// chain of ranks it runs through (the six longest links, in time order).
std::string CriticalPathText(const analysis::CriticalPath& path) {
  if (!path.computed) return path.note.empty() ? "" : "  critical path: " + path.note + "\n";
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  std::string out = fmt::format(
      "  critical path over the device span ({}, the first rank's first kernel to the last "
      "rank's last): {}\n",
      FormatDurationNs(span), CriticalPathShares(path));
  std::vector<PathLink> links = PathLinks(path);
  std::vector<size_t> order(links.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&links](size_t a, size_t b) { return links[a].ns > links[b].ns; });
  order.resize(std::min<size_t>(order.size(), 5));
  std::sort(order.begin(), order.end());
  out += fmt::format("    through {} links of ranks; the {} longest, in time order:\n",
                     links.size(), order.size());
  size_t expected = 0;
  for (size_t i : order) {
    out += fmt::format("    {}{}\n",
                       i == 0          ? ""
                       : i == expected ? "-> "
                                       : "-> ... -> ",
                       PathLinkText(links[i]));
    expected = i + 1;
  }
  if (const std::string waits = PathWaitsText(path, 5); !waits.empty())
    out += "    waiting for the path: " + waits + "\n";
  if (!path.note.empty()) out += "    note: " + path.note + "\n";
  out += WhatIfText(path);
  return out;
}

}  // namespace

void RenderClusterText(std::string& out, const analysis::JobAnalysis& job, bool, int width) {
  const analysis::ClusterAnalysis& c = job.cluster;
  if (!c.present) return;
  out += fmt::format("\nCluster ({} ranks, {})\n", c.ranks, StepName(c.step));
  // The skew and the wait are times on the device timelines: unknown when
  // every rank's timeline of the step is set aside.
  const bool timelines = c.ranks_with_timeline > 0;
  out += fmt::format(
      "  step time mean {:.1f} ms, spread (max-min)/mean {:.1f}%{}; first-kernel skew {}; "
      "step-start wait mean {} (max {}){}\n",
      Ms(c.mean_step_time_ns), c.step_time_spread_pct, c.step_time_spread_pct > 5 ? " (> 5%)" : "",
      timelines ? fmt::format("{:.1f} ms", Ms(c.first_kernel_skew_ns)) : "n/a",
      timelines ? fmt::format("{:.1f} ms", Ms(c.mean_step_start_wait_ns)) : "n/a",
      timelines ? fmt::format("{:.1f} ms", Ms(c.max_step_start_wait_ns)) : "n/a",
      c.ranks_with_timeline < c.ranks_with_step
          ? fmt::format("; {} of {} ranks' timelines set aside: their step time is "
                        "step_trace_time.csv's",
                        c.ranks_with_step - c.ranks_with_timeline, c.ranks_with_step)
          : "");
  out += ClockAlignmentText(c.clock);
  out += CriticalPathText(c.critical_path);
  out += fmt::format(
      "  stragglers: {}   [shortest-communication: {} of {} instances tested | "
      "last-arrival: {} of {} | late-start: {} of {} steps | least-communication: {} of {} "
      "steps | compute-imbalance: {} of {} groups]\n",
      Ranks(c.straggler_ranks), Ranks(c.by_shortest_comm.ranks),
      c.by_shortest_comm.instances_tested, Ranks(c.by_last_arrival.ranks),
      c.by_last_arrival.instances_tested, Ranks(c.by_late_start.ranks),
      c.by_late_start.instances_tested, Ranks(c.by_least_comm.ranks),
      c.by_least_comm.instances_tested, Ranks(c.by_compute.ranks), c.by_compute.instances_tested);
  std::vector<const analysis::RankClusterStats*> rows;
  for (const auto& r : c.per_rank) rows.push_back(&r);
  // Arrival counts and lateness of a rank no instance compared (its
  // timeline set aside, or no collective shared) are unknown.
  auto compared = [](const analysis::RankClusterStats& r, auto value) {
    return r.instances_compared > 0 ? fmt::format("{}", value) : std::string("n/a");
  };
  auto lateness = [](const analysis::RankClusterStats& r) {
    return r.instances_compared > 0 ? fmt::format("{:.0f}", Us(r.mean_lateness_ns))
                                    : std::string("n/a");
  };
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return a->mean_lateness_ns > b->mean_lateness_ns;
  });
  const std::vector<TextColumn> columns = {{.header = "rank"},
                                           {.header = "step ms"},
                                           {.header = "start +ms", .drop_order = 5},
                                           {.header = "start wait ms", .drop_order = 2},
                                           {.header = "comm ms"},
                                           {.header = "exposed ms"},
                                           {.header = "pseudo ms", .drop_order = 3},
                                           {.header = "colls", .drop_order = 6},
                                           {.header = "short-flags", .drop_order = 4},
                                           {.header = "last", .drop_order = 1},
                                           {.header = "lateness µs"},
                                           {.header = "", .left = true, .drop_order = 7}};
  std::vector<std::vector<std::string>> cells;
  auto one = [](double v) { return fmt::format("{:.1f}", v); };
  auto two = [](double v) { return fmt::format("{:.2f}", v); };
  for (size_t i = 0; i < rows.size() && i < kMaxTextRows; ++i) {
    const auto& r = *rows[i];
    if (!r.has_device_step) {  // listed with what it has; its step columns are unknown
      cells.push_back({std::to_string(r.rank), "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a",
                       compared(r, r.shortest_flags), compared(r, r.last_arrivals), lateness(r),
                       "(no device events in the step)"});
      continue;
    }
    if (r.timeline_set_aside) {  // budget numbers; times on the timeline unknown
      cells.push_back({std::to_string(r.rank), one(Ms(r.step_time_ns)), "n/a", "n/a",
                       one(Ms(r.comm_ns)), one(Ms(r.exposed_comm_ns)), "n/a",
                       std::to_string(r.collectives), compared(r, r.shortest_flags),
                       compared(r, r.last_arrivals), lateness(r),
                       "(timeline set aside: step and comm from step_trace_time.csv)"});
      continue;
    }
    cells.push_back({std::to_string(r.rank), one(Ms(r.step_time_ns)),
                     two(Ms(r.step_start_offset_ns)), two(Ms(r.step_start_wait_ns)),
                     one(Ms(r.comm_ns)), one(Ms(r.exposed_comm_ns)), two(Ms(r.pseudo_overlap_ns)),
                     std::to_string(r.collectives), compared(r, r.shortest_flags),
                     compared(r, r.last_arrivals), lateness(r), ""});
  }
  TextTableOptions table;
  table.width = width;
  table.gap = 2;
  out += RenderTextTable(columns, cells, table);
  if (rows.size() > kMaxTextRows) {
    out += fmt::format("  ... {} more ranks (ordered by lateness; all in the JSON)\n",
                       rows.size() - kMaxTextRows);
  }
  if (!c.collectives.empty()) {
    out += CollectivesText(c.collectives, width);
  }
  if (c.links_checked > 0) {
    out += fmt::format("  links checked: {}, slow (< 20% of transport average): {}\n",
                       c.links_checked, c.slow_links.size());
    for (size_t i = 0; i < c.slow_links.size() && i < kMaxTextRows; ++i) {
      const auto& l = c.slow_links[i];
      out += fmt::format("    {} -> {} {} {:.2f} GB/s vs {:.2f} average (rank {}'s matrix)\n",
                         l.src, l.dst, TerminalSafe(l.transport), l.bandwidth_gbps,
                         l.transport_mean_gbps, l.reporting_rank);
    }
  }
  for (const std::string& note : c.notes) out += fmt::format("  note: {}\n", TerminalSafe(note));
}

namespace {

// One rank's row of cluster.per_rank.
void WritePerRankJson(JsonWriter& w, const analysis::RankClusterStats& r) {
  w.BeginObject();
  w.Field("rank", r.rank);
  w.Field("step", r.step);
  w.Field("has_device_step", r.has_device_step);
  w.Field("timeline_set_aside", r.timeline_set_aside);
  // Step columns of a rank without device events in the step are unknown;
  // so are the times on a set-aside timeline.
  auto time_us = [&](const char* key, int64_t ns, bool on_timeline = false) {
    if (r.has_device_step && !(on_timeline && r.timeline_set_aside)) {
      w.Field(key, Us(ns));
    } else {
      w.Key(key).Null();
    }
  };
  auto count = [&](const char* key, int64_t n) {
    if (r.has_device_step) {
      w.Field(key, n);
    } else {
      w.Key(key).Null();
    }
  };
  time_us("step_time_us", r.step_time_ns);
  time_us("step_start_offset_us", r.step_start_offset_ns, true);
  time_us("step_start_wait_us", r.step_start_wait_ns, true);
  time_us("comm_us", r.comm_ns);
  time_us("exposed_comm_us", r.exposed_comm_ns);
  time_us("pseudo_overlap_us", r.pseudo_overlap_ns, true);
  if (r.timeline_set_aside) {
    w.Key("pseudo_overlap_count").Null();
  } else {
    count("pseudo_overlap_count", r.pseudo_overlap_count);
  }
  count("all_gathers", r.all_gathers);
  count("collectives", r.collectives);
  count("small_collectives", r.small_collectives);
  time_us("small_comm_us", r.small_comm_ns);
  if (r.wait_ratio >= 0) w.Field("wait_ratio", r.wait_ratio);
  if (r.sync_ratio >= 0) w.Field("sync_ratio", r.sync_ratio);
  // Each method's per-rank values are unknown where it compared none of
  // the rank's collectives (a set-aside timeline, no shared instance).
  auto compared = [&](const char* key, double value, int64_t n, bool time) {
    if (n == 0) {
      w.Key(key).Null();
    } else if (time) {
      w.Field(key, Us(value));
    } else {
      w.Field(key, static_cast<int64_t>(value));
    }
  };
  w.Field("steps_set_aside", r.steps_set_aside);
  w.Field("instances_compared", r.instances_compared);
  w.Field("start_steps_compared", r.start_steps_compared);
  w.Field("comm_steps_compared", r.comm_steps_compared);
  compared("shortest_flags", static_cast<double>(r.shortest_flags), r.instances_compared, false);
  compared("last_arrivals", static_cast<double>(r.last_arrivals), r.instances_compared, false);
  compared("mean_lateness_us", r.mean_lateness_ns, r.instances_compared, true);
  compared("late_start_flags", static_cast<double>(r.late_start_flags), r.start_steps_compared,
           false);
  compared("mean_start_lateness_us", r.mean_start_lateness_ns, r.start_steps_compared, true);
  compared("least_comm_flags", static_cast<double>(r.least_comm_flags), r.comm_steps_compared,
           false);
  w.Field("excess_computation_us", Us(r.excess_computation_ns));
  w.EndObject();
}

void WriteCriticalPathJson(JsonWriter& w, const analysis::CriticalPath& path) {
  w.Key("critical_path").BeginObject();
  w.Field("computed", path.computed);
  w.Field("step", path.step);
  w.Field("span_us", Us(path.end_ns - path.start_ns));
  w.Field("compute_us", Us(path.compute_ns));
  w.Field("idle_us", Us(path.idle_ns));
  w.Field("transfer_us", Us(path.transfer_ns));
  w.Field("late_start_us", Us(path.late_start_ns));
  w.Field("host_known", path.host_known);
  auto host_fields = [&w, &path](const analysis::HostIdleTimes& host) {
    for (const auto& [key, ns] :
         {std::pair{"data_loader_us", host.data_loader_ns},
          std::pair{"host_sync_us", host.host_sync_ns}, std::pair{"launch_us", host.launch_ns}}) {
      if (path.host_known) {
        w.Field(key, Us(ns));
      } else {
        w.Key(key).Null();
      }
    }
  };
  host_fields(path.host);
  w.Field("blocking_collectives", path.blocking_collectives);
  w.Key("by_rank").BeginArray();
  for (const auto& [rank, ns] : path.by_rank) {
    w.BeginObject();
    w.Field("rank", rank);
    w.Field("us", Us(ns));
    w.EndObject();
  }
  w.EndArray();
  w.Key("waits").BeginArray();
  for (const analysis::CriticalPath::RankWait& wait : path.waits) {
    w.BeginObject();
    w.Field("rank", wait.rank);
    w.Field("waited_us", Us(wait.waited_ns));
    w.Field("collectives", wait.collectives);
    w.Field("mostly_for", wait.mostly_for);
    w.Field("mostly_for_us", Us(wait.mostly_for_ns));
    w.EndObject();
  }
  w.EndArray();
  w.Key("segments").BeginArray();
  for (const analysis::PathSegment& s : path.segments) {
    w.BeginObject();
    w.Field("kind", analysis::PathSegmentKindName(s.kind));
    w.Field("rank", s.rank);
    w.Field("start_us", Us(s.start_ns - path.start_ns));
    w.Field("duration_us", Us(s.duration_ns()));
    if (s.kind == analysis::PathSegmentKind::kWork) {
      w.Field("compute_us", Us(s.compute_ns));
    } else {
      w.Key("compute_us").Null();
    }
    if (s.kind == analysis::PathSegmentKind::kTransfer) {
      for (const char* key : {"data_loader_us", "host_sync_us", "launch_us"}) w.Key(key).Null();
    } else {
      host_fields(s.host);
    }
    if (s.kind == analysis::PathSegmentKind::kTransfer) {
      w.Field("collective", s.collective);
      w.Field("participants", s.participants);
    } else {
      w.Key("collective").Null();
      w.Key("participants").Null();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Field("note", path.note);
  w.Field("replayed_us", UsOrNull(path.replayed_ns >= 0 ? std::optional<int64_t>(path.replayed_ns)
                                                        : std::nullopt));
  w.Key("what_if").BeginArray();
  for (const analysis::CriticalPath::WhatIf& what : path.what_if) {
    w.BeginObject();
    w.Field("change", what.change);
    w.Field("predicted_us", Us(what.predicted_ns));
    w.Field("change_pct", WhatIfChangePct(path, what));
    if (what.finding.empty()) {
      w.Key("finding").Null();
    } else {
      w.Field("finding", what.finding);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Field("replay_note", path.replay_note);
  w.EndObject();
}

void WriteClockAlignmentJson(JsonWriter& w, const analysis::ClockAlignment& clock) {
  w.Key("clock_alignment").BeginObject();
  w.Field("estimated", clock.estimated);
  w.Field("applied", clock.applied);
  w.Key("reference_host").StringOrNull(clock.reference_host);
  w.Key("hosts").BeginArray();
  for (const analysis::HostClock& host : clock.hosts) {
    w.BeginObject();
    w.Field("host", host.host);
    w.Key("ranks").BeginArray();
    for (int32_t r : host.ranks) w.Int(r);
    w.EndArray();
    w.Field("offset_us", UsOrNull(host.offset_ns));
    w.Field("instances", host.instances);
    w.Field("jitter_us", Us(host.jitter_ns));
    w.Field("applied", host.applied);
    w.EndObject();
  }
  w.EndArray();
  w.Field("end_spread_before_us", UsOrNull(clock.end_spread_before_ns));
  w.Field("end_spread_after_us", UsOrNull(clock.end_spread_after_ns));
  w.Field("instances", clock.instances);
  w.Field("note", clock.note);
  w.EndObject();
}

}  // namespace

void WriteClusterJson(JsonWriter& w, const analysis::JobAnalysis& job) {
  const analysis::ClusterAnalysis& c = job.cluster;
  w.Key("cluster").BeginObject();
  w.Field("ranks", c.ranks);
  w.Field("present", c.present);
  w.Field("step", c.step);
  w.Field("mean_step_time_us", Us(c.mean_step_time_ns));
  w.Field("step_time_spread_pct", c.step_time_spread_pct);
  w.Field("ranks_with_timeline", c.ranks_with_timeline);
  // Times on the device timelines: null when every rank's is set aside.
  for (const auto& [key, ns] :
       {std::pair<const char*, double>{"first_kernel_skew_us",
                                       static_cast<double>(c.first_kernel_skew_ns)},
        {"mean_step_start_wait_us", c.mean_step_start_wait_ns},
        {"max_step_start_wait_us", static_cast<double>(c.max_step_start_wait_ns)}}) {
    if (c.ranks_with_timeline > 0) {
      w.Field(key, Us(ns));
    } else {
      w.Key(key).Null();
    }
  }
  WriteClockAlignmentJson(w, c.clock);
  WriteCriticalPathJson(w, c.critical_path);
  w.Key("straggler_ranks").BeginArray();
  for (int32_t r : c.straggler_ranks) w.Int(r);
  w.EndArray();
  w.Key("straggler_methods").BeginObject();
  w.Key("shortest_communication");
  WriteMethod(w, c.by_shortest_comm);
  w.Key("last_arrival");
  WriteMethod(w, c.by_last_arrival);
  w.Key("late_start");
  WriteMethod(w, c.by_late_start);
  w.Key("least_communication");
  WriteMethod(w, c.by_least_comm);
  w.Key("compute_imbalance");
  WriteMethod(w, c.by_compute);
  w.EndObject();
  w.Key("per_rank").BeginArray();
  for (const auto& r : c.per_rank) WritePerRankJson(w, r);
  w.EndArray();
  w.Key("collectives").BeginArray();
  for (const auto& s : c.collectives) {
    w.BeginObject();
    w.Field("type", s.type);
    w.Field("count", s.count);
    w.Field("calls", s.instances);
    w.Field("timed_count", s.timed_count);
    if (s.timed_count > 0) {
      w.Field("total_us", Us(s.total_ns));
      w.Field("mean_us", MeanUs(s.total_ns, s.timed_count));
      w.Field("small_count", s.small_count);
      w.Field("small_us", Us(s.small_ns));
    } else {
      for (const char* key : {"total_us", "mean_us", "small_count", "small_us"}) w.Key(key).Null();
    }
    if (s.mean_bytes > 0) {
      w.Field("mean_bytes", s.mean_bytes);
    } else {
      w.Key("mean_bytes").Null();
    }
    if (s.bandwidth_known) {
      w.Field("algbw_gbps", s.algbw_gbps);
    } else {
      w.Key("algbw_gbps").Null();
    }
    if (s.busbw_known) {
      w.Field("busbw_gbps", s.busbw_gbps);
    } else {
      w.Key("busbw_gbps").Null();
    }
    if (s.group_size_max > 0) {
      w.Field("group_size_min", s.group_size_min);
      w.Field("group_size_max", s.group_size_max);
    } else {
      w.Key("group_size_min").Null();
      w.Key("group_size_max").Null();
    }
    w.Field("group_size_source", analysis::GroupSizeSourceName(s.group_size_source));
    w.Field("group_size_unknown_calls", s.group_size_unknown);
    w.Field("transit_ms", Ms(s.transit_ns));
    w.Field("wait_ms", Ms(s.wait_ns));
    w.Field("sync_ms", Ms(s.sync_ns));
    w.EndObject();
  }
  w.EndArray();
  w.Field("links_checked", c.links_checked);
  w.Key("slow_links").BeginArray();
  for (const auto& l : c.slow_links) {
    w.BeginObject();
    w.Field("reporting_rank", l.reporting_rank);
    w.Field("group_hash", l.group_hash);
    w.Field("src", l.src);
    w.Field("dst", l.dst);
    w.Field("transport", l.transport);
    w.Field("op_type", l.op_type);
    w.Field("bandwidth_gbps", l.bandwidth_gbps);
    w.Field("transport_mean_gbps", l.transport_mean_gbps);
    w.Field("ratio", l.ratio);
    w.EndObject();
  }
  w.EndArray();
  w.Key("link_matrix").BeginArray();
  for (const analysis::LinkCell& cell : c.link_matrix) {
    w.BeginObject();
    w.Field("src", cell.src);
    w.Field("dst", cell.dst);
    w.Field("transport", cell.transport);
    w.Field("size_mb", cell.size_mb);
    w.Field("time_ms", cell.time_ms);
    if (cell.time_ms > 0) {
      w.Field("bandwidth_gbps", cell.bandwidth_gbps());
    } else {
      w.Key("bandwidth_gbps").Null();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("notes").BeginArray();
  for (const std::string& n : c.notes) w.String(n);
  w.EndArray();
  w.EndObject();
}

}  // namespace trainscope::report
