#include "formats/ascend_db/compute_task_join.h"

#include <limits>
#include <utility>

namespace trainscope::formats {
namespace {

// How far (in ids) the scan reads ahead to meet a task before it seeks
// there instead: a few thousand rows kept aside at most per jump, while
// the out-of-order tasks of real exports are a few ids apart.
constexpr int64_t kMaxReadAhead = 4096;

void ReadCells(const SqliteStatement& stmt, ComputeCells* cells) {
  cells->name = stmt.Int64(1);
  cells->op_type = stmt.Int64(2);
  cells->task_type = stmt.Int64(3);
  cells->block_dim = stmt.Int64(4);
  cells->input_shapes = stmt.Int64(5);
  cells->input_dtypes = stmt.Int64(6);
  cells->wait_ns = stmt.Int64(7);
  cells->output_shapes = stmt.Int64(8);
  cells->output_dtypes = stmt.Int64(9);
}

}  // namespace

Result<ComputeTaskJoin> ComputeTaskJoin::Open(const SqliteDb& db, const std::string& columns) {
  TS_ASSIGN_OR_RETURN(bool keyed, db.IsIntegerPrimaryKey("COMPUTE_TASK_INFO", "globalTaskId"));
  const std::string select = "SELECT " + columns + " FROM COMPUTE_TASK_INFO c";
  if (!keyed) {
    TS_ASSIGN_OR_RETURN(SqliteStatement all, db.Prepare(select, "COMPUTE_TASK_INFO"));
    ComputeTaskJoin join(std::move(all), std::nullopt);
    TS_RETURN_IF_ERROR(join.ReadAll());
    return join;
  }
  TS_ASSIGN_OR_RETURN(SqliteStatement scan,
                      db.Prepare(select + " WHERE c.globalTaskId >= ?1 ORDER BY c.globalTaskId",
                                 "COMPUTE_TASK_INFO"));
  TS_ASSIGN_OR_RETURN(SqliteStatement lookup,
                      db.Prepare(select + " WHERE c.globalTaskId = ?1", "COMPUTE_TASK_INFO"));
  ComputeTaskJoin join(std::move(scan), std::move(lookup));
  TS_RETURN_IF_ERROR(join.SeekScan(std::numeric_limits<int64_t>::min()));
  return join;
}

Status ComputeTaskJoin::ReadAll() {
  for (;;) {
    TS_ASSIGN_OR_RETURN(bool row, scan_.Step());
    if (!row) return Status::Ok();
    const std::optional<int64_t> id = scan_.Int64(0);
    if (!id || ahead_.count(*id) > 0) continue;  // the LEFT JOIN's first match
    ReadCells(scan_, &ahead_[*id]);
  }
}

Status ComputeTaskJoin::SeekScan(int64_t from_id) {
  scan_.Reset();
  TS_RETURN_IF_ERROR(scan_.BindInt64(1, from_id));
  return Advance();
}

Status ComputeTaskJoin::Advance() {
  TS_ASSIGN_OR_RETURN(scanning_, scan_.Step());
  if (!scanning_) return Status::Ok();
  current_id_ = scan_.Int64(0).value_or(0);  // the INTEGER PRIMARY KEY: never NULL
  ReadCells(scan_, &current_);
  return Status::Ok();
}

Result<const ComputeCells*> ComputeTaskJoin::Lookup(int64_t id) {
  lookup_->Reset();
  TS_RETURN_IF_ERROR(lookup_->BindInt64(1, id));
  TS_ASSIGN_OR_RETURN(bool row, lookup_->Step());
  if (!row) return nullptr;
  ReadCells(*lookup_, &found_);
  return &found_;
}

Result<const ComputeCells*> ComputeTaskJoin::Find(int64_t id) {
  if (!lookup_) {
    const auto it = ahead_.find(id);
    return it == ahead_.end() ? nullptr : &it->second;
  }
  if (!ahead_.empty()) {
    if (auto it = ahead_.find(id); it != ahead_.end()) {
      found_ = it->second;
      ahead_.erase(it);
      return &found_;
    }
  }
  if (scanning_ && current_id_ < id) {
    // Unsigned: the difference of any two int64 ids, id above current_id_.
    if (static_cast<uint64_t>(id) - static_cast<uint64_t>(current_id_) > kMaxReadAhead) {
      // Rows skipped here are behind the scan now: Lookup finds them.
      TS_RETURN_IF_ERROR(SeekScan(id));
    } else {
      while (scanning_ && current_id_ < id) {
        ahead_.emplace(current_id_, current_);
        TS_RETURN_IF_ERROR(Advance());
      }
    }
  }
  if (scanning_ && current_id_ == id) {
    found_ = current_;
    TS_RETURN_IF_ERROR(Advance());
    return &found_;
  }
  return Lookup(id);
}

}  // namespace trainscope::formats
