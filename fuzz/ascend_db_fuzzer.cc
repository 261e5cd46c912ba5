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
// TASK of over 1 M rows gets; here tiles of 1-4 rows) is the rank loaded
// with one statement, event for event.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "formats/ascend_db/ascend_db_reader.h"
#include "fuzz_flags.h"
#include "profile_checks.h"

namespace {

namespace fs = std::filesystem;

using trainscope::fuzz::Check;
using trainscope::fuzz::CheckProfile;

// One scratch rank directory per process, rewritten each run.
const fs::path& RankDir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("trainscope_db_fuzz_" + std::to_string(::getpid())) /
                 "rank_0_ascend_pt";
    fs::create_directories(d / "ASCEND_PROFILER_OUTPUT");
    return d;
  }();
  return dir;
}

// The device events and ledgers of two loads of one database.
void SameKernels(const trainscope::model::RankProfile& a, const trainscope::model::RankProfile& b) {
  const auto& x = a.device_events;
  const auto& y = b.device_events;
  Check(x.size() == y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    Check(x.start_ns[i] == y.start_ns[i] && x.duration_ns[i] == y.duration_ns[i]);
    Check(x.step[i] == y.step[i] && x.stream[i] == y.stream[i] && x.kind[i] == y.kind[i]);
    Check(a.strings.Get(x.name[i]) == b.strings.Get(y.name[i]));
    Check(a.strings.Get(x.input_shapes[i]) == b.strings.Get(y.input_shapes[i]));
  }
  Check(a.ledgers.size() == b.ledgers.size());
  for (size_t i = 0; i < a.ledgers.size(); ++i) {
    Check(a.ledgers[i].rows_read() == b.ledgers[i].rows_read());
    Check(a.ledgers[i].rows_skipped() == b.ledgers[i].rows_skipped());
  }
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
    Check(in_tiles.ok() == loaded.ok());
    if (loaded.ok()) SameKernels(*loaded, *in_tiles);
  } else {
    WriteFile(out / "analysis.db", data + 1, size - 1);
    trainscope::model::RankProfile profile;
    if (trainscope::formats::ReadAnalysisDb((out / "analysis.db").string(), &profile).ok()) {
      CheckProfile(profile);
    }
  }
  return 0;
}
