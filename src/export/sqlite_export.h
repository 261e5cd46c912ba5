// The SQLite export (`analyze --sqlite FILE`): every device event of every
// captured step, host ops, per-step budgets, collectives, motifs and their
// instances, findings, per-rank budgets and memory peaks as tables with
// indexes (columns declared in export/records.h, listed in docs/exports.md). Written into a
// temporary file next to FILE in one transaction with prepared statements, renamed over FILE when
// complete; ranks are added as they are analysed (AddRank, thread-safe, while the profile is
// alive), the job's tables at Finish.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "core/atomic_write.h"
#include "core/sqlite_db.h"
#include "export/rank_tracks.h"
#include "model/rank_profile.h"

namespace trainscope::exports {

inline constexpr const char* kSqliteSchema = "trainscope.sqlite/2";

// True when |path| is an SQLite database whose meta table names
// kSqliteSchema (any version): one trainscope wrote, which --sqlite may replace.
bool IsTrainscopeDatabase(const std::string& path);

class SqliteExport {
 public:
  static Result<std::unique_ptr<SqliteExport>> Open(const std::string& path);
  ~SqliteExport();
  SqliteExport(const SqliteExport&) = delete;
  SqliteExport& operator=(const SqliteExport&) = delete;

  // |index|: the rank's discovery index (Finish keeps only the analysed run's).
  Status AddRank(size_t index, const model::RankProfile& profile,
                 const analysis::RankResult& result, const RankTracks& tracks,
                 const analysis::FamilyRules& rules);
  Status Finish(const analysis::JobAnalysis& job, const std::set<size_t>& kept,
                const std::string& tool_version);

 private:
  SqliteExport(std::string path, AtomicFileWriter writer)
      : path_(std::move(path)), writer_(std::move(writer)) {}
  std::string path_;
  AtomicFileWriter writer_;
  std::optional<SqliteDb> db_;
  std::mutex mutex_;
  // Rows per table so far, and each input's rowid range per table: the rows
  // of ranks outside the analysed run are removed at Finish.
  std::map<std::string, int64_t> rows_;
  struct Range {
    std::string table;
    int64_t first, last;
  };
  std::map<size_t, std::vector<Range>> ranges_;
};

}  // namespace trainscope::exports
