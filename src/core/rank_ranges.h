// Rank lists people can read at 1,024 ranks: "0-3, 7, 9-1023" instead of a
// screen of digits, "all 1,024 ranks but 7" when nearly every rank is in.
// The full list stays in the JSON; this is for text, HTML and titles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace trainscope {

// The ranks as sorted runs, "a-b" for three or more consecutive ranks and
// "a, b" otherwise; duplicates ignored. At most |max_pieces| runs are written,
// then "... (N ranks in all)". "none" when empty.
std::string CompactRankList(std::span<const int64_t> ranks, size_t max_pieces = 8);
std::string CompactRankList(std::span<const int32_t> ranks, size_t max_pieces = 8);

// As CompactRankList, but "all N ranks" when |ranks| are all |total| ranks
// 0..total-1, and "all N ranks but 7, 9" when at most three are missing from
// eight or more.
std::string CompactRankSet(std::span<const int32_t> ranks, size_t total);
std::string CompactRankSet(std::span<const int64_t> ranks, size_t total);

}  // namespace trainscope
