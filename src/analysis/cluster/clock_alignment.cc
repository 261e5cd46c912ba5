#include "analysis/cluster/clock_alignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/common/statistics.h"
#include "core/rank_ranges.h"

namespace trainscope::analysis {
namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "{host}_{pid}" -> host; "" when the part after the last '_' is not a pid.
std::string_view HostOfWorkerName(std::string_view worker) {
  const size_t cut = worker.rfind('_');
  if (cut == std::string_view::npos || cut == 0 || !AllDigits(worker.substr(cut + 1))) return {};
  return worker.substr(0, cut);
}

std::string_view HostOfComponent(std::string_view name) {
  constexpr std::string_view kAscend = "_ascend_pt";
  if (name.ends_with(kAscend)) {  // {host}_{pid}_{timestamp}_ascend_pt
    name.remove_suffix(kAscend.size());
    const size_t cut = name.rfind('_');
    if (cut == std::string_view::npos || !AllDigits(name.substr(cut + 1))) return {};
    return HostOfWorkerName(name.substr(0, cut));
  }
  for (std::string_view suffix : {".pt.trace.json.gz", ".pt.trace.json"}) {
    if (!name.ends_with(suffix)) continue;  // {host}_{pid}.{ms}.pt.trace.json
    name.remove_suffix(suffix.size());
    const size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || !AllDigits(name.substr(dot + 1))) return {};
    return HostOfWorkerName(name.substr(0, dot));
  }
  return {};
}

// Collectives that complete at one moment on every participant: each rank's
// kernel ends when the last byte of the whole operation has moved. A
// broadcast's root or a send can finish before its peers.
bool EndsTogether(CollectiveType type) {
  return type == CollectiveType::kAllReduce || type == CollectiveType::kAllGather ||
         type == CollectiveType::kReduceScatter || type == CollectiveType::kAllToAll;
}

int64_t MedianNs(std::vector<double> values) { return std::llround(Median(std::move(values))); }

// One collective instance: the end each rank (index into comm) saw.
using InstanceEnds = std::vector<std::pair<size_t, int64_t>>;

std::map<std::string, InstanceEnds> EndsByInstance(const std::vector<RankComm>& comm) {
  std::map<std::string, InstanceEnds> out;
  for (size_t i = 0; i < comm.size(); ++i) {
    for (const CommInstance& op : comm[i].ops) {
      if (!EndsTogether(op.type) || op.duration_ns < 0) continue;
      out[fmt::format("{}|{}", op.step, op.key)].emplace_back(i, op.start_ns + op.duration_ns);
    }
  }
  return out;
}

// The median of the instances' end spreads (latest - earliest end), each
// rank's end moved by -|offset_of|[rank]; nullopt without an instance of two
// ranks.
std::optional<int64_t> MedianEndSpread(const std::map<std::string, InstanceEnds>& instances,
                                       const std::vector<int64_t>& offset_of, int64_t* counted) {
  std::vector<double> spreads;
  for (const auto& [key, ends] : instances) {
    if (ends.size() < 2) continue;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& [rank, end] : ends) {
      lo = std::min(lo, end - offset_of[rank]);
      hi = std::max(hi, end - offset_of[rank]);
    }
    spreads.push_back(static_cast<double>(hi - lo));
  }
  if (counted != nullptr) *counted = static_cast<int64_t>(spreads.size());
  if (spreads.empty()) return std::nullopt;
  return MedianNs(std::move(spreads));
}

void Shift(int64_t offset, RankComm* rc) {
  for (CommInstance& op : rc->ops) op.start_ns -= offset;
  for (RankStepComm& s : rc->steps) {
    s.first_start_ns -= offset;
    s.last_end_ns -= offset;
    for (HostIdleSpan& span : s.host_idle_before_start) {
      span.start_ns -= offset;
      span.end_ns -= offset;
    }
  }
}

// Each host's offset against |reference|: the median over shared
// instances of (host's median end - reference's median end).
void EstimateOffsets(const std::map<std::string, InstanceEnds>& instances,
                     const std::vector<size_t>& host_of_rank, size_t reference,
                     std::vector<HostClock>* hosts) {
  std::vector<std::vector<double>> diffs(hosts->size());
  std::vector<std::vector<double>> ends_of_host(hosts->size());
  for (const auto& [key, ends] : instances) {
    for (auto& e : ends_of_host) e.clear();
    for (const auto& [rank, end] : ends)
      ends_of_host[host_of_rank[rank]].push_back(static_cast<double>(end));
    if (ends_of_host[reference].empty()) continue;
    const double reference_end = Median(ends_of_host[reference]);
    for (size_t h = 0; h < hosts->size(); ++h) {
      if (h == reference || ends_of_host[h].empty()) continue;
      diffs[h].push_back(Median(ends_of_host[h]) - reference_end);
    }
  }
  for (size_t h = 0; h < hosts->size(); ++h) {
    HostClock& host = (*hosts)[h];
    if (h == reference) {
      host.offset_ns = 0;
      continue;
    }
    host.instances = static_cast<int64_t>(diffs[h].size());
    if (diffs[h].empty()) continue;
    const double median = Median(diffs[h]);
    std::vector<double> deviations;
    deviations.reserve(diffs[h].size());
    for (double d : diffs[h]) deviations.push_back(std::abs(d - median));
    // The jitter of one instance's difference: sigma ~ 1.4826 MAD (normal
    // noise), robust to the odd instance a late kernel launch moved.
    host.jitter_ns = 1.4826 * Median(std::move(deviations));
    host.offset_ns = std::llround(median);
    host.applied = *host.offset_ns != 0 && std::abs(median) > 3 * host.jitter_ns;
  }
}

// Each rank's host index into |hosts_out| (built here, in first-seen
// order); ranks whose host is "" go to |unknown|.
std::vector<size_t> GroupByHost(const std::vector<std::string>& hosts,
                                const std::vector<RankComm>& comm,
                                std::vector<HostClock>* hosts_out, std::vector<int32_t>* unknown) {
  std::vector<size_t> host_of_rank(comm.size(), 0);
  std::unordered_map<std::string, size_t> index_of;
  for (size_t i = 0; i < comm.size(); ++i) {
    const std::string& host = i < hosts.size() ? hosts[i] : std::string();
    if (host.empty()) {
      unknown->push_back(comm[i].rank);
      continue;
    }
    auto [it, added] = index_of.emplace(host, hosts_out->size());
    if (added) hosts_out->push_back(HostClock{.host = host});
    (*hosts_out)[it->second].ranks.push_back(comm[i].rank);
    host_of_rank[i] = it->second;
  }
  return host_of_rank;
}

// The offset to subtract from each rank's times: its host's, where
// EstimateOffsets found it standing out of the jitter, unless the
// corrections together do not narrow the ends' spread (then none: a
// correction that does not bring the ends together corrects nothing).
std::vector<int64_t> DecideOffsets(const std::map<std::string, InstanceEnds>& instances,
                                   const std::vector<size_t>& host_of_rank, ClockAlignment* out) {
  std::vector<int64_t> offset_of(host_of_rank.size(), 0);
  for (size_t i = 0; i < host_of_rank.size(); ++i) {
    const HostClock& host = out->hosts[host_of_rank[i]];
    if (host.applied) offset_of[i] = *host.offset_ns;
  }
  out->applied = std::any_of(out->hosts.begin(), out->hosts.end(),
                             [](const HostClock& host) { return host.applied; });
  out->end_spread_after_ns = MedianEndSpread(instances, offset_of, nullptr);
  if (out->applied && out->end_spread_after_ns >= out->end_spread_before_ns) {
    for (HostClock& host : out->hosts) host.applied = false;
    out->applied = false;
    std::fill(offset_of.begin(), offset_of.end(), 0);
    out->end_spread_after_ns = out->end_spread_before_ns;
  }
  return offset_of;
}

// Up to four names, then how many more.
std::string FewNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 4; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 4) out += fmt::format(" and {} more", names.size() - 4);
  return out;
}

// What was left unaligned, and why ("" when every other host was aligned).
std::string AlignmentNote(const ClockAlignment& clock) {
  std::vector<std::string> noise, lost;
  for (const HostClock& host : clock.hosts) {
    if (host.host == clock.reference_host || host.applied) continue;
    (host.offset_ns ? noise : lost).push_back(host.host);
  }
  std::string note;
  if (!noise.empty())
    note = fmt::format(
        "{}: offset within 3 sigma of the ends' jitter, or not narrowing their spread: not applied",
        FewNames(noise));
  if (!lost.empty())
    note += fmt::format("{}{}: no collective shared with {}, not aligned", note.empty() ? "" : "; ",
                        FewNames(lost), clock.reference_host);
  return note;
}

}  // namespace

std::string HostOfProfilePath(std::string_view path) {
  while (!path.empty()) {
    while (path.ends_with('/')) path.remove_suffix(1);
    const size_t slash = path.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (const std::string_view host = HostOfComponent(name); !host.empty())
      return std::string(host);
    if (slash == std::string_view::npos) break;
    path = path.substr(0, slash);
  }
  return {};
}

ClockAlignment AlignClocks(const std::vector<std::string>& hosts, std::vector<RankComm>* comm) {
  ClockAlignment out;
  std::vector<int32_t> unknown;
  const std::vector<size_t> host_of_rank = GroupByHost(hosts, *comm, &out.hosts, &unknown);
  const std::map<std::string, InstanceEnds> instances = EndsByInstance(*comm);
  out.end_spread_before_ns =
      MedianEndSpread(instances, std::vector<int64_t>(comm->size(), 0), &out.instances);
  if (!unknown.empty()) {
    out.note = fmt::format(
        "the host of {} {} is not in its profile's name ({{hostname}}_{{pid}}_..._ascend_pt or "
        "{{hostname}}_{{pid}}.{{ms}}.pt.trace.json): clocks not aligned",
        unknown.size() == 1 ? "rank" : "ranks", CompactRankList(unknown));
    out.hosts.clear();
    return out;
  }
  if (out.hosts.size() < 2) {
    out.note = "every rank on one host: one clock, nothing to align";
    return out;
  }
  size_t reference = 0;
  for (size_t h = 1; h < out.hosts.size(); ++h) {
    if (out.hosts[h].ranks.size() > out.hosts[reference].ranks.size()) reference = h;
  }
  out.reference_host = out.hosts[reference].host;
  EstimateOffsets(instances, host_of_rank, reference, &out.hosts);
  out.estimated = true;
  const std::vector<int64_t> offset_of = DecideOffsets(instances, host_of_rank, &out);
  for (size_t i = 0; i < comm->size(); ++i) {
    if (offset_of[i] != 0) Shift(offset_of[i], &(*comm)[i]);
  }
  out.note = AlignmentNote(out);
  return out;
}

}  // namespace trainscope::analysis
