#include "formats/ascend_db/ascend_db_reader.h"

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include "core/numbers.h"
#include "core/sqlite_db.h"
#include "formats/ascend/ascend_rank_loader.h"
#include "formats/ascend/profiler_info_reader.h"
#include "formats/ascend/profiler_metadata_reader.h"
#include "formats/ascend/rank_inventory.h"
#include "formats/ascend_db/ascend_db_importer.h"
#include "formats/ascend_db/db_readers.h"

namespace trainscope::formats {
namespace ascend_db {
namespace {

// RANK_DEVICE_MAP (one row in a rank's db): the rank and its device.
Status ReadRankDeviceMap(const SqliteDb& db, model::RankProfile* profile, int32_t* device) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("RANK_DEVICE_MAP"));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"rankId", true}, {"deviceId", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "RANK_DEVICE_MAP", "r", kColumns));
  TS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Ok();
  const int32_t rank = Int32Or(stmt.Int64(0), -1);
  *device = Int32Or(stmt.Int64(1), -1);
  TS_ASSIGN_OR_RETURN(bool second, stmt.Step());
  if (second) {
    profile->warnings.push_back(fmt::format(
        "{}: RANK_DEVICE_MAP has more than one row; the first (rank {}) is used", db.path(), rank));
  }
  // A single-card run writes -1 (no rank).
  if (rank >= 0 && !profile->info.rank) profile->info.rank = rank;
  return Status::Ok();
}

// META_DATA: ENV_VARIABLES (profiler_metadata.json's, as a JSON object).
Status ReadMetaData(const SqliteDb& db, model::RankProfile* profile) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("META_DATA"));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"name", true}, {"value", true}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "META_DATA", "m", kColumns));
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    if (stmt.Text(0) != "ENV_VARIABLES" || !profile->info.env.empty()) continue;
    const std::string json = fmt::format("{{\"ENV_VARIABLES\": {}}}", stmt.Text(1));
    Status status = ParseProfilerMetadata(json, db.path() + ":META_DATA", &profile->info);
    if (!status.ok()) profile->warnings.push_back(status.message());
  }
  return Status::Ok();
}

}  // namespace
}  // namespace ascend_db

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOutputDirName = "ASCEND_PROFILER_OUTPUT";

// ascend_pytorch_profiler_<N>.db -> N.
std::optional<int32_t> RankFromDbName(std::string_view name) {
  constexpr std::string_view kPrefix = "ascend_pytorch_profiler_";
  if (!name.starts_with(kPrefix) || !name.ends_with(".db")) return std::nullopt;
  const std::optional<int64_t> rank =
      ParseInt64(name.substr(kPrefix.size(), name.size() - kPrefix.size() - 3));
  if (!rank || *rank < 0 || *rank > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*rank);
}

}  // namespace

Status ReadAscendProfilerDb(const std::string& path, model::RankProfile* profile,
                            const DbReadOptions& options) {
  TS_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenReadOnly(path));
  ascend_db::WarnAboutWal(path, profile);
  int32_t device = -1;
  TS_RETURN_IF_ERROR(ascend_db::ReadRankDeviceMap(db, profile, &device));
  RowLedger string_ledger(path + ":STRING_IDS");
  ascend_db::StringTable strings(&profile->strings, &string_ledger);
  TS_RETURN_IF_ERROR(strings.Load(db));
  // Its place among the ledgers; filled once every string is looked up.
  const size_t string_ledger_at = profile->ledgers.size();
  profile->ledgers.emplace_back(path + ":STRING_IDS");
  TS_ASSIGN_OR_RETURN(std::vector<ascend_db::StepRange> steps,
                      ascend_db::ReadStepTime(db, profile));
  const ascend_db::DbContext ctx{&db, profile, &strings, &steps, device};
  std::vector<model::DeviceEvent> comm_ops;
  std::optional<RowLedger> comm_ledger;
  TS_RETURN_IF_ERROR(ascend_db::ReadCommunicationOps(ctx, &comm_ops, &comm_ledger));
  TS_RETURN_IF_ERROR(ascend_db::ReadComputeTasks(ctx, comm_ops, options));
  if (comm_ledger) profile->ledgers.push_back(std::move(*comm_ledger));
  TS_RETURN_IF_ERROR(ascend_db::ReadMetaData(db, profile));
  TS_RETURN_IF_ERROR(ascend_db::ReadMemoryTables(ctx));
  profile->device_events.SortByStart();
  TS_RETURN_IF_ERROR(ascend_db::ReadHostOps(ctx));
  TS_RETURN_IF_ERROR(ascend_db::ReadOverlapAnalysis(ctx));
  TS_RETURN_IF_ERROR(strings.status());
  profile->ledgers[string_ledger_at] = std::move(string_ledger);
  profile->device_events_source = model::DeviceEventsSource::kKernelDetailsCsv;
  profile->device_events_from = path;
  if (!steps.empty() && !profile->device_events.Steps().empty()) {
    profile->steps_from = fmt::format("STEP_TIME table of {}", fs::path(path).filename().string());
  }
  return Status::Ok();
}

Result<model::RankProfile> LoadAscendDbRank(const std::string& rank_dir,
                                            const DbReadOptions& options) {
  std::error_code ec;
  fs::path dir(rank_dir);
  if (!fs::is_directory(dir, ec)) {
    return NotFound(
        fmt::format("{}: not a directory (expected a *_ascend_pt rank directory)", rank_dir));
  }
  if (dir.filename().empty()) dir = dir.parent_path();
  fs::path source_dir = dir;
  fs::path output_dir = dir / kOutputDirName;
  if (dir.filename() == kOutputDirName) {
    output_dir = dir;
    source_dir = dir.parent_path();
  }
  model::RankProfile profile;
  profile.source_dir = source_dir.string();
  profile.profiler_output = output_dir.string();

  // The rank's own database; with several (should not happen), the lowest.
  fs::path db_path;
  std::optional<int32_t> db_rank;
  for (fs::directory_iterator it(output_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::optional<int32_t> rank = RankFromDbName(it->path().filename().string());
    if (rank && (!db_rank || *rank < *db_rank)) {
      db_rank = rank;
      db_path = it->path();
    }
  }
  // Only a regular file that starts like a SQLite database is opened (a
  // FIFO or device named like one must never block the load).
  if (!db_path.empty()) {
    if (Status header = CheckSqliteHeader(db_path.string()); !header.ok()) {
      return InvalidInput(fmt::format("{}\n{}", header.message(), ascend_db::kSchemaHint));
    }
  }
  if (db_path.empty()) {
    return NotFound(fmt::format(
        "{}: no ascend_pytorch_profiler_<rank>.db in {}\nhint: analysis.db alone holds no "
        "kernels; pass the *_ascend_pt directory torch_npu wrote with export_type=db",
        rank_dir, output_dir.string()));
  }

  std::set<std::string> opened = {db_path.string()};
  const std::string info_path = FindProfilerInfoFile(source_dir.string());
  if (!info_path.empty()) opened.insert(info_path);
  if (info_path.empty()) {
    profile.missing_files.push_back(
        "profiler_info_<rank>.json (rank id, torch_npu/CANN versions, profiler level)");
  } else if (Status status = ReadProfilerInfoFile(info_path, &profile.info); !status.ok()) {
    profile.warnings.push_back(status.message());
  }
  const fs::path metadata = source_dir / "profiler_metadata.json";
  if (PresentInAnyForm(metadata.string())) {
    opened.insert(metadata.string());
    if (Status status = ReadProfilerMetadataFile(metadata.string(), &profile.info); !status.ok()) {
      profile.warnings.push_back(status.message());
    }
  }

  TS_RETURN_IF_ERROR(ReadAscendProfilerDb(db_path.string(), &profile, options));
  const fs::path analysis = output_dir / "analysis.db";
  if (!PresentInAnyForm(analysis.string())) {
    // The rank database's OVERLAP_ANALYSIS sums stand in for StepTraceTime
    // when it has that table: then only the communication tables are lost.
    profile.missing_files.push_back(
        profile.step_trace.empty()
            ? "analysis.db (step times and compute/communication overlap per step)"
            : "analysis.db (communication times and bandwidths per op; the step times come "
              "from the rank database's OVERLAP_ANALYSIS instead)");
  } else if (Status header = CheckSqliteHeader(analysis.string()); !header.ok()) {
    profile.warnings.push_back(fmt::format("{}; not read", header.message()));
  } else {
    opened.insert(analysis.string());
    if (Status status = ReadAnalysisDb(analysis.string(), &profile); !status.ok()) {
      profile.warnings.push_back(status.message());
    }
  }
  if (!profile.info.rank) profile.info.rank = db_rank;
  if (profile.info.rank) profile.rank = *profile.info.rank;
  TakeRankInventory(opened, /*db_rank=*/true, &profile);
  return profile;
}

}  // namespace trainscope::formats
