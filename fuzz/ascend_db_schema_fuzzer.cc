// libFuzzer harness for the .db export reader's schema checks
// (formats/ascend_db): the input is not a database file but a short script
// that builds one, so the fuzzer steers the schema (which tables and views
// exist, their columns and declared types, the cell types of their rows)
// instead of SQLite's page format, which ascend_db_fuzzer covers. One
// command a line:
//
//   T name col[ type],col[ type],...   CREATE TABLE "name" ("col" type, ...)
//   V name select-text                 CREATE VIEW "name" AS SELECT select-text
//   I name v,v,...                     INSERT INTO "name" VALUES (...): an integer, a real,
//                                      "null", "x" + hex as a blob, else text
//
// Names and columns are quoted, so any text is a name. The first line is
// the target: "analysis" loads the script's database as analysis.db,
// anything else as ascend_pytorch_profiler_0.db (the whole rank load).
// The builder runs under a progress limit with ATTACH refused, so a
// command cannot run long or reach another file; a command SQLite refuses
// is dropped. The seeds (fuzz/corpus/ascend_db_schema/) are torch_npu's
// tables with a few rows each, and the same with views in place of tables.
//
// Invariants: the load returns (a view is never read, so no recursive view
// can hang it); on success every ledger balances (rows read = used +
// skipped), device events have non-negative durations, every launcher is a
// host op and every host op's parent precedes it.
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/numbers.h"
#include "formats/ascend_db/ascend_db_reader.h"
#include "fuzz_flags.h"
#include "profile_checks.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxCommands = 64;
constexpr size_t kMaxColumns = 32;

using trainscope::fuzz::Check;
using trainscope::fuzz::CheckProfile;

const fs::path& RankDir() {
  static const fs::path dir = [] {
    fs::path d = trainscope::fuzz::ScratchDir("trainscope_db_schema_fuzz_") / "rank_0_ascend_pt";
    fs::create_directories(d / "ASCEND_PROFILER_OUTPUT");
    return d;
  }();
  return dir;
}

std::string Quoted(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

std::vector<std::string_view> SplitComma(std::string_view text) {
  std::vector<std::string_view> out;
  while (out.size() < kMaxColumns) {
    const size_t comma = text.find(',');
    out.push_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// Runs one statement (the first of |sql|); errors are ignored.
void RunOne(sqlite3* db, const std::string& sql, const std::vector<std::string_view>& values) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(stmt);
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string_view v = values[i];
    const int at = static_cast<int>(i) + 1;
    if (v == "null") {
      sqlite3_bind_null(stmt, at);
    } else if (const auto integer = trainscope::ParseInt64(v)) {
      sqlite3_bind_int64(stmt, at, *integer);
    } else if (const auto real = trainscope::ParseDouble(v)) {
      sqlite3_bind_double(stmt, at, *real);
    } else if (v.starts_with("x")) {
      std::string blob;
      for (size_t k = 1; k + 1 < v.size(); k += 2) {
        blob += static_cast<char>(std::strtol(std::string(v.substr(k, 2)).c_str(), nullptr, 16));
      }
      sqlite3_bind_blob(stmt, at, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_text(stmt, at, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    }
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
  }
  sqlite3_finalize(stmt);
}

int RefuseAttach(void* /*unused*/, int action, const char*, const char*, const char*, const char*) {
  return action == SQLITE_ATTACH || action == SQLITE_DETACH || action == SQLITE_PRAGMA ? SQLITE_DENY
                                                                                       : SQLITE_OK;
}

int StopLongCommand(void* budget) {
  int& left = *static_cast<int*>(budget);
  return --left < 0 ? 1 : 0;
}

void Command(sqlite3* db, std::string_view line) {
  if (line.size() < 3 || line[1] != ' ') return;
  const char op = line[0];
  line.remove_prefix(2);
  const size_t space = line.find(' ');
  const std::string_view name = line.substr(0, space);
  const std::string_view rest =
      space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
  if (op == 'T') {
    std::string sql = "CREATE TABLE " + Quoted(name) + " (";
    bool first = true;
    for (const std::string_view column : SplitComma(rest)) {
      const size_t type_at = column.find(' ');
      sql += (first ? "" : ", ") + Quoted(column.substr(0, type_at));
      // The declared type: letters only, so it stays a type name.
      if (type_at != std::string_view::npos) {
        sql += ' ';
        for (const char c : column.substr(type_at + 1)) {
          if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) sql += c;
        }
      }
      first = false;
    }
    RunOne(db, sql + ")", {});
  } else if (op == 'V') {
    RunOne(db, "CREATE VIEW " + Quoted(name) + " AS SELECT " + std::string(rest), {});
  } else if (op == 'I') {
    const std::vector<std::string_view> values = SplitComma(rest);
    std::string sql = "INSERT INTO " + Quoted(name) + " VALUES (";
    for (size_t i = 0; i < values.size(); ++i) sql += i == 0 ? "?" : ", ?";
    RunOne(db, sql + ")", values);
  }
}

bool BuildDatabase(const fs::path& path, std::string_view script) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  sqlite3_exec(db, "PRAGMA synchronous = OFF; PRAGMA journal_mode = OFF", nullptr, nullptr,
               nullptr);
  sqlite3_set_authorizer(db, RefuseAttach, nullptr);
  int budget = 1000000;
  sqlite3_progress_handler(db, 1000, StopLongCommand, &budget);
  size_t commands = 0;
  while (!script.empty() && commands++ < kMaxCommands) {
    const size_t eol = script.find('\n');
    Command(db, script.substr(0, eol));
    script = eol == std::string_view::npos ? std::string_view() : script.substr(eol + 1);
  }
  sqlite3_close(db);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view script(reinterpret_cast<const char*>(data), size);
  const size_t eol = script.find('\n');
  const bool analysis = script.substr(0, eol) == "analysis";
  script = eol == std::string_view::npos ? std::string_view() : script.substr(eol + 1);
  const fs::path out = RankDir() / "ASCEND_PROFILER_OUTPUT";
  const fs::path db = out / (analysis ? "analysis.db" : "ascend_pytorch_profiler_0.db");
  std::error_code ec;
  fs::remove(out / "ascend_pytorch_profiler_0.db", ec);
  fs::remove(out / "analysis.db", ec);
  if (!BuildDatabase(db, script)) return 0;
  if (analysis) {
    trainscope::model::RankProfile profile;
    if (trainscope::formats::ReadAnalysisDb(db.string(), &profile).ok()) CheckProfile(profile);
  } else {
    auto loaded = trainscope::formats::LoadAscendDbRank(RankDir().string());
    if (loaded.ok()) CheckProfile(*loaded);
  }
  return 0;
}
