#include "synth_job.h"

#include <filesystem>

#include "analysis/common/family_rules.h"
#include "test_paths.h"

namespace trainscope::testing {

Result<formats::LoadedProfiles> LoadSynthJob(const synth::SynthOptions& options,
                                             const std::string& tag, unsigned threads,
                                             std::string* dir) {
  const std::string path = MakeTempDir(tag);
  if (dir != nullptr) *dir = path;
  TS_RETURN_IF_ERROR(synth::WriteSynthJob(options, path));
  return formats::LoadProfiles({path}, threads);
}

Result<analysis::JobAnalysis> AnalyzeSynthJob(const synth::SynthOptions& options,
                                              const std::string& tag) {
  std::string dir;
  Result<formats::LoadedProfiles> profiles = LoadSynthJob(options, tag, 2, &dir);
  if (!profiles.ok()) return profiles.status();
  Result<analysis::JobAnalysis> job = analysis::AnalyzeJob(
      profiles->profiles, analysis::FamilyRules::Merge({}, analysis::FamilyRules::Builtin()),
      analysis::AnalysisOptions{}, 2);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return job;
}

}  // namespace trainscope::testing
