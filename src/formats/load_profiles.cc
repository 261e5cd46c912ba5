#include "formats/load_profiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
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

// |no_data|: NoDataReason of each loaded rank, in discovery order.
Status NoUsableData(const std::vector<std::string>& no_data,
                    const std::vector<model::InputIssue>& failed,
                    const std::vector<model::InputIssue>& skipped) {
  std::string lines;
  for (const std::string& reason : no_data) lines += "\n  " + reason;
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
  return profile.device_events.size() > 0 || !profile.step_trace.empty();
}

Result<StreamedProfiles> ForEachProfile(const std::vector<std::string>& paths, unsigned threads,
                                        const std::vector<model::ClassRule>* activity_rules,
                                        const ProfileCallback& consume, const ProfileShard& shard) {
  StreamedProfiles streamed;
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
        streamed.skipped.push_back(std::move(issue));
    }
  }

  const bool sharded = shard.count > 1;
  if (sharded && shard.index != 0) streamed.skipped.clear();
  // The shard's block of the discovery order: [first, last).
  const size_t count = std::max<size_t>(1, shard.count);
  const size_t first = locations.size() * std::min(shard.index, count) / count;
  const size_t last = locations.size() * std::min(shard.index + 1, count) / count;
  const size_t mine = sharded ? last - first : locations.size();
  const unsigned file_threads = ThreadsPerItem(threads, mine);
  // Per location: the load error, or why a loaded rank has no usable data
  // (for the message when no rank has any). Each slot is written by one task.
  struct Outcome {
    std::optional<Status> error;
    bool loaded = false;
    bool usable = false;
    std::string no_data;
  };
  std::vector<Outcome> outcomes(locations.size());
  const size_t offset = sharded ? first : 0;
  ParallelFor(mine, threads, [&](size_t k) {
    const size_t i = offset + k;
    Outcome& outcome = outcomes[i];
    std::optional<model::RankProfile> profile;
    // One rank running out of memory fails that rank, not the job.
    try {
      Result<model::RankProfile> result = LoadLocation(locations[i], file_threads, activity_rules);
      if (!result.ok()) {
        outcome.error = result.status();
        return;
      }
      profile.emplace(std::move(result).value());
    } catch (const std::exception& e) {
      outcome.error =
          InternalError(fmt::format("{}: loading failed: {}", locations[i].path, e.what()));
      return;
    }
    if (locations[i].rank_hint >= 0) {
      profile->rank = locations[i].rank_hint;
    } else if (profile->rank >= 0) {
      // A trace's distributedInfo.rank, set by its reader.
    } else if (profile->info.rank) {
      profile->rank = *profile->info.rank;
    } else {
      profile->rank = static_cast<int32_t>(i);
    }
    outcome.loaded = true;
    outcome.usable = HasUsableData(*profile);
    if (!outcome.usable) outcome.no_data = NoDataReason(*profile);
    consume(i, file_threads, std::move(*profile));
  });

  std::vector<std::string> no_data;
  bool any_usable = false;
  for (size_t i = offset; i < offset + mine; ++i) {
    const Outcome& outcome = outcomes[i];
    if (outcome.error) {
      // The messages of the readers start with the file they name.
      streamed.failed.push_back({locations[i].path, outcome.error->message()});
      continue;
    }
    ++streamed.loaded;
    any_usable |= outcome.usable;
    if (!outcome.usable) no_data.push_back(outcome.no_data);
  }
  if (sharded) return streamed;
  if (streamed.loaded == 0) return NothingLoaded(streamed.failed, streamed.skipped);
  if (!any_usable) return NoUsableData(no_data, streamed.failed, streamed.skipped);
  return streamed;
}

Result<LoadedProfiles> LoadProfiles(const std::vector<std::string>& paths, unsigned threads,
                                    const std::vector<model::ClassRule>* activity_rules) {
  // Kept in discovery order, then sorted by rank (stable: discovery order
  // among equal ranks).
  std::mutex mutex;
  std::vector<std::pair<size_t, model::RankProfile>> kept;
  TS_ASSIGN_OR_RETURN(StreamedProfiles streamed,
                      ForEachProfile(paths, threads, activity_rules,
                                     [&](size_t index, unsigned, model::RankProfile&& profile) {
                                       std::lock_guard<std::mutex> lock(mutex);
                                       kept.emplace_back(index, std::move(profile));
                                     }));
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    if (a.second.rank != b.second.rank) return a.second.rank < b.second.rank;
    return a.first < b.first;
  });
  LoadedProfiles loaded;
  loaded.profiles.reserve(kept.size());
  for (auto& [index, profile] : kept) loaded.profiles.push_back(std::move(profile));
  loaded.failed = std::move(streamed.failed);
  loaded.skipped = std::move(streamed.skipped);
  return loaded;
}

}  // namespace trainscope::formats
