#include "formats/load_profiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <system_error>

#include "core/parallel.h"
#include "formats/importer_registry.h"
#include "formats/profile_discovery.h"

namespace trainscope::formats {

namespace {

namespace fs = std::filesystem;

// |file_threads|: parser threads for one big trace file; ranks already run
// in parallel, so a file gets the cores the other ranks leave. The importer
// that claimed the location in discovery reads it (importer_registry.h).
Result<model::RankProfile> LoadLocation(const ProfileLocation& location, unsigned file_threads,
                                        const std::vector<model::ClassRule>* activity_rules) {
  ImportOptions options;
  options.threads = file_threads;
  options.activity_rules = activity_rules;
  return LoadWith(*location.importer, location.path, options);
}

// One key per file system object, whatever the spelling (./job, /abs/job,
// job/, a symlink to it).
std::string IdentityKey(const std::string& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

// "<path>: <reason>" unless the reason names the path already.
std::string Describe(const model::InputIssue& issue) {
  if (issue.reason.rfind(issue.path, 0) == 0) return issue.reason;
  return fmt::format("{}: {}", issue.path, issue.reason);
}

std::string NoDataReason(const model::RankProfile& profile) {
  if (profile.timeline.present && profile.timeline.format == "kineto") {
    return fmt::format("{}: no GPU/NPU kernels ({} host ops, no device activities)",
                       profile.source_dir, profile.timeline.host_ops.size());
  }
  return fmt::format("{}: no NPU kernels in kernel_details.csv and no step_trace_time.csv rows",
                     profile.source_dir);
}

// The files discovery passed over, for the messages that end the run: the
// data the user expected may be there.
std::string SkippedLines(const std::vector<model::InputIssue>& skipped) {
  constexpr size_t kShown = 10;
  std::string lines;
  for (size_t i = 0; i < skipped.size() && i < kShown; ++i) {
    const std::string text = Describe(skipped[i]);
    lines += "\n  skipped: " + text.substr(0, text.find('\n'));
  }
  if (skipped.size() > kShown)
    lines += fmt::format("\n  ... and {} more skipped", skipped.size() - kShown);
  return lines;
}

Status NoUsableData(const std::vector<model::RankProfile>& profiles,
                    const std::vector<model::InputIssue>& failed,
                    const std::vector<model::InputIssue>& skipped) {
  std::string lines;
  for (const auto& profile : profiles) lines += "\n  " + NoDataReason(profile);
  for (const auto& issue : failed) {
    const std::string text = Describe(issue);
    lines += "\n  not loaded: " + text.substr(0, text.find('\n'));
  }
  lines += SkippedLines(skipped);
  return InvalidInput(fmt::format(
      "no usable data: no rank has device kernels or step times{}\nhint: capture device activity: "
      "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) on GPU, "
      "torch_npu.profiler.profile(activities=[torch_npu.profiler.ProfilerActivity.CPU, "
      "torch_npu.profiler.ProfilerActivity.NPU]) on Ascend, and let the profiler run for at least "
      "one step",
      lines));
}

Status NothingLoaded(const std::vector<model::InputIssue>& failed,
                     const std::vector<model::InputIssue>& skipped) {
  std::string lines;
  for (const auto& issue : failed) {
    // Each message keeps its own hint, indented under it.
    std::string reason = Describe(issue);
    for (size_t pos = reason.find('\n'); pos != std::string::npos;
         pos = reason.find('\n', pos + 5)) {
      reason.replace(pos, 1, "\n    ");
    }
    lines += fmt::format("\n  {}", reason);
  }
  lines += SkippedLines(skipped);
  return InvalidInput(fmt::format("no rank could be loaded ({} tried):{}", failed.size(), lines));
}

}  // namespace

bool HasUsableData(const model::RankProfile& profile) {
  return profile.kernels.size() > 0 || profile.timeline.activities.size() > 0 ||
         !profile.step_trace.empty();
}

Result<LoadedProfiles> LoadProfiles(const std::vector<std::string>& paths, unsigned threads,
                                    const std::vector<model::ClassRule>* activity_rules) {
  LoadedProfiles loaded;
  std::vector<ProfileLocation> locations;
  std::set<std::string> seen;  // the same rank given twice (job dir + rank dir) loads once
  std::set<std::string> seen_skipped;
  for (const std::string& path : paths) {
    TS_ASSIGN_OR_RETURN(Discovery found, DiscoverProfiles(path));
    for (ProfileLocation& location : found.profiles) {
      if (seen.insert(IdentityKey(location.path)).second) locations.push_back(std::move(location));
    }
    for (model::InputIssue& issue : found.skipped) {
      if (seen_skipped.insert(IdentityKey(issue.path)).second)
        loaded.skipped.push_back(std::move(issue));
    }
  }

  const unsigned file_threads =
      std::max(1u, threads / static_cast<unsigned>(std::max<size_t>(1, locations.size())));
  std::vector<std::optional<Result<model::RankProfile>>> results(locations.size());
  ParallelFor(locations.size(), threads, [&](size_t i) {
    // One rank running out of memory fails that rank, not the job.
    try {
      results[i].emplace(LoadLocation(locations[i], file_threads, activity_rules));
    } catch (const std::exception& e) {
      results[i].emplace(
          InternalError(fmt::format("{}: loading failed: {}", locations[i].path, e.what())));
    }
  });

  loaded.profiles.reserve(locations.size());
  for (size_t i = 0; i < locations.size(); ++i) {
    Result<model::RankProfile>& result = *results[i];
    if (!result.ok()) {
      // The messages of the readers start with the file they name.
      loaded.failed.push_back({locations[i].path, result.status().message()});
      continue;
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
    loaded.profiles.push_back(std::move(profile));
  }
  if (loaded.profiles.empty()) return NothingLoaded(loaded.failed, loaded.skipped);
  if (std::none_of(loaded.profiles.begin(), loaded.profiles.end(), HasUsableData)) {
    return NoUsableData(loaded.profiles, loaded.failed, loaded.skipped);
  }
  std::stable_sort(
      loaded.profiles.begin(), loaded.profiles.end(),
      [](const model::RankProfile& a, const model::RankProfile& b) { return a.rank < b.rank; });
  return loaded;
}

}  // namespace trainscope::formats
