// The annotated trace (`analyze --perfetto FILE`): Chrome trace JSON that
// Perfetto UI, chrome://tracing and MindStudio Insight open, and that
// trainscope's own Kineto reader reads back (docs/exports.md).
//
// Every rank is a process (pid = rank) and every device stream a thread
// (tid = stream); every device event of every captured step is an "X" slice
// whose ts/dur are the profile's int64 nanoseconds written as exact decimal
// microseconds; the host ops that launched device work are slices on host
// threads. trainscope's results are extra threads of each rank: its step
// windows (ProfilerStep#N, so a re-read assigns the same steps) with the
// job's selected step marked, fingerprint and motif instances, idle gaps,
// pseudo-overlap windows, and the findings as instant events. Rank parts are
// rendered per rank (TraceRankPart) while its profile is alive; the job's
// part (TraceJobPart) after Combine.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "export/rank_tracks.h"
#include "model/rank_profile.h"

namespace trainscope::exports {

inline constexpr const char* kTraceSchema = "trainscope.trace/1";

// Thread ids of trainscope's tracks inside a rank's process (device streams
// keep their own numbers, host threads count up from kHostTidBase).
inline constexpr int64_t kHostTidBase = 100'000'000;
inline constexpr int64_t kNoStreamTid = 150'000'000;  // device events without a stream id
inline constexpr int64_t kStepsTid = 200'000'001;
inline constexpr int64_t kFingerprintsTid = 200'000'002;
inline constexpr int64_t kMotifsTid = 200'000'003;
inline constexpr int64_t kIdleTid = 200'000'004;
inline constexpr int64_t kPseudoOverlapTid = 200'000'005;
inline constexpr int64_t kFindingsTid = 200'000'006;
inline constexpr int64_t kSelectedTid = 200'000'007;
// Slices on one thread must nest (Perfetto drops one that overlaps another
// without nesting): a slice that would goes to the track's next lane, a
// thread of its own at tid + kLaneStride x lane.
inline constexpr int64_t kLaneStride = 1000;
// The process of job-wide findings (global instant events).
inline constexpr int64_t kJobPid = 1'000'000'000;

// "1234.567": |ns| as microseconds with exactly three decimals (no double).
void AppendMicros(std::string* out, int64_t ns);

// One rank's events, each preceded by ",\n".
std::string TraceRankPart(const model::RankProfile& profile, const analysis::RankResult& result,
                          const RankTracks& tracks, const analysis::FamilyRules& rules);

// The job's events (selected-step markers, findings), each preceded by ",\n".
std::string TraceJobPart(const analysis::JobAnalysis& job);

// The document's opening, up to and including its first event; the rank
// and job parts follow, then TraceClosing().
std::string TraceOpening(const analysis::JobAnalysis& job, const std::string& tool_version);
std::string TraceClosing();

}  // namespace trainscope::exports
