// A big table's rows decoded on several connections and handed over in
// rowid order (internal to ascend_db/).
//
// Most of the time a .db export's kernels take to read is SQLite decoding
// records (~18 ns a value: 13 M TASK rows joined with COMPUTE_TASK_INFO,
// 17 values a row, are 4.1 s on one core, docs/benchmarks.md). The scan
// splits the table into tiles of consecutive rowids; worker threads, each
// with its own read-only connection, decode tiles ahead of the reader into
// a bounded window of buffers, and the reader takes them in rowid order:
// the rows, their order and their numbers are those of one statement over
// the whole table, so the code that turns a row into an event is unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/sqlite_db.h"
#include "core/status.h"
#include "formats/ascend_db/ascend_db_reader.h"

namespace trainscope::formats::ascend_db {

// Decoded rows of one tile: per cell what SqliteStatement::Int64 reads, and
// the text of the cells that are neither an integer nor NULL.
class RowTile {
  using Kind = SqliteStatement::CellKind;

 public:
  class Row {
   public:
    Row(const RowTile* tile, size_t row) : tile_(tile), row_(row) {}
    // Inlined at every call: an optional returned from a call goes through
    // memory with a byte store the caller's wider load waits on (it was
    // 40 % of the rank thread's work on the kernels' rows).
    [[gnu::always_inline]] std::optional<int64_t> Int64(int column) const {
      const size_t cell = Cell(column);
      if (tile_->kinds_[cell] != Kind::kInteger) return std::nullopt;
      return tile_->values_[cell];
    }
    bool IsNull(int column) const { return tile_->kinds_[Cell(column)] == Kind::kNull; }
    // A non-integer cell's text; "" for NULL; an integer's digits.
    std::string Text(int column) const;

   private:
    size_t Cell(int column) const { return row_ * tile_->columns_ + static_cast<size_t>(column); }
    const RowTile* tile_;
    size_t row_;
  };

  size_t rows() const { return columns_ == 0 ? 0 : cells_ / columns_; }
  Row row(size_t i) const { return Row(this, i); }
  // Set when a step failed after the tile's rows.
  const Status& status() const { return status_; }

  // Appends the row |stmt| is on (its first |columns| cells).
  void Add(const SqliteStatement& stmt, size_t columns);
  void Clear(size_t columns);
  void Fail(Status status) { status_ = std::move(status); }

 private:
  size_t columns_ = 0;
  size_t cells_ = 0;  // of values_ and kinds_, which may be longer
  std::vector<int64_t> values_;
  std::vector<Kind> kinds_;
  std::vector<std::pair<size_t, std::string>> texts_;  // kOther cells, by cell index
  Status status_ = Status::Ok();
};

class TiledScan {
 public:
  // |select| is a SELECT whose rows follow |table|'s rowids (the table
  // scanned first, no WHERE, no ORDER BY); |columns| cells of each row are
  // kept. With options.threads >= 2 and at least options.parallel_rows rows
  // (|row_count|, the caller's count of the table), tiles of
  // options.tile_rows rows are decoded on options.threads more connections
  // (core/ordered_work.h), each running |select| + " WHERE |rowid|
  // BETWEEN ?1 AND ?2". nullptr otherwise (or when the table's rowids
  // cannot be split, a column is named like the rowid, or a connection
  // cannot be opened): the caller steps |select| itself, which is faster
  // than tiles on one thread. |select| should read |table| NOT INDEXED, so
  // that one statement reads it in rowid order too. On a damaged table
  // (rowids out of order in its B-tree) the tiles miss or repeat rows: the
  // caller compares the rows it got with its count.
  static std::unique_ptr<TiledScan> Start(const SqliteDb& db, const std::string& select,
                                          std::string_view table, std::string_view rowid,
                                          size_t columns, int64_t row_count,
                                          const DbReadOptions& options);
  TiledScan(const TiledScan&) = delete;
  TiledScan& operator=(const TiledScan&) = delete;
  virtual ~TiledScan() = default;

  // The next tile in rowid order (valid until the next call); nullptr after
  // the last. A tile whose status() is an error is the last one.
  virtual const RowTile* Next() = 0;

 protected:
  TiledScan() = default;
};

}  // namespace trainscope::formats::ascend_db
