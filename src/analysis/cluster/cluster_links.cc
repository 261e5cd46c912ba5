#include "analysis/cluster/cluster_links.h"

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>

namespace trainscope::analysis {
namespace {

struct LinkKey {
  int32_t rank;
  std::string group;
  int32_t src;
  int32_t dst;
  std::string transport;
  auto Tie() const { return std::tie(rank, group, src, dst, transport); }
  bool operator<(const LinkKey& o) const { return Tie() < o.Tie(); }
};

bool UsableMeasure(double value, bool allow_zero = false) {
  return std::isfinite(value) && (allow_zero ? value >= 0 : value > 0);
}

struct LinkAgg {
  double bandwidth_sum = 0;
  double size_mb_sum = 0;
  int64_t n = 0;
  std::string op_type;
};

using GlobalRanks = std::map<std::pair<std::string, int32_t>, int32_t>;

// Group-local -> global rank, from the self links (src == dst on rank r
// means local id src is r), as msprof-analyze does; |any_total| says
// whether any matrix has "total" records.
GlobalRanks GlobalRanksOf(const std::vector<RankLinks>& ranks, bool* any_total) {
  GlobalRanks global;
  *any_total = false;
  for (const RankLinks& p : ranks) {
    for (const model::CommLinkRecord& l : p.links) {
      if (l.src == l.dst && p.rank >= 0) global[{l.group_hash, l.src}] = p.rank;
      *any_total |= l.statistic == "total";
    }
  }
  return global;
}

int32_t GlobalRank(const GlobalRanks& global, const std::string& group, int32_t local) {
  const auto it = global.find({group, local});
  return it == global.end() ? local : it->second;
}

}  // namespace

std::vector<LinkCell> BuildLinkMatrix(const std::vector<RankLinks>& ranks) {
  bool any_total = false;
  const GlobalRanks global = GlobalRanksOf(ranks, &any_total);
  std::map<std::tuple<int32_t, int32_t, std::string>, LinkCell> cells;
  for (const RankLinks& p : ranks) {
    for (const model::CommLinkRecord& l : p.links) {
      if (any_total && l.statistic != "total") continue;
      if (!UsableMeasure(l.size_mb, /*allow_zero=*/true) || !UsableMeasure(l.time_ms)) continue;
      const int32_t src = GlobalRank(global, l.group_hash, l.src);
      const int32_t dst = GlobalRank(global, l.group_hash, l.dst);
      if (src == dst) continue;
      LinkCell& cell = cells[{src, dst, l.transport}];
      cell.src = src;
      cell.dst = dst;
      cell.transport = l.transport;
      cell.size_mb += l.size_mb;
      cell.time_ms += l.time_ms;
    }
  }
  std::vector<LinkCell> out;
  out.reserve(cells.size());
  for (auto& [key, cell] : cells) out.push_back(std::move(cell));
  return out;
}

std::vector<SlowLink> FindSlowLinks(const std::vector<RankLinks>& ranks, double max_ratio,
                                    double min_mb_per_step, int64_t* links_checked) {
  bool any_total = false;
  const GlobalRanks global = GlobalRanksOf(ranks, &any_total);
  // Per link the mean over steps of its "total" record (sums over every op:
  // the per-op top/bottom records of latency-bound small ops would be noise).
  std::map<LinkKey, LinkAgg> links;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankLinks& p = ranks[i];
    for (const model::CommLinkRecord& l : p.links) {
      if (l.transport == "LOCAL" || l.src == l.dst) continue;
      // Unknown values (NaN from the reader) and anything else that is not a
      // finite positive measurement are no evidence: such a link is neither
      // compared nor averaged into its transport's mean.
      if (!UsableMeasure(l.bandwidth_gbps) || !UsableMeasure(l.size_mb, /*allow_zero=*/true))
        continue;
      if (any_total && l.statistic != "total") continue;
      LinkAgg& agg = links[{p.rank >= 0 ? p.rank : static_cast<int32_t>(i), l.group_hash, l.src,
                            l.dst, l.transport}];
      agg.bandwidth_sum += l.bandwidth_gbps;
      agg.size_mb_sum += l.size_mb;
      ++agg.n;
      if (agg.op_type.empty()) agg.op_type = l.op_type;
    }
  }
  // A link that moved less than |min_mb_per_step| is latency-bound: its
  // "bandwidth" is a few bytes over the fixed cost of a handshake (the Qwen
  // 4-rank sample: 96-byte all-gathers at 0.08 GB/s next to 19 GB/s for the
  // 375 MB ones), so comparing it with bulk transfers flags every such link.
  std::erase_if(links, [min_mb_per_step](const auto& kv) {
    return kv.second.size_mb_sum / static_cast<double>(kv.second.n) < min_mb_per_step;
  });
  std::map<std::string, std::pair<double, int64_t>> per_transport;
  for (const auto& [key, agg] : links) {
    auto& t = per_transport[key.transport];
    t.first += agg.bandwidth_sum / static_cast<double>(agg.n);
    ++t.second;
  }
  *links_checked = static_cast<int64_t>(links.size());
  std::vector<SlowLink> slow;
  for (const auto& [key, agg] : links) {
    const auto& t = per_transport[key.transport];
    if (t.second < 2) continue;  // nothing to compare with
    const double mean = t.first / static_cast<double>(t.second);
    const double bw = agg.bandwidth_sum / static_cast<double>(agg.n);
    if (!(mean > 0) || !std::isfinite(mean) || !(bw < max_ratio * mean)) continue;
    SlowLink s;
    s.reporting_rank = key.rank;
    s.group_hash = key.group;
    s.src = GlobalRank(global, key.group, key.src);
    s.dst = GlobalRank(global, key.group, key.dst);
    s.transport = key.transport;
    s.op_type = agg.op_type;
    s.bandwidth_gbps = bw;
    s.transport_mean_gbps = mean;
    s.ratio = bw / mean;
    slow.push_back(s);
  }
  return slow;
}

}  // namespace trainscope::analysis
