// A synth job written to a fresh temp directory and loaded: the set-up many
// analysis tests share.
#pragma once

#include <string>

#include "analysis/job/rank_analysis.h"
#include "core/status.h"
#include "formats/load_profiles.h"
#include "synth/synth.h"

namespace trainscope::testing {

// Writes the job of |options| under a new temp dir named after |tag| and
// loads every rank with |threads|; the directory is returned in |dir| when
// asked for. An error says which of the two steps failed.
Result<formats::LoadedProfiles> LoadSynthJob(const synth::SynthOptions& options,
                                             const std::string& tag, unsigned threads = 2,
                                             std::string* dir = nullptr);

// The same job analysed whole with the built-in rules and default options
// (its directory removed after): what a test of a cross-rank analysis needs.
Result<analysis::JobAnalysis> AnalyzeSynthJob(const synth::SynthOptions& options,
                                              const std::string& tag);

}  // namespace trainscope::testing
