#include "analysis/common/visited_quantiles.h"

namespace trainscope::analysis {

OrderStatistics::OrderStatistics(std::vector<size_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  for (const size_t rank : ranks) wanted_.push_back(Wanted{rank, rank, 0});
  if (wanted_.empty()) shift_ = -kDigitBits;
}

void OrderStatistics::BeginPass() {
  // Wanted ranks are ascending and so are their keys: equal prefixes are
  // neighbours.
  prefixes_.clear();
  for (const Wanted& w : wanted_) {
    if (prefixes_.empty() || prefixes_.back() != w.prefix) prefixes_.push_back(w.prefix);
  }
  groups_ = prefixes_.size();
  mask_ = shift_ + kDigitBits >= 64 ? 0 : ~uint64_t{0} << (shift_ + kDigitBits);
  counts_.assign(groups_ << kDigitBits, 0);
}

void OrderStatistics::EndPass() {
  for (Wanted& w : wanted_) {
    const size_t group = static_cast<size_t>(
        std::find(prefixes_.begin(), prefixes_.end(), w.prefix) - prefixes_.begin());
    const uint32_t* counts = counts_.data() + (group << kDigitBits);
    uint64_t digit = 0;
    while (w.within >= counts[digit]) {
      w.within -= counts[digit];
      ++digit;
    }
    w.prefix |= digit << shift_;
  }
  shift_ -= kDigitBits;
}

uint64_t OrderStatistics::KeyAt(size_t rank) const {
  const auto it = std::lower_bound(wanted_.begin(), wanted_.end(), rank,
                                   [](const Wanted& w, size_t r) { return w.rank < r; });
  return it->prefix;
}

}  // namespace trainscope::analysis
