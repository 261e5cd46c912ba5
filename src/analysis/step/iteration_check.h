// Does the iteration window agree with the host's own step?
//
// In steady state an iteration lasts as long as its host step: the host
// issues step N+1 as soon as step N's ProfilerStep ends, so the median
// iteration and the median ProfilerStep differ by the device's lag only.
// Where they differ by more than kIterationAgreement, the windows measure
// something else than the user's iteration (a host step that ends before its
// device work is queued, annotations that do not nest), and the rank says so
// instead of judging time shares silently.
#pragma once

#include <string>

#include "model/rank_profile.h"

namespace trainscope::analysis {

// Five percent: the agreement the method asks of the iteration span against
// ProfilerStep's duration in steady state (docs/timelines.md, "The
// iteration").
inline constexpr double kIterationAgreement = 0.05;

// A warning when the median steady iteration and the median host step
// differ by more than kIterationAgreement; "" when they agree or the
// profile has no iterations.
std::string IterationWarning(const model::RankProfile& profile);

}  // namespace trainscope::analysis
