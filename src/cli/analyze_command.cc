#include <charconv>
#include <memory>
#include <string>
#include <system_error>

#include "cli/analyze_pipeline.h"
#include "cli/commands.h"
#include "cli/option_checks.h"

namespace trainscope::cli {

CommandRunner RegisterAnalyze(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  app.add_option(
         "paths", args->paths,
         "Job directories, *_ascend_pt rank directories or ASCEND_PROFILER_OUTPUT directories")
      ->required();
  app.add_option("--json", args->json_out,
                 "Write the versioned JSON result (docs/json-schema.md) to FILE, or '-' for stdout")
      ->type_name("FILE|-");
  app.add_option("--html", args->html_out,
                 "Write a self-contained HTML report with pictures to FILE")
      ->type_name("FILE");
  app.add_option(
         "--perfetto", args->perfetto_out,
         "Write every device event of every captured step, with trainscope's motifs, "
         "findings, idle gaps and pseudo-overlap windows as extra tracks, as a Chrome trace "
         "JSON (Perfetto UI, chrome://tracing, MindStudio Insight) to FILE (docs/exports.md)")
      ->type_name("FILE");
  app.add_option("--sqlite", args->sqlite_out,
                 "Write kernels, host ops, steps, collectives, motifs, findings and budgets as an "
                 "SQLite database to FILE (docs/exports.md)")
      ->type_name("FILE");
  app.add_option("--csv", args->csv_dir,
                 "Write the report's tables (steps, families, operators, collectives, findings, "
                 "budgets) as CSV files into DIR, created if absent (docs/exports.md)")
      ->type_name("DIR");
  app.add_flag("--steps", args->all_steps,
               "Show the table of every captured step (time, kernels, budget, variation across "
               "steps) in the terminal summary");
  app.add_option("--step", args->step,
                 "Analyse step N in depth (default: skip warm-up, take the median-span step)");
  app.add_option("--rank", args->focus_rank, "Rank to show in depth in the terminal summary");
  app.add_option_function<std::string>(
         "--run",
         [args](const std::string& value) {
           if (value == "all") {
             args->all_runs = true;
             return;
           }
           int32_t number = 0;
           const char* end = value.data() + value.size();
           const auto [ptr, ec] = std::from_chars(value.data(), end, number);
           if (ec != std::errc() || ptr != end || number < 1) {
             throw CLI::ValidationError("--run", "expected a run number (1, 2, ...) or 'all'");
           }
           args->run = number;
         },
         "When the inputs form several runs (different captures or jobs), analyse run N "
         "(1-based, as listed) instead of the one with the most ranks, or with 'all' every run "
         "(text report only)")
      ->type_name("N|all");
  app.add_option("--families", args->families_file,
                 "Extra kernel family rules (same format as data/families.tsv), tried first");
  app.add_option(
      "--fingerprints", args->fingerprints_file,
      "Extra fingerprints (same format as data/fingerprints.tsv), tried before the built-in ones");
  app.add_option("--activity-rules", args->activity_rules_file,
                 "Extra rules sorting GPU trace kernels into compute/communication/memcpy/memset "
                 "(lines: KIND MATCH PATTERN, docs/timelines.md), tried before the built-in ones")
      ->type_name("FILE");
  app.add_option("--thresholds", args->thresholds_file,
                 "Override detector thresholds (rows: key value, as in data/thresholds.tsv; "
                 "`trainscope explain` shows them)")
      ->type_name("FILE");
  app.add_option("--threads", args->threads, "Worker threads (default: all cores)");
  app.add_flag("--no-color", args->no_color, "Plain text even on a terminal");
  app.add_option("--top", args->top,
                 "Findings shown in the terminal summary, largest gain first (default: all)")
      ->check(WholeNumber(1, 1'000'000'000));
  app.add_flag("--quiet", args->quiet, "Terminal summary: the findings alone");
  app.add_flag("--wide", args->wide,
               "Keep every line whole (on a terminal, findings wrap to its width)");
  app.add_flag("--timings", args->timings,
               "Print the wall time of each stage (read, analyse, report) on stderr");
  return [args] { return RunAnalyze(*args); };
}

}  // namespace trainscope::cli
