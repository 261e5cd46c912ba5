// The analyze pipeline shared by `analyze` and `demo`:
// formats (load) -> analysis -> report (text / JSON).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trainscope::cli {

struct AnalyzeArgs {
  std::vector<std::string> paths;
  std::string json_out;             // "" = none, "-" = stdout (replaces the text summary)
  std::string html_out;             // "" = none, "-" = stdout (replaces the text summary)
  std::string perfetto_out;         // "" = none: the annotated Chrome trace (docs/exports.md)
  std::string sqlite_out;           // "" = none: the SQLite database
  std::string csv_dir;              // "" = none: the report's tables as CSV files in this directory
  bool all_steps = false;           // --steps: every captured step in the text summary
  size_t top = 0;                   // --top N: findings shown in the text summary (0: all)
  bool quiet = false;               // --quiet: the findings alone
  bool wide = false;                // --wide: lines kept whole even on a terminal
  std::string families_file;        // extra family rules, tried before the built-in ones
  std::string fingerprints_file;    // extra fingerprints, tried before the built-in ones
  std::string activity_rules_file;  // extra compute/communication name rules for GPU traces
  std::string thresholds_file;      // overrides of data/thresholds.tsv
  std::optional<int32_t> step;
  std::optional<int32_t> focus_rank;
  // The run to analyse when the inputs form several (1-based, input order);
  // nullopt: the one with the most ranks, or every run with all_runs.
  std::optional<int32_t> run;
  bool all_runs = false;  // --run all: the text report of every run, one after the other
  // 0 = the default (TRAINSCOPE_THREADS, else all cores); clamped to the
  // machine's hardware threads (ClampThreads), so --threads 40000 runs.
  unsigned threads = 0;
  bool no_color = false;
  bool timings = false;  // wall time of each stage on stderr
};

int RunAnalyze(const AnalyzeArgs& args);

}  // namespace trainscope::cli
