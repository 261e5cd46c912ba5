#include "formats/ascend_db/db_tiled_scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <span>

#include "core/ordered_work.h"
#include "core/rule_file.h"

namespace trainscope::formats::ascend_db {

std::string RowTile::Row::Text(int column) const {
  const size_t cell = Cell(column);
  switch (tile_->kinds_[cell]) {
    case Kind::kInteger:
      return fmt::format("{}", tile_->values_[cell]);
    case Kind::kNull:
      return {};
    case Kind::kOther:
      break;
  }
  const auto& texts = tile_->texts_;
  const auto it = std::lower_bound(texts.begin(), texts.end(), cell,
                                   [](const auto& text, size_t c) { return text.first < c; });
  return it != texts.end() && it->first == cell ? it->second : std::string();
}

void RowTile::Add(const SqliteStatement& stmt, size_t columns) {
  const size_t first = cells_;
  cells_ += columns;
  if (cells_ > kinds_.size()) {
    // Grown by doubling and kept across Clear: a resize a row zero-filled
    // its cells through a call (2 % of the read).
    values_.resize(std::max(cells_, 2 * kinds_.size()));
    kinds_.resize(values_.size());
  }
  stmt.IntegerCells(std::span(values_).subspan(first, columns),
                    std::span(kinds_).subspan(first, columns));
  for (size_t c = 0; c < columns; ++c) {
    if (kinds_[first + c] == Kind::kOther) {
      texts_.emplace_back(first + c, std::string(stmt.Text(static_cast<int>(c))));
    }
  }
}

void RowTile::Clear(size_t columns) {
  columns_ = columns;
  cells_ = 0;
  texts_.clear();
  status_ = Status::Ok();
}

namespace {

// Tiles of rowids [first + k * width, first + (k + 1) * width) decoded by
// workers, each on its own connection, into a window of 4 tiles a worker
// (core/ordered_work.h); the reader takes them in order.
class ParallelScan final : public TiledScan {
 public:
  // A connection and its statement (which points at the connection: both
  // stay where they were made).
  struct Worker {
    explicit Worker(SqliteDb connection) : db(std::move(connection)) {}
    SqliteDb db;
    std::optional<SqliteStatement> stmt;
  };

  ParallelScan(std::vector<std::unique_ptr<Worker>> workers, size_t columns, int64_t first,
               int64_t tiles, int64_t width)
      : workers_(std::move(workers)),
        columns_(columns),
        first_(first),
        width_(width),
        tiles_(tiles),
        work_(
            OrderedWork<RowTile>::NewSlots(4 * workers_.size(),
                                           [] { return std::make_unique<RowTile>(); }),
            static_cast<unsigned>(workers_.size()),
            [this](int64_t tile, RowTile*) {
              return tile < tiles_ ? ClaimAnswer::kTaken : ClaimAnswer::kNoMore;
            },
            // Worker k decodes on connection k. The reader, which has none of
            // its own, never helps (Take(/*help=*/false)) and makes tiles only
            // when no worker thread started: as maker 0, on the first
            // connection. |maker| is therefore always a connection's.
            [this](unsigned maker, int64_t tile, RowTile* out) {
              Fill(*workers_[maker], tile, out);
            }) {}

  const RowTile* Next() override {
    if (given_) {  // the tile handed out last is done with
      work_.Release();
      given_ = false;
    }
    if (failed_) return nullptr;
    const RowTile* tile = work_.Take(/*help=*/false);
    if (tile == nullptr) return nullptr;
    given_ = true;
    if (!tile->status().ok()) failed_ = true;
    return tile;
  }

 private:
  void Fill(Worker& worker, int64_t tile, RowTile* out) const {
    out->Clear(columns_);
    const int64_t low = first_ + tile * width_;
    const int64_t high = tile + 1 == tiles_ ? INT64_MAX : low + width_ - 1;
    SqliteStatement& stmt = *worker.stmt;
    if (Status bound = stmt.Rebind({low, high}); !bound.ok()) {
      out->Fail(std::move(bound));
      return;
    }
    for (;;) {
      Result<bool> row = stmt.Step();
      if (!row.ok()) {
        out->Fail(row.status());
        return;
      }
      if (!*row) return;
      out->Add(stmt, columns_);
    }
  }

  std::vector<std::unique_ptr<Worker>> workers_;
  const size_t columns_;
  const int64_t first_;
  const int64_t width_;
  const int64_t tiles_;
  bool given_ = false;         // a tile is handed to the reader and not released
  bool failed_ = false;        // a tile failed: it was the last one
  OrderedWork<RowTile> work_;  // last: its workers start once the rest exists
};

// The table's first and last rowid, when it has rows and rowids.
std::optional<std::pair<int64_t, int64_t>> RowidRange(const SqliteDb& db, std::string_view table) {
  // Two subqueries: SQLite answers a lone min() or max() of the rowid from
  // the B-tree's ends, but both in one query scan the table (0.95 s on 9.8 M
  // rows).
  Result<SqliteStatement> stmt = db.Prepare(
      fmt::format("SELECT (SELECT min(rowid) FROM \"{0}\"), (SELECT max(rowid) FROM \"{0}\")",
                  table),
      table);
  if (!stmt.ok()) return std::nullopt;  // WITHOUT ROWID: one connection
  Result<bool> row = stmt->Step();
  if (!row.ok() || !*row) return std::nullopt;
  const std::optional<int64_t> first = stmt->Int64(0);
  const std::optional<int64_t> last = stmt->Int64(1);
  if (!first || !last || *last < *first) return std::nullopt;
  return std::make_pair(*first, *last);
}

}  // namespace

std::unique_ptr<TiledScan> TiledScan::Start(const SqliteDb& db, const std::string& select,
                                            std::string_view table, std::string_view rowid,
                                            size_t columns, int64_t row_count,
                                            const DbReadOptions& options) {
  const unsigned threads = options.threads;
  if (threads < 2 || row_count <= 0 || row_count < options.parallel_rows) return nullptr;
  // A column named like the rowid hides it: "rowid BETWEEN" would filter on
  // the column.
  const Result<std::set<std::string>> names = db.Columns(table);
  if (!names.ok()) return nullptr;
  for (const std::string& name : *names) {
    const std::string lower = AsciiLower(name);
    if (lower == "rowid" || lower == "oid" || lower == "_rowid_") return nullptr;
  }
  const auto range = RowidRange(db, table);
  if (!range) return nullptr;
  // The distance between the rowids in unsigned arithmetic: a hostile table
  // may hold both ends of the int64 range. Rowids far sparser than the rows
  // (a table rebuilt with gaps) would make mostly empty tiles.
  const uint64_t distance =
      static_cast<uint64_t>(range->second) - static_cast<uint64_t>(range->first);
  if (distance / 4 > static_cast<uint64_t>(row_count)) return nullptr;
  const auto span = static_cast<int64_t>(distance + 1);  // <= 4 x row_count + 4
  const int64_t width = std::max<int64_t>(1, span / row_count * options.tile_rows);
  const std::string tiled = fmt::format("{} WHERE {} BETWEEN ?1 AND ?2", select, rowid);
  std::vector<std::unique_ptr<ParallelScan::Worker>> workers;
  for (unsigned i = 0; i < threads; ++i) {
    Result<SqliteDb> connection = SqliteDb::OpenReadOnly(db.path());
    if (!connection.ok()) return nullptr;
    auto worker = std::make_unique<ParallelScan::Worker>(std::move(*connection));
    Result<SqliteStatement> stmt = worker->db.Prepare(tiled, table);
    if (!stmt.ok()) return nullptr;
    worker->stmt.emplace(std::move(*stmt));
    workers.push_back(std::move(worker));
  }
  const auto tiles = static_cast<int64_t>(distance / static_cast<uint64_t>(width)) + 1;
  return std::make_unique<ParallelScan>(std::move(workers), columns, range->first, tiles, width);
}

}  // namespace trainscope::formats::ascend_db
