// Looking findings and their evidence up in the tests of detectors.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "analysis/common/finding.h"
#include "analysis/job/rank_analysis.h"

namespace trainscope::testing {

// The finding with |id|, or nullptr.
inline const analysis::Finding* FindingWithId(const std::vector<analysis::Finding>& findings,
                                              std::string_view id) {
  auto it = std::find_if(findings.begin(), findings.end(),
                         [&](const analysis::Finding& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}

inline const analysis::Finding* FindingWithId(const analysis::JobAnalysis& job,
                                              std::string_view id) {
  return FindingWithId(job.findings, id);
}

// The evidence value |key| of |finding|; a finding without it fails the
// test (NaN then, which no expectation on a number accepts).
inline double EvidenceValue(const analysis::Finding& finding, std::string_view key) {
  for (const auto& [name, value] : finding.evidence_values) {
    if (name == key) return value;
  }
  ADD_FAILURE() << finding.id << " has no evidence value " << key;
  return NAN;
}

}  // namespace trainscope::testing
