// TASK joined with COMPUTE_TASK_INFO without a B-tree search per task.
//
// SQLite runs "TASK t LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId =
// t.globalTaskId" as one search of COMPUTE_TASK_INFO's tree per TASK row;
// at 13 M tasks those searches were the part of the read that grew with the
// file (docs/benchmarks.md). TASK comes in start order and torch_npu numbers
// tasks as they are submitted, so the ids a walk over TASK asks for almost
// always rise: a scan of COMPUTE_TASK_INFO in id order (its INTEGER PRIMARY
// KEY, no sort) meets them as a merge join does. A row the scan passes
// before its task asks for it is kept aside until it does; an id behind the
// scan (a task without compute info, or one asked for twice) is looked up
// by key, and an id far ahead of the scan moves the scan there. The answer
// is the LEFT JOIN's, whatever the order of TASK.
//
// Where globalTaskId is not COMPUTE_TASK_INFO's key (no export seen so far),
// the table is read into a map once instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/status.h"
#include "formats/ascend_db/sqlite_db.h"

namespace trainscope::formats {

// The COMPUTE_TASK_INFO cells a kernel row takes: nullopt for NULL or a
// cell that is not an integer.
struct ComputeCells {
  std::optional<int64_t> name, op_type, task_type, block_dim, input_shapes, input_dtypes, wait_ns,
      output_shapes, output_dtypes;
};

class ComputeTaskJoin {
 public:
  // |columns|: the select list over COMPUTE_TASK_INFO aliased "c":
  // globalTaskId, then ComputeCells' cells in the order declared.
  static Result<ComputeTaskJoin> Open(const SqliteDb& db, const std::string& columns);

  // The cells of task |id|'s COMPUTE_TASK_INFO row, nullptr when it has
  // none. Valid until the next call.
  Result<const ComputeCells*> Find(int64_t id);

 private:
  ComputeTaskJoin(SqliteStatement scan, std::optional<SqliteStatement> lookup)
      : scan_(std::move(scan)), lookup_(std::move(lookup)) {}
  Status SeekScan(int64_t from_id);
  Status Advance();
  Result<const ComputeCells*> Lookup(int64_t id);
  Status ReadAll();

  SqliteStatement scan_;
  std::optional<SqliteStatement> lookup_;  // absent: every row is in ahead_
  bool scanning_ = false;                  // scan_ holds a row: current_
  int64_t current_id_ = 0;
  ComputeCells current_;
  ComputeCells found_;
  std::unordered_map<int64_t, ComputeCells> ahead_;
};

}  // namespace trainscope::formats
