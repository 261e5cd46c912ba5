// `trainscope triage`: when a job hangs or dies, which rank, which
// collective, which link, and what happened first (docs/triage.md).
//
// Flight-recorder dumps are matched per process group by sequence id, as
// torch's fr_trace and nvidia-resiliency-ext's attribution do: the group's
// stuck collective is the one after the furthest any member completed;
// members whose last enqueued id is lower (or whose dump is empty) never
// reached it, the others are inside it. Several groups can show the same
// missing ranks (a rank that stopped blocks every group it is in): the
// verdict names the collective (not p2p) group whose stuck entry was created
// first, the point where the healthy ranks first waited. HCCL connection and
// task errors become edges "who waited for whom" between devices; a cycle,
// or the end of the chain, is the root cause (as mind-cluster's
// ascend-faultdiag decides). Logs give the first error in time and how
// each rank ended; training logs the last step each rank reached, and the
// ranks that stopped before the others.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/failure_log.h"

namespace trainscope::analysis {

struct StuckCollective {
  size_t job = 0;      // index into TriageReport::jobs
  std::string source;  // "flight recorder" | "watchdog"
  std::string pg_name, pg_desc;
  std::optional<int64_t> pg_id;
  std::vector<int64_t> members;
  std::string op;              // nccl:all_to_all, BROADCAST
  std::optional<int64_t> seq;  // collective (or p2p) sequence id
  bool p2p = false;
  std::vector<std::vector<int64_t>> sizes;  // input sizes
  std::vector<std::string> dtypes;          // input dtypes
  std::optional<int64_t> numel_in, numel_out, timeout_ms;
  std::optional<int64_t> time_created_ns;  // earliest creation of the stuck entry
  std::vector<int64_t> missing;            // never reached it
  std::vector<int64_t> empty_dumps;        // of |missing|: their dump held no entry
  std::vector<int64_t> inside;             // reached it, did not complete it
  std::vector<int64_t> no_dump;            // members that left no dump
  std::vector<int64_t> unknown;            // dumps that recorded nothing of this group
  std::vector<std::string> unmatched_p2p;  // "rank 3 send -> rank 4: no recv posted"
};

struct TriageError {
  std::string node;  // "rank 6", "worker-0 device-11"
  std::optional<int64_t> rank;
  model::FailureKind kind = model::FailureKind::kCollectiveError;
  std::string path;
  int64_t line = 0;
  std::string clock;  // as written; "" when the line has none
  std::optional<int64_t> time_ns;
  std::string text;
};

struct LinkEdge {
  std::string from, to;  // from waited for to
  std::string why;       // "no connect (client)", "notify wait", "sdma"
  std::string path;
  int64_t line = 0;
};

struct LinkAnalysis {
  std::vector<LinkEdge> edges;
  std::string chain;  // "worker-1 device-0 -> worker-0 device-0 -> worker-1 device-0"
  bool cycle = false;
  std::vector<std::string> root_causes;
  std::string fault;  // "socket-no-connect-cycle", "notify-timeout", ...
};

struct RankEnding {
  std::string node;
  std::optional<int64_t> rank;
  std::string how;  // watchdog-timeout, signal, out-of-memory, time-limit, no-dump, ...
  std::string detail;
  std::string path;
  int64_t line = 0;
};

struct TriageRankEvidence {
  std::string node;
  std::optional<int64_t> rank;
  std::optional<int64_t> last_completed;  // in the stuck group (or the watchdog's)
  std::optional<int64_t> last_enqueued;
  std::string state;      // missing, inside, completed, timed-out, empty-dump, ...
  std::string last_line;  // the last line (or entry) it left
  std::string path;
  // The clock of its last event and of its first error (nanoseconds, local wall time).
  std::optional<int64_t> last_event_ns, first_error_ns;
  // The last training step its training log shows, and that line's clock.
  std::optional<int64_t> last_step, last_step_ns;
};

// The last training step a training log shows for one rank (the logs
// `health` reads): how far the rank got.
struct TrainingStep {
  std::optional<int64_t> rank;  // unset: neither the lines nor the path name one
  int64_t step = 0;
  bool ordinal = false;            // the log prints no step: the record's number
  std::optional<int64_t> time_ns;  // the line's clock, when it has one
  std::string path;
  int64_t line = 0;
};

struct TriageJob {
  std::string label;  // "job 1"
  std::vector<int64_t> ranks;
  std::vector<std::string> paths;
  std::string why;  // why it is a job of its own
};

struct TriageReport {
  std::string verdict_kind;  // hang, link-failure, device-error, crash, time-limit, cancelled,
                             // no-failure, unknown
  std::string verdict;
  std::vector<std::string> culprits;   // ranks / devices the verdict names
  std::vector<StuckCollective> stuck;  // the verdict's first
  int64_t groups_waiting = 0;          // other groups whose members are all inside
  std::optional<TriageError> first_error;
  std::string first_error_clock;    // "plog clock", "log clock", "file order"
  std::vector<TriageError> errors;  // each node's first error, earliest first
  std::optional<LinkAnalysis> links;
  std::vector<RankEnding> endings;
  std::vector<TriageRankEvidence> ranks;
  std::vector<TriageJob> jobs;  // two or more: dumps of several jobs, kept apart
  std::vector<std::string> next_steps;
  // Training logs: each rank's last step (rank order; logs naming no rank
  // last), the furthest step a rank reached, and the ranks behind it.
  std::vector<TrainingStep> last_steps;
  std::optional<int64_t> furthest_step;
  std::vector<int64_t> behind;
  int64_t dumps = 0, logs = 0, training_logs = 0;
};

TriageReport Triage(const model::TriageInputs& inputs);

// Ranks for text and HTML (core/rank_ranges): "rank 9", "ranks 9, 14",
// "ranks 0-1023", or with the job's |total| ranks 0..total-1 known, "all
// 1,024 ranks but 7". The JSON keeps the full lists.
std::string TriageRankPhrase(const std::vector<int64_t>& ranks, size_t total = 0);
// |members|' size when they are the ranks 0..n-1 (a whole job), else 0.
size_t TriageWorldOf(const std::vector<int64_t>& members);

}  // namespace trainscope::analysis
