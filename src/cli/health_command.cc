// `trainscope health LOG...`: training health from training logs
// (docs/health.md): each log read (formats/log), analysed on its own
// (analysis/health) and reported as text, JSON (trainscope.health/2).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/health/flight_recorder.h"
#include "analysis/health/log_series.h"
#include "analysis/health/scaling.h"
#include "analysis/health/training_health.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/job_loader.h"
#include "cli/option_checks.h"
#include "cli/output_paths.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "core/atomic_write.h"
#include "core/dir_walk.h"
#include "core/parallel.h"
#include "core/safe_text.h"
#include "formats/log/flight_recorder_reader.h"
#include "formats/log/training_log_reader.h"
#include "report/health_report.h"

namespace trainscope::cli {
namespace {

struct HealthArgs {
  std::vector<std::string> logs;
  std::string json_out;
  std::string html_out;
  std::string model;
  std::string device;
  double peak_tflops = 0;
  bool scaling = false;
  std::string key_map;
  std::string thresholds_file;
  unsigned threads = 0;
};

// "7B", "70m", "1.5e9", "1,000": a number with an optional K/M/B/G/T suffix.
std::optional<double> ParseAmount(std::string_view text) {
  std::string t;
  for (char c : text) {
    if (c != ',' && c != '_') t += c;
  }
  double scale = 1;
  if (!t.empty()) {
    switch (t.back()) {
      case 'k':
      case 'K':
        scale = 1e3;
        break;
      case 'm':
      case 'M':
        scale = 1e6;
        break;
      case 'b':
      case 'B':
      case 'g':
      case 'G':
        scale = 1e9;
        break;
      case 't':
      case 'T':
        scale = 1e12;
        break;
      default:
        break;
    }
    if (scale != 1) t.pop_back();
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || !(v > 0)) return std::nullopt;
  return v * scale;
}

// --model params=7B,layers=32,hidden=4096,heads=32,vocab=32000,seq=4096,
// batch=256,tokens=1048576,devices=64 (docs/health.md).
Result<analysis::ModelSpec> ParseModelSpec(const HealthArgs& args) {
  analysis::ModelSpec spec;
  spec.device = args.device;
  if (args.peak_tflops > 0) spec.peak_tflops = args.peak_tflops;
  std::string_view rest = args.model;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const std::optional<double> v =
        eq == std::string_view::npos ? std::nullopt : ParseAmount(item.substr(eq + 1));
    std::optional<double>* target = nullptr;
    if (key == "params") target = &spec.params;
    if (key == "layers") target = &spec.layers;
    if (key == "hidden") target = &spec.hidden;
    if (key == "heads") target = &spec.heads;
    if (key == "vocab") target = &spec.vocab;
    if (key == "seq") target = &spec.seq;
    if (key == "batch") target = &spec.batch;
    if (key == "tokens") target = &spec.tokens_per_step;
    if (key == "devices") target = &spec.devices;
    if (target == nullptr || !v) {
      return UsageError(fmt::format(
          "--model: '{}' is not KEY=NUMBER with KEY one of params, layers, hidden, heads, vocab, "
          "seq, batch, tokens, devices (e.g. --model params=7B,seq=4096,batch=256,devices=64)",
          item));
    }
    *target = v;
  }
  return spec;
}

struct ScalingDir {
  std::string name;
  int64_t devices = 0;
  std::vector<size_t> logs;  // indices into the logs read
};

// "run64/" (the last number of the name is the device count) or "DIR:N".
Result<ScalingDir> ParseScalingDir(const std::string& arg) {
  ScalingDir d;
  std::string path = arg;
  const size_t colon = arg.rfind(':');
  if (colon != std::string::npos && colon + 1 < arg.size() &&
      arg.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    path = arg.substr(0, colon);
    d.devices = std::stoll(arg.substr(colon + 1));
  }
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  d.name = path;
  if (d.devices == 0) {
    const std::string base = std::filesystem::path(path).filename().string();
    const size_t end = base.find_last_of("0123456789");
    if (end != std::string::npos) {
      size_t begin = end;
      while (begin > 0 && std::isdigit(static_cast<unsigned char>(base[begin - 1])) != 0) --begin;
      if (end - begin < 9) d.devices = std::stoll(base.substr(begin, end - begin + 1));
    }
  }
  if (d.devices <= 0) {
    return UsageError(fmt::format(
        "--scaling: no device count in '{}'; name the run's directory with it (run64/) or append "
        "it (DIR:64)",
        arg));
  }
  return d;
}

// The regular files of each run's directory, sorted: one log per rank.
Result<std::vector<ScalingDir>> ExpandScalingDirs(const std::vector<std::string>& args,
                                                  std::vector<std::string>* logs) {
  std::vector<ScalingDir> dirs;
  for (const std::string& arg : args) {
    TS_ASSIGN_OR_RETURN(ScalingDir d, ParseScalingDir(arg));
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(d.name, ec)) {
      if (entry.is_regular_file(ec)) files.push_back(entry.path().string());
    }
    if (ec) return IoError(fmt::format("--scaling: cannot list '{}': {}", d.name, ec.message()));
    if (files.empty()) {
      return UsageError(fmt::format("--scaling: '{}' holds no log file", d.name));
    }
    std::sort(files.begin(), files.end());
    for (std::string& f : files) {
      d.logs.push_back(logs->size());
      logs->push_back(std::move(f));
    }
    dirs.push_back(std::move(d));
  }
  return dirs;
}

analysis::ScalingTable BuildScaling(const std::vector<ScalingDir>& dirs,
                                    const std::vector<report::HealthRun>& runs) {
  std::vector<analysis::ScalingRunInput> inputs_by_run;
  for (const ScalingDir& d : dirs) {
    analysis::ScalingRunInput in;
    in.name = d.name;
    in.devices = d.devices;
    for (size_t i : d.logs) in.logs.push_back(&runs[i].health);
    inputs_by_run.push_back(std::move(in));
  }
  return analysis::ComputeScaling(std::move(inputs_by_run));
}

constexpr std::string_view kHealthFormatsHint =
    "the formats read are Megatron-LM / MindSpeed-LLM `iteration N/M | ...`, XTuner `Step N/M ... "
    "time: ...`, TorchTitan `step: N  loss: ...`, DeepSpeed-Chat `epoch: E|step: N|...|act_loss: "
    "...` (with DeepSpeed's `OVERFLOW! ... Skipping step`), DeepSpeed's engine `[Rank 0] step=N, "
    "skipped=K, lr=...`, Hugging Face / LLaMA-Factory / "
    "JSON-lines dicts with a `loss` or `grad_norm` key, HF trainer_state.json (indented or on one "
    "line), MindSpeed-LLM and "
    "Megatron-LM metrics JSON ({\"lm loss\": [...]}), and key=value lines with `loss=` "
    "(docs/health.md); name other keys with --map";

// Cuts one log into its series and analyses each (on |threads|); a file
// with no record is one series, not read, with the lines it began with.
std::vector<report::HealthRun> AnalyzeLogFile(formats::ReadTrainingLog read,
                                              const analysis::FindingCatalog& catalog,
                                              const analysis::ModelSpec* spec, unsigned threads) {
  const int64_t bytes = read.log.bytes;
  std::vector<analysis::LogSeries> series = analysis::SplitLogSeries(std::move(read.log));
  int runs_in_file = 0;
  for (const analysis::LogSeries& s : series) runs_in_file = std::max(runs_in_file, s.run);
  std::vector<report::HealthRun> out;
  for (analysis::LogSeries& s : series) {
    report::HealthRun run;
    run.health = analysis::AnalyzeTrainingLog(s.log, catalog.thresholds(), spec, threads);
    const bool no_records = s.log.records.empty();
    s.log.records.clear();  // judged: the next series' analysis does not stand beside them
    run.health.run = s.run;
    run.health.runs_in_file = runs_in_file;
    run.health.rank = s.rank;
    if (s.rank) run.health.rank_source = "line";
    run.health.engine = s.engine;
    run.health.run_start = s.start;
    run.health.back_from_step = s.back_from_step;
    run.bytes = bytes;
    run.first_of_file = out.empty();
    if (run.first_of_file) {
      run.ledger = std::move(read.ledger);
      run.warning = std::move(read.warning);
      run.first_lines = s.log.first_lines;
      if (!s.log.not_text.empty()) {
        run.not_read = s.log.not_text;
      } else if (no_records) {
        run.not_read =
            fmt::format("no training line recognised in {} line(s)", run.ledger.rows_read());
      }
    }
    out.push_back(std::move(run));
  }
  return out;
}

// The key a file shares with the other files of its run's ranks
// (docs/health.md, "Runs and ranks"): its path with the rank's digits left
// out when the path names a rank, else its directory when its lines name
// their ranks; "" for a file that is no rank of a run in several files (no
// record read, or a series with no rank from its lines or its path).
std::string RankFileKey(const std::vector<report::HealthRun>& runs,
                        const std::vector<size_t>& series) {
  const analysis::RunHealth& first = runs[series.front()].health;
  const std::optional<analysis::PathRank> from_path = analysis::RankFromLogPath(first.path);
  bool lines_name = false;
  bool ranked = true;
  bool read = false;
  for (size_t i : series) {
    const analysis::RunHealth& h = runs[i].health;
    if (h.records == 0) continue;
    read = true;
    lines_name = lines_name || h.rank.has_value();
    ranked = ranked && (h.rank || from_path);
  }
  if (!read || !ranked) return {};
  if (from_path) return fmt::format("name:{}", from_path->pattern);
  if (!lines_name) return {};
  return fmt::format("dir:{}", std::filesystem::path(first.path).parent_path().string());
}

// The rank of a series of a file of one run's ranks: its lines', else its
// path's (-1 when neither names one).
int SeriesRank(const analysis::RunHealth& h) {
  if (h.rank) return *h.rank;
  const std::optional<analysis::PathRank> from_path = analysis::RankFromLogPath(h.path);
  return from_path ? from_path->rank : -1;
}

// One run's ranks in separate files: the files of one key are one run's
// ranks when there are two or more of them and no rank (with its run and
// engine) is in two of them. Returns per series the group it is compared
// in: its file (the log index), or the group of files it joined (numbered
// after the log indices); a series whose lines name no rank takes its
// path's (`rank_source` "file name").
std::vector<size_t> GroupRankFiles(std::vector<report::HealthRun>* runs) {
  std::map<size_t, std::vector<size_t>> series_of_file;  // log index -> series
  for (size_t i = 0; i < runs->size(); ++i) series_of_file[(*runs)[i].log_index].push_back(i);
  std::vector<size_t> group(runs->size());
  std::map<std::string, std::vector<size_t>> candidates;  // key -> series of its files
  std::map<std::string, size_t> files_of_key;
  for (const auto& [file, series] : series_of_file) {
    for (size_t i : series) group[i] = file;
    const std::string key = RankFileKey(*runs, series);
    if (key.empty()) continue;
    ++files_of_key[key];
    for (size_t i : series) {
      if ((*runs)[i].health.records > 0) candidates[key].push_back(i);
    }
  }
  size_t next_group = series_of_file.empty() ? 0 : series_of_file.rbegin()->first + 1;
  for (const auto& [key, series] : candidates) {
    if (files_of_key[key] < 2) continue;
    std::set<std::tuple<int, int, int>> seen;
    const bool clash = std::any_of(series.begin(), series.end(), [&](size_t i) {
      const analysis::RunHealth& h = (*runs)[i].health;
      return !seen.emplace(h.run, SeriesRank(h), h.engine.value_or(0)).second;
    });
    if (clash) continue;
    for (size_t i : series) {
      analysis::RunHealth& h = (*runs)[i].health;
      group[i] = next_group;
      if (h.rank) continue;
      h.rank = SeriesRank(h);
      h.rank_source = "file name";
    }
    ++next_group;
  }
  return group;
}

// Per group of series (a file, or one run's ranks in several files): the
// ranks and engines of each run counted, the ranks of each run and engine
// compared (rank-outlier), then every finding rendered.
void CompareRanks(std::vector<report::HealthRun>* runs, const analysis::FindingCatalog& catalog) {
  const std::vector<size_t> group = GroupRankFiles(runs);
  std::map<std::pair<size_t, int>, std::set<int>> ranks;                 // (group, run)
  std::map<std::tuple<size_t, int, int>, std::set<int>> engines;         // (group, run, rank)
  std::map<std::tuple<size_t, int, int>, std::vector<size_t>> compared;  // (group, run, engine)
  for (size_t i = 0; i < runs->size(); ++i) {
    const analysis::RunHealth& h = (*runs)[i].health;
    if (!h.rank) continue;
    ranks[{group[i], h.run}].insert(*h.rank);
    if (h.engine) engines[{group[i], h.run, *h.rank}].insert(*h.engine);
    compared[{group[i], h.run, h.engine.value_or(0)}].push_back(i);
  }
  for (size_t i = 0; i < runs->size(); ++i) {
    analysis::RunHealth& h = (*runs)[i].health;
    if (!h.rank) continue;
    h.ranks_in_run = static_cast<int>(ranks[{group[i], h.run}].size());
    if (h.engine) h.engines_in_run = static_cast<int>(engines[{group[i], h.run, *h.rank}].size());
  }
  for (const auto& members : compared) {
    std::vector<analysis::RunHealth*> ranked;
    for (size_t i : members.second) ranked.push_back(&(*runs)[i].health);
    analysis::FindRankOutliers(ranked, catalog.thresholds());
  }
  for (report::HealthRun& run : *runs) {
    analysis::RenderFindings(catalog, &run.health.findings, model::Platform::kUnknown);
  }
}

// A directory argument: its regular files, depth first and sorted, never
// through a directory link (no loop); an unlistable directory is said.
struct LogDirWalk {
  std::vector<std::string> files;
  std::vector<std::string> problems;
};

LogDirWalk WalkLogDir(const std::string& root) {
  namespace fs = std::filesystem;
  LogDirWalk out;
  WalkDirectory(
      root,
      [&](const fs::directory_entry& entry) {
        std::error_code ec;
        const fs::file_status link = entry.symlink_status(ec);
        if (!ec && fs::is_directory(link)) return true;
        if (!ec && entry.is_regular_file(ec)) out.files.push_back(entry.path().string());
        return false;
      },
      [&](const fs::path& dir, DirWalkProblem what, const std::error_code& ec) {
        out.problems.push_back(fmt::format(
            "{}: {}: {}", dir.string(),
            what == DirWalkProblem::kCannotList ? "cannot list" : "listing stopped", ec.message()));
      });
  std::sort(out.files.begin(), out.files.end());
  return out;
}

// Files found by walking a directory that hold no training line (a README,
// a config, a binary) are passed over and listed, not "not read": only a
// directory in which no file was read is.
void PassOverDirFiles(const std::vector<std::string>& dir_of_log,
                      std::vector<report::HealthRun>* runs, std::vector<std::string>* passed) {
  std::vector<std::string> dirs_read;
  for (const report::HealthRun& r : *runs) {
    if (r.not_read.empty() && r.log_index < dir_of_log.size() && !dir_of_log[r.log_index].empty()) {
      dirs_read.push_back(dir_of_log[r.log_index]);
    }
  }
  std::vector<report::HealthRun> kept;
  for (report::HealthRun& r : *runs) {
    const std::string& dir = r.log_index < dir_of_log.size() ? dir_of_log[r.log_index] : "";
    if (!r.not_read.empty() && !dir.empty() &&
        std::find(dirs_read.begin(), dirs_read.end(), dir) != dirs_read.end()) {
      passed->push_back(fmt::format("{}: {}", r.health.path, r.not_read));
      continue;
    }
    kept.push_back(std::move(r));
  }
  *runs = std::move(kept);
}

// The log arguments with each directory replaced by its files;
// |dir_of_log| names the directory each came from ("" for a file given).
Status ExpandLogDirs(const std::vector<std::string>& given, std::vector<std::string>* logs,
                     std::vector<std::string>* dir_of_log, std::vector<std::string>* problems) {
  logs->clear();
  for (const std::string& arg : given) {
    std::error_code ec;
    if (!std::filesystem::is_directory(arg, ec)) {
      logs->push_back(arg);
      dir_of_log->emplace_back();
      continue;
    }
    LogDirWalk walk = WalkLogDir(arg);
    if (walk.files.empty()) {
      return InvalidInput(fmt::format("{}: a directory with no file in it", arg));
    }
    for (std::string& f : walk.files) {
      logs->push_back(std::move(f));
      dir_of_log->push_back(arg);
    }
    for (std::string& p : walk.problems) problems->push_back(std::move(p));
  }
  return Status::Ok();
}

// What the directory walk said: listing problems, the files passed over.
void ReportDirWalk(const std::vector<std::string>& walk_problems,
                   const std::vector<std::string>& passed_over) {
  for (const std::string& p : walk_problems) {
    WriteStderr(TerminalSafe(fmt::format("trainscope: warning: {}\n", p), true));
  }
  if (passed_over.empty()) return;
  std::string list;
  for (const std::string& p : passed_over) list += "\n  " + p;
  WriteStderr(TerminalSafe(
      fmt::format("trainscope: {} file(s) of the directories given passed over (no training "
                  "line):{}\n",
                  passed_over.size(), list),
      /*keep_newlines=*/true));
}

// One log read, cut into series and analysed. A file found by walking a
// directory that cannot be opened is passed over with its reason (as one
// that holds no training line) instead of failing the command.
// |threads|: the log's share of the threads (its lines parsed ahead).
Result<std::vector<report::HealthRun>> ReadAndAnalyzeLog(const std::string& path, bool from_dir,
                                                         const formats::LogKeyMap* key_map,
                                                         const analysis::FindingCatalog& catalog,
                                                         const analysis::ModelSpec* spec,
                                                         unsigned threads) {
  Result<formats::ReadTrainingLog> read =
      formats::ReadTrainingLogFile(path, key_map, formats::LogReadOptions{threads});
  if (!read.ok() && from_dir) {
    formats::ReadTrainingLog unread;
    unread.ledger = RowLedger(path);
    unread.log.path = path;
    unread.log.not_text = read.status().message();
    read = std::move(unread);
  }
  if (!read.ok()) return read.status();
  return AnalyzeLogFile(std::move(*read), catalog, spec, threads);
}

// A damaged gzip stream and a log not read, said on stderr.
void WarnNotRead(const std::vector<report::HealthRun>& runs) {
  for (const report::HealthRun& run : runs) {
    if (run.first_of_file && !run.warning.empty()) {
      WriteStderr(TerminalSafe(fmt::format("trainscope: warning: {}\n", run.warning),
                               /*keep_newlines=*/true));
    }
    if (!run.not_read.empty()) {
      WriteStderr(TerminalSafe(fmt::format("trainscope: {}: not read: {}\nhint: {}\n",
                                           run.health.path, run.not_read, kHealthFormatsHint),
                               /*keep_newlines=*/true));
    }
  }
}

int WriteHealthOutputs(const HealthArgs& args, const std::vector<report::HealthRun>& runs,
                       const report::HealthExtras& table) {
  // A log not read (or read only up to damage) never exits 0 (docs/health.md).
  const int ok_exit = report::AnyLogNotRead(runs) ? kExitUnusableInput : kExitSuccess;
  if (!args.html_out.empty()) {
    if (Status ok =
            WriteFileAtomically(args.html_out, report::RenderHealthHtml(runs, kVersion, table));
        !ok.ok()) {
      return ReportError(ok);
    }
  }
  if (args.json_out == "-") {
    WriteStdout(report::RenderHealthJson(runs, kVersion, table));
    return ok_exit;
  }
  if (!args.json_out.empty()) {
    if (Status ok =
            WriteFileAtomically(args.json_out, report::RenderHealthJson(runs, kVersion, table));
        !ok.ok()) {
      return ReportError(ok);
    }
  }
  WriteStdout(report::RenderHealthText(runs, table));
  if (!args.html_out.empty())
    WriteStdout(fmt::format("\nHTML written to {}\n", TerminalSafe(args.html_out)));
  if (!args.json_out.empty())
    WriteStdout(fmt::format("\nJSON written to {}\n", TerminalSafe(args.json_out)));
  return ok_exit;
}

int RunHealth(const HealthArgs& given) {
  HealthArgs args = given;
  std::vector<ScalingDir> scaling_dirs;
  if (args.scaling) {
    args.logs.clear();
    Result<std::vector<ScalingDir>> dirs = ExpandScalingDirs(given.logs, &args.logs);
    if (!dirs.ok()) return ReportError(dirs.status());
    scaling_dirs = std::move(*dirs);
  }
  std::optional<formats::LogKeyMap> key_map;
  if (!args.key_map.empty()) {
    Result<formats::LogKeyMap> parsed = formats::ParseLogKeyMap(args.key_map);
    if (!parsed.ok()) return ReportError(parsed.status());
    key_map = std::move(*parsed);
  }
  std::optional<analysis::ModelSpec> spec;
  if (!args.model.empty() || !args.device.empty() || args.peak_tflops > 0) {
    Result<analysis::ModelSpec> parsed = ParseModelSpec(args);
    if (!parsed.ok()) return ReportError(parsed.status());
    spec = std::move(*parsed);
  }
  // Directories walked: every regular file is tried as a log.
  std::vector<std::string> dir_of_log;
  std::vector<std::string> walk_problems;
  if (!args.scaling) {
    if (Status ok = ExpandLogDirs(given.logs, &args.logs, &dir_of_log, &walk_problems); !ok.ok()) {
      return ReportError(ok);
    }
  }
  std::vector<std::string> inputs = args.logs;
  if (!args.thresholds_file.empty()) inputs.push_back(args.thresholds_file);
  const std::vector<OutputPath> outputs = {{"--json", args.json_out}, {"--html", args.html_out}};
  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  RuleFiles files;
  files.thresholds_file = args.thresholds_file;
  Result<LoadedRules> rules = LoadRuleFiles(files);
  if (!rules.ok()) return ReportError(rules.status());
  const analysis::FindingCatalog& catalog = rules->Catalog();

  // One log per worker (many ranks' logs at once); each is read, cut into
  // its series (runs x ranks) and each series analysed on its own, then
  // reported in the order given.
  std::vector<std::optional<Result<std::vector<report::HealthRun>>>> done(args.logs.size());
  const unsigned threads = ClampThreads(args.threads);
  // Fewer logs than threads: each log's lines are parsed ahead on the rest.
  const unsigned per_log = ThreadsPerItem(threads, args.logs.size());
  ParallelFor(args.logs.size(), threads, [&](size_t i) {
    done[i].emplace(ReadAndAnalyzeLog(args.logs[i], i < dir_of_log.size() && !dir_of_log[i].empty(),
                                      key_map ? &*key_map : nullptr, catalog,
                                      spec ? &*spec : nullptr, per_log));
    if (done[i]->ok()) {
      for (report::HealthRun& run : **done[i]) run.log_index = i;
    }
  });
  std::vector<report::HealthRun> all_runs;
  for (std::optional<Result<std::vector<report::HealthRun>>>& one : done) {
    if (!one->ok()) return ReportError(one->status());
    for (report::HealthRun& run : **one) all_runs.push_back(std::move(run));
  }
  std::vector<std::string> passed_over;
  PassOverDirFiles(dir_of_log, &all_runs, &passed_over);
  CompareRanks(&all_runs, catalog);
  ReportDirWalk(walk_problems, passed_over);
  WarnNotRead(all_runs);
  std::vector<report::HealthRun> runs = std::move(all_runs);

  std::optional<analysis::ScalingTable> scaling;
  if (args.scaling) scaling = BuildScaling(scaling_dirs, runs);
  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  report::HealthExtras extras;
  extras.scaling = scaling ? &*scaling : nullptr;
  // Flight-recorder dumps next to the logs (docs/health.md).
  std::vector<std::string> dirs;
  for (const std::string& log : args.logs) {
    std::string dir = std::filesystem::path(log).parent_path().string();
    if (dir.empty()) dir = ".";
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  formats::FlightRecorderScan scan = formats::ScanFlightRecorderDumps(dirs);
  std::optional<analysis::FlightRecorderReport> flight;
  if (!scan.dumps.empty()) {
    flight = analysis::AnalyzeFlightRecorder(scan.dumps);
    extras.flight = &*flight;
  }
  extras.flight_pickles = std::move(scan.pickles);
  extras.flight_errors = std::move(scan.errors);
  return WriteHealthOutputs(args, runs, extras);
}

}  // namespace

CommandRunner RegisterHealth(CLI::App& app) {
  auto args = std::make_shared<HealthArgs>();
  app.add_option("logs", args->logs,
                 "Training logs (Megatron-LM / MindSpeed-LLM, TorchTitan, Hugging Face Trainer, "
                 "key=value or JSON lines; plain or .gz), one run each")
      ->required();
  app.add_option("--json", args->json_out,
                 "Write the health as JSON (schema trainscope.health/2, docs/json-schema.md) to "
                 "FILE, or '-' for stdout")
      ->type_name("FILE|-");
  app.add_option("--html", args->html_out,
                 "Write an HTML page with the loss, grad-norm, step-time and TGS/MFU curves and "
                 "the findings marked at their steps")
      ->type_name("FILE");
  app.add_option("--model", args->model,
                 "The model, for TGS and MFU from the step times: params=N or layers=,hidden=,"
                 "vocab=; seq=, batch= (global, sequences) or tokens= (global per step), "
                 "devices=; e.g. params=7B,layers=32,hidden=4096,seq=4096,batch=256,devices=64")
      ->type_name("K=V,...");
  app.add_option("--device", args->device,
                 "Device for the peak FLOP/s table (A100, H100, H800, H200, B200, MI300X, "
                 "Ascend910B, Ascend910C; docs/health.md)");
  app.add_option("--peak-tflops", args->peak_tflops,
                 "Dense BF16 peak TFLOP/s per device (overrides --device's table row)")
      ->check(FiniteNumber(1e-3, 1e6));
  app.add_option("--map", args->key_map,
                 "Key names of JSON-lines / dict / key=value logs: FIELD=KEY,... (fields step, "
                 "loss, grad_norm, lr, step_time_ms, step_time_s, tokens_per_s, tflops, mfu), or "
                 "a file of FIELD=KEY lines; e.g. --map loss=train/loss,step=trainer/global_step")
      ->type_name("F=K,...|FILE");
  app.add_flag("--scaling", args->scaling,
               "The arguments are run directories at several device counts (run8/ run16/ run64/, "
               "or DIR:N), each holding its ranks' logs: throughput per device and efficiency vs "
               "the smallest run");
  app.add_option("--thresholds", args->thresholds_file,
                 "Override thresholds (as in data/thresholds.tsv)")
      ->type_name("FILE");
  app.add_option("--threads", args->threads, "Logs read at once (default: all cores)");
  return [args] { return RunHealth(*args); };
}

}  // namespace trainscope::cli
