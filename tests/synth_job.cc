#include "synth_job.h"

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

}  // namespace trainscope::testing
