#include "analysis/accuracy/op_alignment.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace trainscope::analysis {
namespace {

bool IsNumber(std::string_view part) {
  return !part.empty() &&
         std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> Split(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t dot = text.find('.', start);
    const size_t end = dot == std::string_view::npos ? text.size() : dot;
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// "forward", "backward", and a module's "parameters_grad" (its counter counts
// grad_fn triggers, which shift between runs as call counters do).
bool IsPassName(std::string_view part) {
  return part == "forward" || part == "backward" || part == "parameters_grad";
}

// Fallback for very different sequences: the k-th "X" of BASE is the k-th
// "X" of NEW, kept only while it moves forward on both sides.
std::vector<AlignedPair> AlignByOccurrence(const std::vector<std::string>& base,
                                           const std::vector<std::string>& next) {
  std::map<std::string_view, std::vector<size_t>> positions;
  for (size_t j = 0; j < next.size(); ++j) positions[next[j]].push_back(j);
  std::map<std::string_view, size_t> seen;
  std::vector<AlignedPair> out;
  size_t j = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    const size_t k = seen[base[i]]++;
    auto it = positions.find(base[i]);
    if (it == positions.end() || k >= it->second.size() || it->second[k] < j) {
      out.push_back({i, std::nullopt});
      continue;
    }
    for (; j < it->second[k]; ++j) out.push_back({std::nullopt, j});
    out.push_back({i, j++});
  }
  for (; j < next.size(); ++j) out.push_back({std::nullopt, j});
  return out;
}

}  // namespace

std::string NormalisedOpName(std::string_view op) {
  // msprobe: "Functional.linear.3.forward", "Tensor.add.0.backward",
  // "Module.layers.0.mlp.MLP.forward.0": the counter next to forward /
  // backward counts calls of that API and shifts with any extra call.
  const std::vector<std::string_view> parts = Split(op);
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool next_is_pass = i + 1 < parts.size() && IsPassName(parts[i + 1]);
    const bool prev_is_pass = i > 0 && IsPassName(parts[i - 1]);
    if (IsNumber(parts[i]) && (next_is_pass || (prev_is_pass && i + 1 == parts.size()))) continue;
    if (!out.empty()) out += '.';
    out += parts[i];
  }
  return out;
}

std::vector<AlignedPair> AlignSequences(const std::vector<std::string>& base,
                                        const std::vector<std::string>& next, size_t max_edits) {
  const int64_t n = static_cast<int64_t>(base.size());
  const int64_t m = static_cast<int64_t>(next.size());
  const int64_t max_d = std::min<int64_t>(n + m, static_cast<int64_t>(max_edits));
  const int64_t offset = max_d + 1;
  std::vector<int64_t> v(static_cast<size_t>(2 * max_d + 3), 0);
  std::vector<std::vector<int64_t>> trace;  // v before each round d, over [-d-1, d+1]
  int64_t found_d = -1;
  for (int64_t d = 0; d <= max_d && found_d < 0; ++d) {
    trace.emplace_back(v.begin() + (offset - d - 1), v.begin() + (offset + d + 2));
    for (int64_t k = -d; k <= d; k += 2) {
      int64_t x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
                      ? v[offset + k + 1]
                      : v[offset + k - 1] + 1;
      int64_t y = x - k;
      while (x < n && y < m && base[x] == next[y]) {
        ++x;
        ++y;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
  }
  if (found_d < 0) return AlignByOccurrence(base, next);
  // Walk back from (n, m): diagonals are matches, other moves an insertion
  // (NEW only) or a deletion (BASE only).
  std::vector<AlignedPair> reversed;
  int64_t x = n, y = m;
  for (int64_t d = found_d; d > 0; --d) {
    const std::vector<int64_t>& saved = trace[static_cast<size_t>(d)];
    auto at = [&](int64_t k) { return saved[static_cast<size_t>(k + d + 1)]; };
    const int64_t k = x - y;
    const int64_t prev_k = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    const int64_t prev_x = at(prev_k);
    const int64_t prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      --x;
      --y;
      reversed.push_back({static_cast<size_t>(x), static_cast<size_t>(y)});
    }
    if (x == prev_x) {
      reversed.push_back({std::nullopt, static_cast<size_t>(prev_y)});
    } else {
      reversed.push_back({static_cast<size_t>(prev_x), std::nullopt});
    }
    x = prev_x;
    y = prev_y;
  }
  while (x > 0 && y > 0) {
    --x;
    --y;
    reversed.push_back({static_cast<size_t>(x), static_cast<size_t>(y)});
  }
  return {reversed.rbegin(), reversed.rend()};
}

}  // namespace trainscope::analysis
