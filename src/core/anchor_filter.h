// Whether a line may hold one of a fixed set of texts (its anchors), in one
// pass over the line instead of one search per text.
//
// A reader that looks for dozens of texts in every line (the failure scan of
// `triage`: ~45 texts a c10d or training-log line, a find each) spends most
// of its time on lines that hold none of them. Each anchor's first four
// bytes are set in a table of 2^16 bits; every four bytes of a line are
// looked up there, and a hit is compared with the anchors' first four bytes
// themselves. A line holding an anchor is never missed (its first four bytes
// are in the line); a line that passes may still hold none, and is then read
// as before.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

namespace trainscope {

class AnchorFilter {
 public:
  // An anchor shorter than this passes every line: the filter then decides
  // nothing.
  static constexpr size_t kMinAnchorBytes = 4;

  explicit AnchorFilter(std::initializer_list<std::string_view> anchors)
      : AnchorFilter(std::span<const std::string_view>(anchors.begin(), anchors.size())) {}

  explicit AnchorFilter(std::span<const std::string_view> anchors) {
    for (std::string_view anchor : anchors) {
      if (anchor.size() < kMinAnchorBytes) {
        every_line_ = true;
        continue;
      }
      const uint32_t gram = GramAt(anchor.data());
      const uint32_t bit = BitOf(gram);
      bits_[bit >> 6] |= uint64_t{1} << (bit & 63);
      grams_.push_back(gram);
    }
    std::sort(grams_.begin(), grams_.end());
    grams_.erase(std::unique(grams_.begin(), grams_.end()), grams_.end());
  }

  // False only when |line| holds none of the anchors.
  bool MayHold(std::string_view line) const {
    if (every_line_) return true;
    if (line.size() < kMinAnchorBytes) return false;
    const char* p = line.data();
    for (size_t i = 0, end = line.size() - kMinAnchorBytes; i <= end; ++i) {
      const uint32_t gram = GramAt(p + i);
      const uint32_t bit = BitOf(gram);
      if (((bits_[bit >> 6] >> (bit & 63)) & 1) != 0 &&
          std::binary_search(grams_.begin(), grams_.end(), gram)) {
        return true;
      }
    }
    return false;
  }

 private:
  static uint32_t GramAt(const char* p) {
    uint32_t gram = 0;
    std::memcpy(&gram, p, sizeof gram);
    return gram;
  }
  // Fibonacci hashing: the product's top 16 bits.
  static uint32_t BitOf(uint32_t gram) { return (gram * 0x9E3779B1u) >> 16; }

  std::array<uint64_t, (1 << 16) / 64> bits_{};
  std::vector<uint32_t> grams_;  // sorted, distinct
  bool every_line_ = false;
};

}  // namespace trainscope
