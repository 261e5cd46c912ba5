#include "formats/ascend/rank_inventory.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

// Why a file torch_npu or CANN writes is not read; "" when it is not one
// of theirs.
std::string_view KnownUnread(std::string_view name, bool is_dir, bool db_rank) {
  if (is_dir) {
    if (name == "FRAMEWORK" || name.starts_with("PROF_")) {
      return "raw profiler data (torch_npu's parsed files beside it are read instead)";
    }
    if (name == "logs") return "the profiler's own logs";
    return "";
  }
  if (name == "data_preprocess.csv") return "AI CPU data preprocessing: no analysis uses it yet";
  if (name.ends_with(".db-wal") || name.ends_with(".db-shm") || name.ends_with(".db-journal")) {
    return "SQLite's write-ahead log / shared memory / journal: the database is opened immutable "
           "(a non-empty -wal is a warning)";
  }
  if (name.ends_with(".db")) {
    return db_rank ? "a database of another rank, or not one torch_npu names (the rank's own "
                     "ascend_pytorch_profiler_<rank>.db and analysis.db are read)"
                   : "the db export of the same capture: the rank is read from its text export";
  }
  if (name.starts_with("profiler_info") && name.ends_with(".json")) {
    return "another rank's profiler_info (the rank's own is read)";
  }
  if (name == "kernel_details.csv" || name == "step_trace_time.csv" || name == "trace_view.json" ||
      name == "op_statistic.csv" || name == "api_statistic.csv" || name == "operator_details.csv" ||
      name == "memory_record.csv" || name == "operator_memory.csv" ||
      name == "npu_module_mem.csv" || name == "l2_cache.csv" || name == "communication.json" ||
      name == "communication_matrix.json") {
    return db_rank ? "the text export of the same capture: the rank is read from its db export"
                   : "";
  }
  return "";
}

void List(const fs::path& dir, const std::string& prefix, const std::set<std::string>& read,
          const std::string& output_dir, bool db_rank, model::RankProfile* profile) {
  std::error_code ec;
  std::vector<model::InputFile> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string full = (dir / name).lexically_normal().string();
    std::error_code type_ec;
    const bool is_dir = it->is_directory(type_ec);
    if (is_dir && full == output_dir) continue;  // listed entry by entry
    model::InputFile file;
    file.path = prefix + name + (is_dir ? "/" : "");
    file.read = read.count(full) > 0;
    if (!file.read) {
      const std::string_view why = KnownUnread(name, is_dir, db_rank);
      file.reason = why.empty() ? (is_dir ? "a folder trainscope does not read"
                                          : "not a file trainscope knows")
                                : std::string(why);
    }
    entries.push_back(std::move(file));
  }
  std::sort(entries.begin(), entries.end(),
            [](const model::InputFile& a, const model::InputFile& b) { return a.path < b.path; });
  for (model::InputFile& entry : entries) profile->inventory.push_back(std::move(entry));
}

}  // namespace

void TakeRankInventory(const std::set<std::string>& opened, bool db_rank,
                       model::RankProfile* profile) {
  profile->inventory.clear();
  std::set<std::string> read;
  for (const std::string& path : opened) read.insert(fs::path(path).lexically_normal().string());
  const fs::path source(profile->source_dir);
  const fs::path output(profile->profiler_output);
  std::error_code ec;
  const bool nested = output.parent_path() == source && fs::is_directory(output, ec);
  List(source, "", read, nested ? output.lexically_normal().string() : std::string(), db_rank,
       profile);
  if (nested) {
    List(output, output.filename().string() + "/", read, std::string(), db_rank, profile);
  }
}

}  // namespace trainscope::formats
