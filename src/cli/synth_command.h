#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "synth/synth.h"

namespace trainscope::cli {

// Applies "--fused a,b,c" names (rmsnorm, gated-norm, swiglu, cross-entropy,
// custom-op, unshard, numa, all) to |options|.
Status ApplyFusedList(const std::vector<std::string>& names, synth::SynthOptions* options);
Status ParseHeaderVariant(const std::string& name, synth::HeaderVariant* header);

}  // namespace trainscope::cli
