// `trainscope explain`: the findings catalogue as text (title, evidence,
// cause, remedy and gain model of an id, with the thresholds it decides by
// and where each number comes from).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/common/findings_catalog.h"
#include "analysis/motifs/fingerprint_library.h"

namespace trainscope::report {

// Every finding id, one per line with its title: the catalogue's detectors,
// then the fingerprint ids of |library|.
std::string ListFindingIds(const analysis::FindingCatalog& catalog,
                           const analysis::FingerprintLibrary& library);

// The catalogue entry of |id|; nullopt when |id| is no finding id.
// Threshold placeholders are filled in, evidence placeholders stay {name}.
std::optional<std::string> ExplainFinding(const analysis::FindingCatalog& catalog,
                                          const analysis::FingerprintLibrary& library,
                                          std::string_view id);

}  // namespace trainscope::report
