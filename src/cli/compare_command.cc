// `trainscope compare BASE NEW`: both sides analysed by the same pipeline
// with the same rules and step rule, then compared (analysis/compare).
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare/run_comparison.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/job_loader.h"
#include "cli/output_paths.h"
#include "cli/report_output.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/safe_text.h"
#include "report/compare_report.h"

namespace trainscope::cli {
namespace {

struct CompareArgs {
  std::string base;
  std::string next;
  std::string json_out;
  std::string html_out;
  std::optional<int32_t> step;
  std::optional<int32_t> base_step;
  std::optional<int32_t> next_step;
  std::optional<int32_t> rank;
  RuleFiles rule_files;
  unsigned threads = 0;
  bool no_color = false;
  // --gate [RULES]: |gate| is set when given, to "" without a list.
  std::optional<std::string> gate;
  std::string gate_text;
};

// The exit code of a gate's verdict (docs/compare.md "Regression gate").
int GateExitCode(const analysis::GateResult& gate) {
  switch (gate.verdict) {
    case analysis::GateVerdict::kRegression:
      return kExitRegression;
    case analysis::GateVerdict::kCannotConclude:
      return kExitGateUndecided;
    case analysis::GateVerdict::kPass:
      break;
  }
  return kExitSuccess;
}

// Every operator of the step, not the top 15: appeared / disappeared ones
// are often small.
constexpr size_t kAllOperators = 1'000'000;

// One side: its inputs analysed and combined into a job, the largest run
// when they hold several (with a warning naming the others).
Result<analysis::JobAnalysis> AnalyseSide(const std::string& path, const char* side,
                                          std::optional<int32_t> step, const LoadedRules& rules,
                                          unsigned threads) {
  analysis::AnalysisOptions options = rules.Options(step);
  options.distribution.top_operators = kAllOperators;
  TS_ASSIGN_OR_RETURN(AnalysedInputs inputs, AnalyseInputs({path}, threads, rules, options));
  std::vector<size_t> indices;
  std::vector<analysis::RunIdentity> identities;
  for (const auto& [index, identity] : inputs.identities) {
    indices.push_back(index);
    identities.push_back(identity);
  }
  const analysis::RunSelection selection = analysis::SelectRun(identities);
  std::map<size_t, Result<analysis::RankResult>> run;
  if (selection.runs.empty()) {
    run = std::move(inputs.results);
  } else {
    for (size_t k : selection.kept)
      run.emplace(indices[k], std::move(inputs.results.at(indices[k])));
    WriteStderr(TerminalSafe(
        fmt::format("trainscope: warning: {} {} holds {} runs; comparing the largest (ranks "
                    "{}); give that run's inputs alone to compare another\n",
                    side, path, selection.runs.size(), selection.kept.size()),
        /*keep_newlines=*/true));
  }
  TS_ASSIGN_OR_RETURN(std::vector<analysis::RankResult> ranks, RankResultsOf(std::move(run)));
  TS_ASSIGN_OR_RETURN(
      analysis::JobAnalysis job,
      analysis::Combine(std::move(ranks), analysis::JobContext{rules.rules, options, threads}));
  job.inputs = {path};
  job.runs = selection.runs;
  job.failed_inputs = std::move(inputs.failed);
  job.skipped_inputs = std::move(inputs.skipped);
  return job;
}

// BASE and NEW must be two runs: the same file or directory twice (by
// inode, whatever the spelling) would compare a run with itself.
Status CheckTwoRuns(const std::string& base, const std::string& next) {
  struct stat b {
  }, n{};
  if (::stat(base.c_str(), &b) != 0 || ::stat(next.c_str(), &n) != 0) return Status::Ok();
  if (b.st_dev != n.st_dev || b.st_ino != n.st_ino) return Status::Ok();
  return UsageError(fmt::format(
      "BASE {} and NEW {} are the same {}: a run compared with itself shows no change\nhint: "
      "give the run before the change and the run after it",
      base, next, S_ISDIR(b.st_mode) ? "directory" : "file"));
}

int RunCompare(const CompareArgs& args) {
  std::vector<std::string> inputs = {args.base, args.next};
  for (const std::string* f :
       {&args.rule_files.families_file, &args.rule_files.fingerprints_file,
        &args.rule_files.activity_rules_file, &args.rule_files.thresholds_file}) {
    if (!f->empty()) inputs.push_back(*f);
  }
  const std::vector<OutputPath> outputs = {{"--json", args.json_out}, {"--html", args.html_out}};
  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  if (Status ok = CheckTwoRuns(args.base, args.next); !ok.ok()) return ReportError(ok);
  if (args.json_out == "-" && args.html_out == "-") {
    return ReportError(
        UsageError("--json - and --html - both on stdout\nhint: write one to a file"));
  }
  std::vector<analysis::GateRule> gate_rules;
  if (args.gate) {
    auto parsed = analysis::ParseGateRules(*args.gate);
    if (!parsed.ok()) return ReportError(parsed.status());
    gate_rules = std::move(*parsed);
  }
  Result<LoadedRules> rules = LoadRuleFiles(args.rule_files);
  if (!rules.ok()) return ReportError(rules.status());
  const unsigned threads = ClampThreads(args.threads);
  Progress progress;
  progress.Update("trainscope: analysing BASE...");
  auto base =
      AnalyseSide(args.base, "BASE", args.base_step ? args.base_step : args.step, *rules, threads);
  if (!base.ok()) {
    progress.Done();
    return ReportError(base.status());
  }
  progress.Update("trainscope: analysing NEW...");
  auto next =
      AnalyseSide(args.next, "NEW", args.next_step ? args.next_step : args.step, *rules, threads);
  progress.Done();
  if (!next.ok()) return ReportError(next.status());

  analysis::CompareOptions options;
  options.rank = args.rank;
  options.catalog = &rules->Catalog();
  if (rules->fingerprints) options.fingerprints = &*rules->fingerprints;
  auto comparison = analysis::CompareRuns(*base, *next, options);
  if (!comparison.ok()) return ReportError(comparison.status());
  int exit_code = kExitSuccess;
  if (args.gate) {
    analysis::GateOptions gate_options;
    if (comparison->workload.verdict == analysis::WorkloadVerdict::kDifferent) {
      gate_options.not_comparable = "BASE and NEW are different workloads (see workload)";
    }
    auto gate = analysis::RunGate(*base, *next, gate_rules, gate_options);
    if (!gate.ok()) return ReportError(gate.status());
    comparison->gate = std::move(*gate);
    exit_code = GateExitCode(*comparison->gate);
  }

  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  bool on_stdout = false;
  const Status html = WriteDocument(
      args.html_out, [&] { return report::RenderCompareHtml(*comparison, kVersion); }, &on_stdout);
  if (!html.ok()) return ReportError(html);
  const Status json = WriteDocument(
      args.json_out, [&] { return report::RenderCompareJson(*comparison, kVersion); }, &on_stdout);
  if (!json.ok()) return ReportError(json);
  if (on_stdout) return exit_code;
  report::CompareTextOptions text;
  text.color = UseColor(args.no_color);
  WriteStdout(report::RenderCompareText(*comparison, text));
  SayWhereDocumentsWent(args.json_out, args.html_out);
  return exit_code;
}

}  // namespace

CommandRunner RegisterCompare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  app.add_option("base", args->base, "The run before the change: any input `analyze` takes")
      ->required();
  app.add_option("new", args->next, "The run after the change: any input `analyze` takes")
      ->required();
  app.add_option("--json", args->json_out,
                 "Write the comparison as JSON (schema trainscope.compare/2, docs/json-schema.md) "
                 "to FILE, or '-' for stdout")
      ->type_name("FILE|-");
  app.add_option("--html", args->html_out, "Write a self-contained HTML comparison to FILE")
      ->type_name("FILE|-");
  app.add_option("--step", args->step, "Compare step N on both sides (default: the step rule)");
  app.add_option("--base-step", args->base_step, "Step of BASE to compare (overrides --step)");
  app.add_option("--new-step", args->next_step, "Step of NEW to compare (overrides --step)");
  app.add_option("--rank", args->rank,
                 "Rank to compare on both sides (default: the lowest rank with device activity)");
  app.add_option("--families", args->rule_files.families_file,
                 "Extra kernel family rules (same format as data/families.tsv), tried first");
  app.add_option("--fingerprints", args->rule_files.fingerprints_file,
                 "Extra fingerprints (same format as data/fingerprints.tsv), tried first");
  app.add_option("--activity-rules", args->rule_files.activity_rules_file,
                 "Extra rules sorting GPU trace kernels (docs/timelines.md), tried first")
      ->type_name("FILE");
  app.add_option("--thresholds", args->rule_files.thresholds_file,
                 "Override thresholds (as in data/thresholds.tsv), for both sides")
      ->type_name("FILE");
  app.add_option("--threads", args->threads, "Worker threads (default: all cores)");
  app.add_flag("--no-color", args->no_color, "Plain text even on a terminal");
  CLI::Option* gate =
      app.add_option("--gate", args->gate_text,
                     "Regression gate for CI (docs/compare.md): exit 3 when a rule finds a "
                     "regression beyond run-to-run noise, 4 when a rule cannot conclude (too few "
                     "steps), else 0; RULES like step_time:+3%,op:MatMulV2:+10% (default: "
                     "step_time:+3%,exposed_comm:+5%,op:*:+10%)")
          ->expected(0, 1)
          ->type_name("[RULES]");
  return [args, gate] {
    if (gate->count() > 0) args->gate = args->gate_text;
    return RunCompare(*args);
  };
}

}  // namespace trainscope::cli
