// "Did you mean" for the command line: the known word nearest to what was
// typed, by edit distance, when it is near enough to be a typo.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::cli {

// Levenshtein distance (insert, delete, substitute: 1 each; a swap of two
// neighbours also 1, the commonest typo).
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to |typed|, when at most a third of its letters
// (at least 1, at most 3) differ; ties go to the first candidate. None when
// nothing is that close: a wild guess helps less than the list.
std::optional<std::string> NearestWord(std::string_view typed,
                                       const std::vector<std::string>& candidates);

}  // namespace trainscope::cli
