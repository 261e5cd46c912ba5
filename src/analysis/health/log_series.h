// A training log cut into its series (docs/health.md, "Runs and ranks"):
// one file may hold the lines of several ranks interleaved (`[RANK 3]`,
// `[rank3]:`) and, per rank, several runs: the step counter restarts (a new
// run) or goes back (a resume from a checkpoint). Each series is judged on
// its own; judging them as one makes trends, drops and warm-ups of nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/training_log.h"

namespace trainscope::analysis {

struct LogSeries {
  model::TrainingLog log;   // this series' records, errors and silences
  int run = 1;              // 1-based, per file, in file order of the run's first line
  std::optional<int> rank;  // the rank the lines name; unset when they name none
  // The DeepSpeed engine (1-based) of engine lines; unset for other lines.
  std::optional<int> engine;
  std::string start;                      // "" (the first run), "restart" or "resume"
  std::optional<int64_t> back_from_step;  // a restart / resume: the last step before it
};

// Cuts |log| (moved from) into series, ordered by run, rank, then engine
// (DeepSpeed engines' lines are series of their own, apart from the other
// lines of their rank). A run starts at the first record, and again on any
// rank (and engine) whose step is not above its previous record's: `restart` when the counter
// starts over (step 0 or 1), else `resume` (back to a checkpoint's step). A record naming no rank,
// in a log whose other records do, joins rank-less series of its own.
// Error lines and silences go to the series of the last record before
// them in the file (the first series when none). Records are moved, not
// copied: the peak stays one copy of the log.
std::vector<LogSeries> SplitLogSeries(model::TrainingLog&& log);

// The rank a log's path names (one log per rank: `rank3.log`,
// `log_rank_3.txt`, `worker-3/train.log`): the last `rank` or `worker`
// followed by digits (a '-', '_' or '.' between allowed, any case) in the
// file name, else in the nearest directory name that has one. |pattern| is
// the path with those digits replaced by '*': the logs of one run's ranks
// share it.
struct PathRank {
  int rank = 0;
  std::string pattern;
};
std::optional<PathRank> RankFromLogPath(std::string_view path);

}  // namespace trainscope::analysis
