// Discovering and loading every rank under the paths a user gives.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/input_issue.h"
#include "model/rank_profile.h"
#include "model/timeline_classify.h"

namespace trainscope::formats {

struct LoadedProfiles {
  std::vector<model::RankProfile> profiles;  // sorted by rank
  // Ranks that could not be loaded (path = the rank directory or trace file,
  // reason = the error with its hint). The rest of the job is analysed.
  std::vector<model::InputIssue> failed;
  // Files under the paths that discovery did not take (DiscoverProfiles).
  std::vector<model::InputIssue> skipped;
};

// Runs DiscoverProfiles on each path (a path that fails discovery fails the
// call: the user named it), loads all ranks in parallel on up to |threads|
// threads and returns them sorted by rank. The same profile reached twice
// (job dir + rank dir, two spellings, a symlink) loads once. A profile's
// rank is the rank in its profiler_info_<N>.json file name, else rank_id
// inside it, else its index in discovery order.
// A rank that cannot be loaded (no kernel_details.csv and no
// step_trace_time.csv, an unusable kernel_details.csv header, an unreadable
// trace) is listed in |failed| and the others are returned. Fails with
// kInvalidInput (exit 2) when no rank loads, naming each failure, or when
// no loaded rank has usable data (device kernels/activities or step-trace
// rows), naming each rank and what to profile instead.
// |activity_rules|: name rules for Kineto device activities (nullptr = the
// built-in ones, see trace::ScanOptions).
Result<LoadedProfiles> LoadProfiles(const std::vector<std::string>& paths, unsigned threads,
                                    const std::vector<model::ClassRule>* activity_rules = nullptr);

struct StreamedProfiles {
  size_t loaded = 0;  // profiles handed to the callback
  std::vector<model::InputIssue> failed;
  std::vector<model::InputIssue> skipped;
};

// Called once per loaded rank, on one of the loader's threads. |index|: the
// rank's position in discovery order (the tie-break among equal ranks);
// |rank_threads|: the threads this rank may use for its own work (the cores
// the other ranks leave); |profile| is freed when the callback returns,
// unless it moves it away.
using ProfileCallback =
    std::function<void(size_t index, unsigned rank_threads, model::RankProfile&& profile)>;

// LoadProfiles without keeping the job: each rank is loaded, handed to
// |consume| and freed, on up to |threads| threads, so at most |threads|
// profiles are alive at once. Discovery, de-duplication, rank numbering,
// |failed|, |skipped| and the errors (no rank loaded, no usable data) are
// those of LoadProfiles; the errors come after every loaded rank has been
// handed over.
// One process's share of the ranks in the MPI mode: of the discovered ranks
// (in discovery order, which keeps one node's ranks together), the
// contiguous block |index| of |count|.
struct ProfileShard {
  size_t index = 0;
  size_t count = 1;
};

// With a |shard| of count > 1 only its block is loaded; |failed| lists its
// block's failures, |skipped| is filled by shard 0 only, and "no rank
// loaded" / "no usable data" are not errors here: they are the whole job's
// to decide, once every shard is gathered.
Result<StreamedProfiles> ForEachProfile(const std::vector<std::string>& paths, unsigned threads,
                                        const std::vector<model::ClassRule>* activity_rules,
                                        const ProfileCallback& consume,
                                        const ProfileShard& shard = {});

// Whether a loaded rank has anything the analyses can use: device kernels
// (kernel_details.csv or a trace's device activities) or step-trace rows.
bool HasUsableData(const model::RankProfile& profile);

}  // namespace trainscope::formats
