// libFuzzer harness for the .db export reader (formats/ascend_db): the
// input is written to a temp rank directory and opened as a database, as
// trainscope opens torch_npu's (read-only, immutable). The first byte picks
// the file: even, ascend_pytorch_profiler_0.db (the whole rank load); odd,
// analysis.db read on its own. SQLite parses the pages; what this target
// exercises is the reader on damaged databases and on well-formed ones with
// hostile content (the seeds, fuzz/corpus/ascend_db/, are small valid
// databases of both kinds with every table the reader selects).
//
// Invariants on a load that succeeds: every ledger balances (rows read =
// used + skipped), device events have non-negative durations, every
// launcher is a host op, every host op's parent precedes it; and the rank
// loaded with its kernels decoded in tiles on more connections (what a
// TASK of over 1 M rows gets; here tiles of 1-4 rows) is, on a file that
// passes SQLite's quick_check, the rank loaded with one statement, column
// for column and ledger for ledger.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include "core/sqlite_db.h"
#include "formats/ascend_db/ascend_db_reader.h"
#include "fuzz_flags.h"
#include "profile_checks.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;

using trainscope::fuzz::Check;
using trainscope::fuzz::CheckProfile;

// One scratch rank directory per process, rewritten each run.
const fs::path& RankDir() {
  static const fs::path dir = [] {
    fs::path d = trainscope::fuzz::ScratchDir("trainscope_db_fuzz_") / "rank_0_ascend_pt";
    fs::create_directories(d / "ASCEND_PROFILER_OUTPUT");
    return d;
  }();
  return dir;
}

// Column |column| of two loads' device events: equal row for row (strings
// by their text: a load that read some rows twice interned them first).
template <typename T>
void SameColumn(const trainscope::model::RankProfile& a, const trainscope::model::RankProfile& b,
                const std::vector<T>& x, const std::vector<T>& y) {
  Check(x.size() == y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if constexpr (std::is_same_v<T, trainscope::StringId>) {
      Check(a.strings.Get(x[i]) == b.strings.Get(y[i]));
    } else if constexpr (std::is_floating_point_v<T>) {
      Check(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])));
    } else {
      Check(x[i] == y[i]);
    }
  }
}

// A sparse column (stored or not) row by row.
template <typename T>
void SameColumn(const trainscope::model::RankProfile& a, const trainscope::model::RankProfile& b,
                const trainscope::model::columnar::SparseColumn<T>& x,
                const trainscope::model::columnar::SparseColumn<T>& y) {
  Check(x.size() == y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    SameColumn(a, b, std::vector<T>{x[i]}, std::vector<T>{y[i]});
  }
}

// Two loads of one database: every column of every device event, every
// ledger's counts and samples.
void SameKernels(const trainscope::model::RankProfile& a, const trainscope::model::RankProfile& b) {
  const auto& x = a.device_events;
  const auto& y = b.device_events;
#define TS_FUZZ_SAME_COLUMN_(type, column, init) SameColumn(a, b, x.column, y.column);
  TS_DEVICE_EVENT_COLUMNS(TS_FUZZ_SAME_COLUMN_)
  Check(x.has_pmu() == y.has_pmu());
#undef TS_FUZZ_SAME_COLUMN_
#define TS_FUZZ_SAME_PMU_(type, column, init) SameColumn(a, b, x.pmu().column, y.pmu().column);
  TS_PMU_COLUMNS(TS_FUZZ_SAME_PMU_)
#undef TS_FUZZ_SAME_PMU_
  Check(a.ledgers.size() == b.ledgers.size());
  for (size_t i = 0; i < a.ledgers.size(); ++i) {
    const trainscope::RowLedger& l = a.ledgers[i];
    const trainscope::RowLedger& m = b.ledgers[i];
    Check(l.file() == m.file() && l.rows_read() == m.rows_read() &&
          l.rows_skipped() == m.rows_skipped() && l.skipped_by_reason() == m.skipped_by_reason() &&
          l.notes_by_reason() == m.notes_by_reason());
    Check(l.samples().size() == m.samples().size());
    for (size_t k = 0; k < l.samples().size(); ++k) {
      Check(l.samples()[k].line == m.samples()[k].line &&
            l.samples()[k].reason == m.samples()[k].reason &&
            l.samples()[k].detail == m.samples()[k].detail);
    }
  }
}

// SQLite's own structural check of the file (B-trees in order, pages
// accounted for): the tiled read equals one statement's on a sound file;
// on a damaged one the tiles may meet its damage in another order.
bool SoundDatabase(const std::string& path) {
  trainscope::Result<trainscope::SqliteDb> db = trainscope::SqliteDb::OpenReadOnly(path);
  if (!db.ok()) return false;
  trainscope::Result<trainscope::SqliteStatement> check = db->Prepare("PRAGMA quick_check", "");
  if (!check.ok()) return false;
  trainscope::Result<bool> row = check->Step();
  return row.ok() && *row && check->Text(0) == "ok";
}

void WriteFile(const fs::path& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  Check(f != nullptr);
  if (size > 0) Check(std::fwrite(data, 1, size, f) == size);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const fs::path out = RankDir() / "ASCEND_PROFILER_OUTPUT";
  std::error_code ec;
  fs::remove(out / "ascend_pytorch_profiler_0.db", ec);
  fs::remove(out / "analysis.db", ec);
  if ((data[0] & 1) == 0) {
    WriteFile(out / "ascend_pytorch_profiler_0.db", data + 1, size - 1);
    auto loaded = trainscope::formats::LoadAscendDbRank(RankDir().string());
    if (loaded.ok()) CheckProfile(*loaded);
    trainscope::formats::DbReadOptions tiled;
    tiled.threads = 2 + ((data[0] >> 1) & 1);
    tiled.parallel_rows = 1;
    tiled.tile_rows = 1 + ((data[0] >> 2) & 3);
    auto in_tiles = trainscope::formats::LoadAscendDbRank(RankDir().string(), tiled);
    if (in_tiles.ok()) CheckProfile(*in_tiles);
    if (SoundDatabase((out / "ascend_pytorch_profiler_0.db").string())) {
      Check(in_tiles.ok() == loaded.ok());
      if (loaded.ok()) SameKernels(*loaded, *in_tiles);
    }
  } else {
    WriteFile(out / "analysis.db", data + 1, size - 1);
    trainscope::model::RankProfile profile;
    if (trainscope::formats::ReadAnalysisDb((out / "analysis.db").string(), &profile).ok()) {
      CheckProfile(profile);
    }
  }
  return 0;
}
