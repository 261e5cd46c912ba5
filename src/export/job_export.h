// The exports a run of `analyze` was asked for (--perfetto, --sqlite), fed
// rank by rank from inside the analyze pipeline while each rank's profile
// is alive (OnRank, thread-safe), and finished once the job is combined.
// Peak memory stays one profile per thread: a rank's trace part is rendered
// and moved to a staging file, its rows go into the database, before its
// profile is freed (DESIGN.md, "Exports").
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "analysis/cluster/communication.h"
#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "export/sqlite_export.h"
#include "export/staging.h"
#include "model/rank_profile.h"

namespace trainscope::exports {

struct ExportPaths {
  std::string perfetto;  // "" = none
  std::string sqlite;    // "" = none
  bool any() const { return !perfetto.empty() || !sqlite.empty(); }
};

class JobExport {
 public:
  // Creates the staging file and the temporary database beside the outputs.
  static Result<std::unique_ptr<JobExport>> Start(const ExportPaths& paths,
                                                  const analysis::CommOptions& comm);
  JobExport(const JobExport&) = delete;
  JobExport& operator=(const JobExport&) = delete;

  // One rank (|index|: its discovery index), its profile still alive. An
  // error is kept and returned by Finish.
  void OnRank(size_t index, const model::RankProfile& profile, const analysis::RankResult& result,
              const analysis::FamilyRules& rules);

  // Writes the outputs of the ranks in |kept| (the analysed run's discovery
  // indices; the job's ranks) and renames them into place.
  Status Finish(const analysis::JobAnalysis& job, const std::set<size_t>& kept,
                const std::string& tool_version);

 private:
  JobExport(ExportPaths paths, analysis::CommOptions comm)
      : paths_(std::move(paths)), comm_(comm) {}
  ExportPaths paths_;
  analysis::CommOptions comm_;
  std::unique_ptr<StagingFile> staging_;
  std::unique_ptr<SqliteExport> sqlite_;
  std::mutex mutex_;
  Status error_ = Status::Ok();
};

}  // namespace trainscope::exports
