// Which call of BASE is which call of NEW (docs/accuracy.md): the calls'
// names are normalised (msprobe's per-API call counter dropped:
// "Functional.linear.3.forward" -> "Functional.linear.forward") and the two
// sequences aligned by a shortest edit script (Myers' O((N+M)D) diff), so an
// extra or missing call shifts nothing after it, and a fused kernel that
// replaces several eager calls is one run of unmatched calls: one span.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::analysis {

std::string NormalisedOpName(std::string_view op);

struct AlignedPair {
  std::optional<size_t> base;  // index into the BASE sequence; nullopt: NEW only
  std::optional<size_t> next;  // index into the NEW sequence; nullopt: BASE only
};

// In order of both sequences. Beyond |max_edits| differences the alignment
// falls back to matching the k-th occurrence of each name on both sides.
std::vector<AlignedPair> AlignSequences(const std::vector<std::string>& base,
                                        const std::vector<std::string>& next,
                                        size_t max_edits = 2048);

}  // namespace trainscope::analysis
