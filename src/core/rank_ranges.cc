#include "core/rank_ranges.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace trainscope {

namespace {

// "1,024": rank counts are read at a glance.
std::string GroupThousands(size_t n) {
  std::string digits = std::to_string(n);
  for (size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, 1, ',');
  return digits;
}

std::vector<int64_t> SortedUnique(std::vector<int64_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::string RunsOf(const std::vector<int64_t>& ranks, size_t max_pieces) {
  if (ranks.empty()) return "none";
  std::string out;
  size_t pieces = 0;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (pieces == max_pieces) {
      out += fmt::format(", ... ({} ranks in all)", ranks.size());
      return out;
    }
    if (!out.empty()) out += ", ";
    if (j - i >= 2) {
      out += fmt::format("{}-{}", ranks[i], ranks[j]);
      i = j + 1;
    } else {
      out += fmt::format("{}", ranks[i]);
      ++i;
    }
    ++pieces;
  }
  return out;
}

}  // namespace

std::string CompactRankList(std::span<const int64_t> ranks, size_t max_pieces) {
  return RunsOf(SortedUnique({ranks.begin(), ranks.end()}), max_pieces);
}

std::string CompactRankList(std::span<const int32_t> ranks, size_t max_pieces) {
  return RunsOf(SortedUnique({ranks.begin(), ranks.end()}), max_pieces);
}

std::string CompactRankSet(std::span<const int32_t> ranks, size_t total) {
  return CompactRankSet(std::vector<int64_t>(ranks.begin(), ranks.end()), total);
}

std::string CompactRankSet(std::span<const int64_t> ranks, size_t total) {
  const std::vector<int64_t> sorted = SortedUnique({ranks.begin(), ranks.end()});
  const bool within =
      !sorted.empty() && sorted.front() >= 0 && sorted.back() < static_cast<int64_t>(total);
  if (!within || total < 2) return RunsOf(sorted, 8);
  if (sorted.size() == total) return fmt::format("all {} ranks", GroupThousands(total));
  const size_t missing = total - sorted.size();
  if (total >= 8 && missing <= 3) {
    std::vector<int64_t> absent;
    for (int64_t r = 0, k = 0; r < static_cast<int64_t>(total); ++r) {
      if (k < static_cast<int64_t>(sorted.size()) && sorted[k] == r) {
        ++k;
      } else {
        absent.push_back(r);
      }
    }
    return fmt::format("all {} ranks but {}", GroupThousands(total), RunsOf(absent, 8));
  }
  return RunsOf(sorted, 8);
}

}  // namespace trainscope
