#include "formats/load_profiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "core/parallel.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "formats/profile_discovery.h"
#include "formats/trace/kineto_reader.h"

namespace trainscope::formats {

namespace {

// |file_threads|: parser threads for one big trace file; ranks already run
// in parallel, so a file gets the cores the other ranks leave.
Result<model::RankProfile> LoadLocation(const ProfileLocation& location, unsigned file_threads,
                                        const std::vector<model::ClassRule>* activity_rules) {
  if (location.kind == ProfileKind::kAscendRank) return LoadAscendRank(location.path);
  model::RankProfile profile;
  profile.source_dir = location.path;
  trace::ScanOptions options;
  options.threads = file_threads;
  options.activity_rules = activity_rules;
  TS_RETURN_IF_ERROR(ReadKinetoTrace(location.path, &profile, options));
  return profile;
}

}  // namespace

Result<std::vector<model::RankProfile>> LoadProfiles(const std::vector<std::string>& paths,
                                                     unsigned threads,
                                                     const std::vector<model::ClassRule>* activity_rules) {
  std::vector<ProfileLocation> locations;
  std::set<std::string> seen;  // the same rank given twice (job dir + rank dir) loads once
  for (const std::string& path : paths) {
    TS_ASSIGN_OR_RETURN(std::vector<ProfileLocation> found, DiscoverProfiles(path));
    for (ProfileLocation& location : found) {
      if (seen.insert(location.path).second) locations.push_back(std::move(location));
    }
  }

  const unsigned file_threads =
      std::max(1u, threads / static_cast<unsigned>(std::max<size_t>(1, locations.size())));
  std::vector<std::optional<Result<model::RankProfile>>> results(locations.size());
  ParallelFor(locations.size(), threads,
              [&](size_t i) { results[i].emplace(LoadLocation(locations[i], file_threads, activity_rules)); });

  std::vector<model::RankProfile> profiles;
  profiles.reserve(locations.size());
  for (size_t i = 0; i < locations.size(); ++i) {
    Result<model::RankProfile>& result = *results[i];
    if (!result.ok()) {
      return Status(result.status().code(),
                    fmt::format("loading {}: {}", locations[i].path,
                                result.status().message()));
    }
    model::RankProfile profile = std::move(result).value();
    if (locations[i].rank_hint >= 0) {
      profile.rank = locations[i].rank_hint;
    } else if (profile.rank >= 0) {
      // A trace's distributedInfo.rank, set by its reader.
    } else if (profile.info.rank) {
      profile.rank = *profile.info.rank;
    } else {
      profile.rank = static_cast<int32_t>(i);
    }
    profiles.push_back(std::move(profile));
  }
  std::stable_sort(
      profiles.begin(), profiles.end(),
      [](const model::RankProfile& a, const model::RankProfile& b) { return a.rank < b.rank; });
  return profiles;
}

}  // namespace trainscope::formats
