#include "cli/analyze_pipeline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "analysis/common/family_rules.h"
#include "analysis/common/findings_catalog.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/motifs/fingerprint_library.h"
#include "cli/app.h"
#include "cli/job_loader.h"
#include "cli/mpi_job.h"
#include "cli/output_paths.h"
#include "cli/report_output.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/rank_ranges.h"
#include "core/read_file.h"
#include "core/safe_text.h"
#include "export/csv_export.h"
#include "export/job_export.h"
#include "formats/load_profiles.h"
#include "model/timeline_classify.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace trainscope::cli {
namespace {

// Everything the run reads: an output may be none of these.
std::vector<std::string> InputsOf(const AnalyzeArgs& args) {
  std::vector<std::string> inputs = args.paths;
  for (const std::string* rules : {&args.families_file, &args.fingerprints_file,
                                   &args.activity_rules_file, &args.thresholds_file}) {
    if (!rules->empty()) inputs.push_back(*rules);
  }
  return inputs;
}

std::vector<OutputPath> OutputsOf(const AnalyzeArgs& args) {
  return {{"--json", args.json_out},
          {"--html", args.html_out},
          {"--perfetto", args.perfetto_out},
          {"--sqlite", args.sqlite_out}};
}

// Every output the run writes may be written: the files (CheckOutputPaths)
// and the CSV directory. Checked before any work and again before writing.
Status CheckOutputs(const AnalyzeArgs& args) {
  TS_RETURN_IF_ERROR(CheckOutputPaths(OutputsOf(args), InputsOf(args)));
  if (args.csv_dir.empty()) return Status::Ok();
  std::error_code ec;
  const auto canonical = [&ec](const std::string& path) {
    return std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  };
  for (const OutputPath& out : OutputsOf(args)) {
    if (out.path.empty() || out.path == "-" || canonical(out.path) != canonical(args.csv_dir))
      continue;
    return UsageError(fmt::format(
        "--csv {} and {} {} name the same path\nhint: give the CSV tables a directory of their own",
        args.csv_dir, out.option, out.path));
  }
  return exports::CheckCsvDir(args.csv_dir, InputsOf(args));
}

bool WantsExports(const AnalyzeArgs& args) {
  return !args.perfetto_out.empty() || !args.sqlite_out.empty() || !args.csv_dir.empty();
}

// --rank N must name a rank of the job, as --step N must name a step.
// |ranks| sorted.
Status CheckFocusRank(const std::vector<int32_t>& ranks, std::optional<int32_t> focus_rank) {
  if (!focus_rank) return Status::Ok();
  if (std::find(ranks.begin(), ranks.end(), *focus_rank) != ranks.end()) return Status::Ok();
  return NotFound(fmt::format(
      "--rank {}: rank {} is not in the job (ranks present: {})\nhint: pick one of those with "
      "--rank, or omit --rank to show the lowest rank",
      *focus_rank, *focus_rank, ranks.empty() ? "none" : CompactRankList(ranks)));
}

// Wall time per stage for --timings (stderr, so --json - stays clean).
class StageClock {
 public:
  explicit StageClock(bool enabled) : enabled_(enabled), last_(std::chrono::steady_clock::now()) {}
  void Lap(const char* stage) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    WriteStderr(fmt::format("trainscope: {:<8} {:8.3f} s\n", stage,
                            std::chrono::duration<double>(now - last_).count()));
    last_ = now;
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_;
};

// The loaded inputs grouped into the runs to analyse, each with the
// results of its ranks (by discovery index), and the summaries of every run
// when there are several (for the warning and the report's runs section).
struct RunsToReport {
  std::vector<std::map<size_t, Result<analysis::RankResult>>> runs;
  std::vector<analysis::RunSummary> summaries;
};

// One run: the largest, or --run N. With --run all: every run, in input
// order.
Result<RunsToReport> SelectRuns(const std::map<size_t, analysis::RunIdentity>& identities,
                                std::map<size_t, Result<analysis::RankResult>>&& results,
                                const AnalyzeArgs& args) {
  std::vector<size_t> indices;
  std::vector<analysis::RunIdentity> inputs;
  for (const auto& [index, identity] : identities) {
    indices.push_back(index);
    inputs.push_back(identity);
  }
  TS_ASSIGN_OR_RETURN(analysis::RunSelection selection, analysis::SelectRun(inputs, args.run));
  RunsToReport out;
  out.summaries = selection.runs;
  auto take = [&](const std::vector<size_t>& members) {
    std::map<size_t, Result<analysis::RankResult>> run;
    for (size_t k : members) run.emplace(indices[k], std::move(results.at(indices[k])));
    out.runs.push_back(std::move(run));
  };
  if (selection.runs.empty()) {
    out.runs.push_back(std::move(results));  // one run: every input
  } else if (args.all_runs) {
    for (const analysis::RunGroup& group : analysis::GroupRuns(inputs)) take(group.members);
  } else {
    take(selection.kept);
  }
  return out;
}

std::string RunsWarning(const std::vector<analysis::RunSummary>& runs, bool all_runs) {
  std::string text = fmt::format(
      "trainscope: warning: the inputs are {} runs, not one job; they are not merged:\n",
      runs.size());
  for (const auto& run : runs) {
    text += fmt::format("  run {} (ranks {}){}\n", run.number, CompactRankList(run.ranks),
                        run.analysed ? (all_runs ? ": the largest" : ": analysed")
                                     : (all_runs ? ": " : ": not analysed, ") + run.why_apart);
  }
  text += all_runs ? "  each run is reported below, one after the other; to compare two runs: "
                     "trainscope compare BASE NEW\n"
                   : "  analyse another run with --run N, or every run with --run all (or analyze "
                     "that run's inputs alone); to compare two runs: trainscope compare BASE NEW\n";
  return TerminalSafe(text, /*keep_newlines=*/true);
}

// What every run's report shares.
struct RunReport {
  const AnalyzeArgs& args;
  const analysis::FamilyRules& rules;
  const analysis::AnalysisOptions& options;
  unsigned threads;
  const std::vector<model::InputIssue>& failed;   // inputs not loaded (every report's input health)
  const std::vector<model::InputIssue>& skipped;  // files not taken
  std::vector<analysis::RunSummary> runs;         // the runs section: empty with one report a run
  exports::JobExport* exports = nullptr;          // --perfetto / --sqlite, fed rank by rank
};

// The ranks of one run combined into its job (the run's inputs attached);
// a failure is returned for ReportRun to report.
Result<analysis::JobAnalysis> CombineRun(const RunReport& report,
                                         std::map<size_t, Result<analysis::RankResult>>&& results,
                                         Progress& progress, StageClock& clock) {
  const AnalyzeArgs& args = report.args;
  // Job order: by rank, discovery order among equal ranks (as LoadProfiles).
  Result<std::vector<analysis::RankResult>> ranks = RankResultsOf(std::move(results));
  if (!ranks.ok()) {
    progress.Done();
    return ranks.status();
  }
  std::vector<int32_t> rank_ids;
  rank_ids.reserve(ranks->size());
  for (const auto& rank : *ranks) rank_ids.push_back(rank.header.rank);
  Status focus = CheckFocusRank(rank_ids, args.focus_rank);
  if (!focus.ok()) {
    progress.Done();
    return focus;
  }
  auto job = analysis::Combine(std::move(*ranks),
                               analysis::JobContext{report.rules, report.options, report.threads});
  progress.Done();
  if (!job.ok()) return job.status();
  clock.Lap("combine");
  job->inputs = args.paths;
  job->runs = report.runs;
  job->failed_inputs = report.failed;
  job->skipped_inputs = report.skipped;
  return job;
}

// The files of --perfetto/--sqlite, --csv, --html and --json; whether a
// document went to stdout instead of the text summary is |document_on_stdout|.
Status WriteRunDocuments(const RunReport& report, const analysis::JobAnalysis& job,
                         const std::set<size_t>& kept, bool* document_on_stdout) {
  const AnalyzeArgs& args = report.args;
  // Checked again: the analysis may have taken minutes, and a file that
  // appeared there meanwhile is not ours to replace either.
  TS_RETURN_IF_ERROR(CheckOutputs(args));
  if (report.exports) TS_RETURN_IF_ERROR(report.exports->Finish(job, kept, kVersion));
  if (!args.csv_dir.empty()) TS_RETURN_IF_ERROR(exports::WriteCsvTables(args.csv_dir, job));
  // Files are replaced atomically; a document on stdout ('-') replaces the
  // text summary (cli::Run checks that stdout took it all).
  TS_RETURN_IF_ERROR(WriteDocument(
      args.html_out,
      [&] {
        report::HtmlReportOptions html_options;
        html_options.focus_rank = args.focus_rank;
        html_options.tool_version = kVersion;
        return report::RenderHtml(job, html_options);
      },
      document_on_stdout));
  return WriteStreamedDocument(
      args.json_out, [&](const DocumentSink& sink) { report::StreamJson(job, kVersion, sink); },
      document_on_stdout);
}

// The text summary on stdout, then where the files went.
void WriteRunSummary(const AnalyzeArgs& args, const analysis::JobAnalysis& job, StageClock& clock) {
  report::TextReportOptions text_options;
  text_options.focus_rank = args.focus_rank;
  text_options.color = UseColor(args.no_color);
  text_options.all_steps = args.all_steps;
  text_options.top = args.top;
  text_options.quiet = args.quiet;
  text_options.width = args.wide ? 0 : TerminalColumns();
  std::string text = report::RenderText(job, text_options);
  WriteStdout(text);
  clock.Lap("report");
  SayWhereDocumentsWent(args.json_out, args.html_out);
  if (!args.perfetto_out.empty())
    WriteStdout(fmt::format("\nAnnotated trace written to {}\n", TerminalSafe(args.perfetto_out)));
  if (!args.sqlite_out.empty())
    WriteStdout(fmt::format("\nSQLite database written to {}\n", TerminalSafe(args.sqlite_out)));
  if (!args.csv_dir.empty())
    WriteStdout(fmt::format("\nCSV tables written to {}\n", TerminalSafe(args.csv_dir)));
}

// Combines the ranks of one run into its job and writes its reports.
int ReportRun(const RunReport& report, std::map<size_t, Result<analysis::RankResult>>&& results,
              Progress& progress, StageClock& clock) {
  std::set<size_t> kept;  // discovery indices of this run's ranks: what the exports keep
  for (const auto& [index, result] : results) kept.insert(index);
  Result<analysis::JobAnalysis> job = CombineRun(report, std::move(results), progress, clock);
  if (!job.ok()) return ReportError(job.status());
  bool document_on_stdout = false;
  const Status written = WriteRunDocuments(report, *job, kept, &document_on_stdout);
  if (!written.ok()) return ReportError(written);
  if (document_on_stdout) {
    clock.Lap("report");
    return kExitSuccess;
  }
  WriteRunSummary(report.args, *job, clock);
  return kExitSuccess;
}

// Before anything is read: a run that cannot write its outputs, or would
// overwrite an input, must not start; nor one whose options ask for what
// the outputs cannot hold.
Status CheckAnalyzeOutputs(const AnalyzeArgs& args) {
  TS_RETURN_IF_ERROR(CheckOutputs(args));
  if (args.all_runs && (!args.json_out.empty() || !args.html_out.empty() || WantsExports(args))) {
    return InvalidInput(
        "--run all writes the text report of every run; --json, --html, --perfetto, --sqlite and "
        "--csv hold one run\nhint: write one document per run with --run N");
  }
  for (const auto& [option, path] :
       {std::pair<const char*, const std::string&>{"--perfetto", args.perfetto_out},
        {"--sqlite", args.sqlite_out}}) {
    if (path == "-") {
      return UsageError(fmt::format(
          "{} -: the export is written to a file, not to standard output\nhint: give a file path "
          "(or /dev/stdout for the trace)",
          option));
    }
  }
  return Status::Ok();
}

// Started by an MPI launcher: this build must have MPI, and the options
// must be ones the MPI mode serves.
Status CheckMpiMode(const AnalyzeArgs& args) {
  if (!MpiBuilt()) {
    return UsageError(
        "started by an MPI launcher, but this trainscope was built without MPI\nhint: install "
        "libopenmpi-dev and rebuild (docs/mpi.md), or run trainscope analyze without mpirun");
  }
  if (WantsExports(args)) {
    return UsageError(
        "--perfetto, --sqlite and --csv are not available in the MPI mode yet (each process "
        "sees only its own ranks' profiles)\nhint: run trainscope analyze without mpirun to "
        "export");
  }
  return Status::Ok();
}

}  // namespace

int RunAnalyze(const AnalyzeArgs& args) {
  const Status usable = CheckAnalyzeOutputs(args);
  if (!usable.ok()) return ReportError(usable);
  StageClock clock(args.timings);
  const unsigned threads = ClampThreads(args.threads);
  Result<LoadedRules> rules = LoadRuleFiles(
      {args.families_file, args.fingerprints_file, args.activity_rules_file, args.thresholds_file});
  if (!rules.ok()) return ReportError(rules.status());
  analysis::AnalysisOptions options = rules->Options(args.step);
  // The HTML report's interactive timeline draws every kernel of the step.
  options.timeline_kernels = !args.html_out.empty();

  // Under mpirun / srun: every process analyses its block of ranks and
  // process 0 gathers them and reports (docs/mpi.md).
  std::optional<MpiSession> mpi;
  if (MpiLaunched()) {
    const Status mpi_mode = CheckMpiMode(args);
    if (!mpi_mode.ok()) return ReportError(mpi_mode);
    mpi.emplace();
  }
  const bool root = !mpi || mpi->rank() == 0;
  Progress progress(root && Progress().enabled());
  progress.Update(
      fmt::format("trainscope: reading and analysing {} path(s){}...", args.paths.size(),
                  mpi ? fmt::format(" on {} MPI processes", mpi->size()) : std::string()));
  // Fails (exit 2) only when no rank loads or none has usable data; ranks
  // that failed and files not taken go to the input health of every report.
  // The exports see each rank's profile while it is alive (job_export.h).
  std::unique_ptr<exports::JobExport> job_export;
  RankSink sink;
  if (!args.perfetto_out.empty() || !args.sqlite_out.empty()) {
    Result<std::unique_ptr<exports::JobExport>> started =
        exports::JobExport::Start({args.perfetto_out, args.sqlite_out},
                                  analysis::CommOptionsOf(rules->Catalog().thresholds()));
    if (!started.ok()) return ReportError(started.status());
    job_export = std::move(started).value();
    sink = [&](size_t index, const model::RankProfile& profile,
               const analysis::RankResult& result) {
      job_export->OnRank(index, profile, result, rules->rules);
    };
  }
  Result<AnalysedInputs> streamed =
      mpi ? AnalyseInputsMpi(*mpi, args.paths, threads, *rules, options)
          : AnalyseInputs(args.paths, threads, *rules, options, {}, job_export ? &sink : nullptr,
                          &progress);
  // The other processes have sent their ranks: process 0 reports, errors too.
  if (!root) return kExitSuccess;
  if (!streamed.ok()) {
    progress.Done();
    return ReportError(streamed.status());
  }
  if (!streamed->failed.empty()) {
    // On stderr too: with --json - the report itself is not read by a person.
    progress.Done();
    WriteStderr(
        fmt::format("trainscope: warning: {} of {} ranks not loaded (listed in the input health)\n",
                    streamed->failed.size(), streamed->failed.size() + streamed->loaded));
  }
  clock.Lap("read+analyse");
  // Inputs that are not one run are never merged: the largest run is
  // analysed (or --run N, or every run with --run all), the others are named
  // (run_grouping.h).
  Result<RunsToReport> selected =
      SelectRuns(streamed->identities, std::move(streamed->results), args);
  if (!selected.ok()) {
    progress.Done();
    return ReportError(selected.status());
  }
  const std::vector<analysis::RunSummary>& summaries = selected->summaries;
  if (!summaries.empty()) {
    progress.Done();
    WriteStderr(RunsWarning(summaries, args.all_runs));
  }
  const size_t count = selected->runs.size();
  for (size_t r = 0; r < count; ++r) {
    RunReport report{args, rules->rules,    options, threads, streamed->failed, streamed->skipped,
                     {},   job_export.get()};
    if (count > 1) {
      // Every run on its own: the list of runs was said once, above.
      const analysis::RunSummary& run = summaries[r];
      WriteStdout(TerminalSafe(
          fmt::format("{}Run {} of {}: ranks {} from {}\n\n", r > 0 ? "\n" : "", run.number, count,
                      CompactRankList(run.ranks), fmt::join(run.sources, ", ")),
          /*keep_newlines=*/true));
    } else {
      report.runs = summaries;
    }
    const int code = ReportRun(report, std::move(selected->runs[r]), progress, clock);
    if (code != kExitSuccess) return code;
  }
  return kExitSuccess;
}

}  // namespace trainscope::cli
