#include "export/job_export.h"

#include "analysis/timeline/step_timeline.h"
#include "core/atomic_write.h"
#include "export/rank_tracks.h"
#include "export/trace_export.h"

namespace trainscope::exports {

Result<std::unique_ptr<JobExport>> JobExport::Start(const ExportPaths& paths,
                                                    const analysis::CommOptions& comm) {
  std::unique_ptr<JobExport> out(new JobExport(paths, comm));
  if (!paths.perfetto.empty()) {
    TS_ASSIGN_OR_RETURN(out->staging_, StagingFile::Create(paths.perfetto));
  }
  if (!paths.sqlite.empty()) {
    TS_ASSIGN_OR_RETURN(out->sqlite_, SqliteExport::Open(paths.sqlite));
  }
  return out;
}

void JobExport::OnRank(size_t index, const model::RankProfile& profile,
                       const analysis::RankResult& result, const analysis::FamilyRules& rules) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_.ok()) return;
  }
  const RankTracks tracks =
      BuildRankTracks(profile, result, rules, comm_, analysis::TimelineOptions{}.min_gap_ns);
  Status status = Status::Ok();
  if (staging_) {
    const std::string part = TraceRankPart(profile, result, tracks, rules);
    status = staging_->Put({result.header.rank, static_cast<int64_t>(index)}, part);
  }
  if (status.ok() && sqlite_) status = sqlite_->AddRank(index, profile, result, tracks, rules);
  if (!status.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_.ok()) error_ = status;
  }
}

Status JobExport::Finish(const analysis::JobAnalysis& job, const std::set<size_t>& kept,
                         const std::string& tool_version) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    TS_RETURN_IF_ERROR(error_);
  }
  if (staging_) {
    TS_ASSIGN_OR_RETURN(AtomicFileWriter out, AtomicFileWriter::Open(paths_.perfetto));
    TS_RETURN_IF_ERROR(out.Append(TraceOpening(job, tool_version)));
    TS_RETURN_IF_ERROR(
        staging_->ForEach([&](std::pair<int64_t, int64_t> key, std::string_view piece) -> Status {
          if (!kept.contains(static_cast<size_t>(key.second))) return Status::Ok();
          return out.Append(piece);
        }));
    TS_RETURN_IF_ERROR(out.Append(TraceJobPart(job)));
    TS_RETURN_IF_ERROR(out.Append(TraceClosing()));
    TS_RETURN_IF_ERROR(out.Commit());
    staging_.reset();
  }
  if (sqlite_) {
    TS_RETURN_IF_ERROR(sqlite_->Finish(job, kept, tool_version));
    sqlite_.reset();
  }
  return Status::Ok();
}

}  // namespace trainscope::exports
