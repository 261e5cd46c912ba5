#include "formats/ascend/ascend_rank_loader.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <future>
#include <map>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "formats/ascend/api_statistic_reader.h"
#include "formats/ascend/communication_reader.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend/l2_cache_reader.h"
#include "formats/ascend/memory_readers.h"
#include "formats/ascend/op_statistic_reader.h"
#include "formats/ascend/operator_details_reader.h"
#include "formats/ascend/profiler_info_reader.h"
#include "formats/ascend/profiler_metadata_reader.h"
#include "formats/ascend/rank_inventory.h"
#include "formats/ascend/step_trace_reader.h"
#include "formats/trace/trace_view_reader.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOutputDirName = "ASCEND_PROFILER_OUTPUT";

// An optional file: absent -> missing_files with why it matters; present but
// unusable -> a warning (the load goes on).
// Every file opened is added to |opened| (the input inventory).
template <typename ReadFn>
void ReadOptional(const fs::path& path, std::string_view why, model::RankProfile* profile,
                  std::set<std::string>* opened, ReadFn read) {
  if (!PresentInAnyForm(path)) {
    profile->missing_files.push_back(fmt::format("{} ({})", path.filename().string(), why));
    return;
  }
  opened->insert(path.string());
  Status status = read(path.string());
  if (!status.ok()) profile->warnings.push_back(status.message());
}

// "TopKV2" -> "TopK": a type name without its trailing version ("V" and
// digits), itself when it has none.
std::string_view WithoutVersion(std::string_view type) {
  size_t end = type.size();
  while (end > 0 && type[end - 1] >= '0' && type[end - 1] <= '9') --end;
  if (end == type.size() || end == 0 || type[end - 1] != 'V') return type;
  return type.substr(0, end - 1);
}

// The op type op_statistic.csv names for a kernel whose export gives none
// (kernel_details.csv "N/A", Level0), from |derived| (DeriveOpTypeFromName)
// and the kernel's name, in this order: the derived type itself; the last
// token of the name ('_'-separated) that is a type of |types|; the derived
// type with CANN's "D" suffix (ReduceSum -> ReduceSumD, TopKV2 -> TopKD);
// the longest type the derived one ends with (RightBatchMatMulV2 ->
// BatchMatMulV2). "" when none fits.
std::string_view TypeNamedByOpStatistic(std::string_view derived, std::string_view name,
                                        const std::set<std::string, std::less<>>& types) {
  if (auto it = types.find(derived); it != types.end()) return *it;
  std::string_view token_found;
  for (size_t at = 0; at < name.size();) {
    size_t end = name.find('_', at);
    if (end == std::string_view::npos) end = name.size();
    if (auto it = types.find(name.substr(at, end - at)); it != types.end()) token_found = *it;
    at = end + 1;
  }
  if (!token_found.empty()) return token_found;
  for (std::string_view stem : {derived, WithoutVersion(derived)}) {
    std::string with_d(stem);
    with_d += 'D';
    if (auto it = types.find(with_d); it != types.end()) return *it;
  }
  std::string_view tail;
  for (const std::string& type : types) {
    if (type.size() >= 4 && type.size() > tail.size() && derived.ends_with(type)) tail = type;
  }
  return tail;
}

// Level0 exports give kernel_details.csv no Type: the rows' types were
// derived from their names (op_type_derived). Where op_statistic.csv of the
// same rank names the type, that type is used and the row is no longer
// marked derived; the rest stay derived.
void TypeFromOpStatistic(model::RankProfile* profile) {
  if (profile->op_statistic.empty() ||
      profile->device_events_source != model::DeviceEventsSource::kKernelDetailsCsv)
    return;
  std::set<std::string, std::less<>> types;
  for (const model::OpStatisticRow& row : profile->op_statistic) types.insert(row.op_type);
  model::DeviceEvents& events = profile->device_events;
  // By (derived type, name): a few hundred distinct names in a big export.
  std::map<std::pair<StringId, StringId>, StringId> resolved;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events.op_type_derived[i] == 0) continue;
    const auto key = std::pair{events.op_type[i], events.name[i]};
    auto it = resolved.find(key);
    if (it == resolved.end()) {
      const std::string_view type = TypeNamedByOpStatistic(profile->strings.Get(key.first),
                                                           profile->strings.Get(key.second), types);
      it = resolved.emplace(key, type.empty() ? StringPool::kEmpty : profile->strings.Intern(type))
               .first;
    }
    if (it->second == StringPool::kEmpty) continue;
    events.op_type[i] = it->second;
    events.op_type_derived[i] = 0;
  }
}

}  // namespace

// profiler_info_<rank>.json, or profiler_info.json in single-card runs.
// With several (should not happen), the lowest rank wins for determinism.
std::string FindProfilerInfoFile(const std::string& source_dir_name) {
  const fs::path source_dir(source_dir_name);
  fs::path best;
  std::optional<int32_t> best_rank;
  std::error_code ec;
  for (fs::directory_iterator it(source_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "profiler_info.json") {
      if (best.empty()) best = it->path();
      continue;
    }
    std::optional<int32_t> rank = RankFromProfilerInfoName(name);
    if (rank && (!best_rank || *rank < *best_rank)) {
      best = it->path();
      best_rank = rank;
    }
  }
  return best.string();
}

bool PresentInAnyForm(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

Result<model::RankProfile> LoadAscendRank(const std::string& rank_dir, unsigned threads) {
  std::error_code ec;
  fs::path dir(rank_dir);
  if (!fs::is_directory(dir, ec)) {
    return NotFound(
        fmt::format("{}: not a directory (expected a *_ascend_pt rank directory)", rank_dir));
  }
  fs::path source_dir = dir;
  fs::path output_dir = dir / kOutputDirName;
  if (dir.filename() == kOutputDirName ||
      (dir.filename().empty() && dir.parent_path().filename() == kOutputDirName)) {
    output_dir = dir;
    source_dir = dir.filename().empty() ? dir.parent_path().parent_path() : dir.parent_path();
  }

  model::RankProfile profile;
  profile.source_dir = source_dir.string();
  profile.profiler_output = output_dir.string();

  const fs::path kernel_details = output_dir / "kernel_details.csv";
  const fs::path step_trace = output_dir / "step_trace_time.csv";
  const fs::path trace_view = output_dir / "trace_view.json";
  if (PresentInAnyForm(output_dir) && !fs::is_directory(output_dir, ec)) {
    return InvalidInput(
        fmt::format("{}: not a directory\nhint: ASCEND_PROFILER_OUTPUT must be the directory "
                    "torch_npu writes its "
                    "parsed CSV/JSON files into",
                    output_dir.string()));
  }
  std::set<std::string> opened;
  // communication.json (tens of MB at Level1) shares nothing with
  // kernel_details.csv: with two threads or more it is read beside it, on
  // the cores the CSV leaves idle in its serial stretches. Its outcome is
  // booked below, in the files' usual order. The future is declared after
  // what the task uses: on every path out, a failed CSV too, its destructor
  // (std::async's waits for the task) runs before they go.
  const fs::path communication = output_dir / "communication.json";
  model::CommunicationData communication_data;
  std::future<Status> communication_read;
  if (threads >= 2 && PresentInAnyForm(kernel_details) && PresentInAnyForm(communication)) {
    communication_read = std::async(std::launch::async, [&communication, &communication_data] {
      return ReadCommunicationFile(communication.string(), &communication_data);
    });
  }
  if (PresentInAnyForm(kernel_details)) {
    opened.insert(kernel_details.string());
    TS_RETURN_IF_ERROR(ReadKernelDetailsFile(kernel_details.string(), &profile, threads));
  } else if (PresentInAnyForm(step_trace) || PresentInAnyForm(trace_view)) {
    // Seen in real captures (the Qwen sample's rank 1 and 3): the rank still
    // has step timings, so it is reported instead of failing the whole job.
    profile.missing_files.push_back(
        "kernel_details.csv (per-kernel analyses use trace_view.json's device tasks when present, "
        "else have no data for this rank)");
  } else {
    return NotFound(fmt::format(
        "{}: none of kernel_details.csv, step_trace_time.csv, trace_view.json found in {}\nhint: "
        "pass the "
        "*_ascend_pt directory written by torch_npu after offline/online parsing (it contains "
        "ASCEND_PROFILER_OUTPUT/); raw PROF_* data must be parsed with torch_npu first",
        rank_dir, output_dir.string()));
  }

  ReadOptional(step_trace, "step times and compute/communication overlap per step", &profile,
               &opened,
               [&](const std::string& path) { return ReadStepTraceTimeFile(path, &profile); });
  ReadOptional(output_dir / "op_statistic.csv",
               "Level1+ only; per-op-type totals for cross-checking kernel_details", &profile,
               &opened,
               [&](const std::string& path) { return ReadOpStatisticFile(path, &profile); });
  TypeFromOpStatistic(&profile);
  ReadOptional(output_dir / "api_statistic.csv",
               "Level1+ only; host API time: online operator compilation, kernel launches",
               &profile, &opened,
               [&](const std::string& path) { return ReadApiStatisticFile(path, &profile); });
  // l2_cache.csv exists only with experimental_config l2_cache=True: its
  // absence is the default, not worth a "not present" line.
  if (PresentInAnyForm(output_dir / "l2_cache.csv")) {
    ReadOptional(output_dir / "l2_cache.csv", "L2 cache hit rates per device task", &profile,
                 &opened, [&](const std::string& path) { return ReadL2CacheFile(path, &profile); });
  }
  ReadOptional(output_dir / "operator_details.csv",
               "framework operators with their call stacks and input shapes", &profile, &opened,
               [&](const std::string& path) { return ReadOperatorDetailsFile(path, &profile); });

  ReadOptional(
      output_dir / "memory_record.csv",
      "profile_memory=True only; allocated/reserved memory over time, peaks, fragmentation",
      &profile, &opened,
      [&](const std::string& path) { return ReadMemoryRecordFile(path, &profile); });
  ReadOptional(output_dir / "operator_memory.csv",
               "profile_memory=True only; which operators hold the memory at the peak", &profile,
               &opened,
               [&](const std::string& path) { return ReadOperatorMemoryFile(path, &profile); });
  ReadOptional(output_dir / "npu_module_mem.csv", "device memory per driver component", &profile,
               &opened,
               [&](const std::string& path) { return ReadNpuModuleMemFile(path, &profile); });

  ReadOptional(communication,
               "Level1+ only; per-op transit/wait/synchronization times for the cluster analysis",
               &profile, &opened, [&](const std::string& path) {
                 if (!communication_read.valid()) {
                   return ReadCommunicationFile(path, &profile.communication);
                 }
                 Status status = communication_read.get();
                 profile.communication = std::move(communication_data);
                 return status;
               });
  ReadOptional(output_dir / "communication_matrix.json",
               "Level1+ only; per-link bandwidths for slow-link detection", &profile, &opened,
               [&](const std::string& path) {
                 return ReadCommunicationMatrixFile(path, &profile.communication);
               });

  for (std::string& note : profile.communication.notes) profile.warnings.push_back(std::move(note));
  profile.communication.notes.clear();

  // Read after kernel_details.csv: the trace adds host ops, flows and the
  // Overlap Analysis lanes, joins its device tasks onto the CSV's rows
  // (launch links) and supplies the device events only when the CSV is absent.
  ReadOptional(trace_view, "host ops, call stacks, flows and the device timeline", &profile,
               &opened, [&](const std::string& path) { return ReadTraceView(path, &profile); });

  const fs::path info_path = FindProfilerInfoFile(source_dir.string());
  if (info_path.empty()) {
    profile.missing_files.push_back(
        "profiler_info_<rank>.json (rank id, torch_npu/CANN versions, profiler level)");
  } else {
    opened.insert(info_path.string());
    Status status = ReadProfilerInfoFile(info_path.string(), &profile.info);
    if (!status.ok()) profile.warnings.push_back(status.message());
  }
  ReadOptional(
      source_dir / "profiler_metadata.json",
      "ENV_VARIABLES and parallel sizes (TP/PP/DP) for configuration checks", &profile, &opened,
      [&](const std::string& path) { return ReadProfilerMetadataFile(path, &profile.info); });
  if (profile.info.rank) profile.rank = *profile.info.rank;
  TakeRankInventory(opened, /*db_rank=*/false, &profile);
  return profile;
}

}  // namespace trainscope::formats
