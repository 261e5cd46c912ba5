// `trainscope health LOG...`: training health from training logs
// (docs/health.md): each log read (formats/log), analysed on its own
// (analysis/health) and reported as text, JSON (trainscope.health/1).
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/health/training_health.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/job_loader.h"
#include "cli/output_paths.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "core/atomic_write.h"
#include "core/parallel.h"
#include "core/safe_text.h"
#include "formats/log/training_log_reader.h"
#include "report/health_report.h"

namespace trainscope::cli {
namespace {

struct HealthArgs {
  std::vector<std::string> logs;
  std::string json_out;
  std::string thresholds_file;
  unsigned threads = 0;
};

int RunHealth(const HealthArgs& args) {
  std::vector<std::string> inputs = args.logs;
  if (!args.thresholds_file.empty()) inputs.push_back(args.thresholds_file);
  const std::vector<OutputPath> outputs = {{"--json", args.json_out}};
  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  RuleFiles files;
  files.thresholds_file = args.thresholds_file;
  Result<LoadedRules> rules = LoadRuleFiles(files);
  if (!rules.ok()) return ReportError(rules.status());
  const analysis::FindingCatalog& catalog = rules->Catalog();

  // One log per worker (many ranks' logs at once); each is read and
  // analysed on its own, then reported in the order given.
  std::vector<std::optional<Result<report::HealthRun>>> done(args.logs.size());
  ParallelFor(args.logs.size(), ClampThreads(args.threads), [&](size_t i) {
    Result<formats::ReadTrainingLog> read = formats::ReadTrainingLogFile(args.logs[i]);
    if (!read.ok()) {
      done[i].emplace(read.status());
      return;
    }
    report::HealthRun run;
    run.health = analysis::AnalyzeTrainingLog(read->log, catalog.thresholds());
    analysis::RenderFindings(catalog, &run.health.findings, model::Platform::kUnknown);
    run.ledger = std::move(read->ledger);
    run.bytes = read->log.bytes;
    run.warning = std::move(read->warning);
    done[i].emplace(std::move(run));
  });
  std::vector<report::HealthRun> runs;
  for (std::optional<Result<report::HealthRun>>& one : done) {
    if (!one->ok()) return ReportError(one->status());
    if (!(*one)->warning.empty()) {
      WriteStderr(TerminalSafe(fmt::format("trainscope: warning: {}\n", (*one)->warning),
                               /*keep_newlines=*/true));
    }
    runs.push_back(std::move(**one));
  }

  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  if (args.json_out == "-") {
    WriteStdout(report::RenderHealthJson(runs, kVersion));
    return kExitSuccess;
  }
  if (!args.json_out.empty()) {
    if (Status ok = WriteFileAtomically(args.json_out, report::RenderHealthJson(runs, kVersion));
        !ok.ok()) {
      return ReportError(ok);
    }
  }
  WriteStdout(report::RenderHealthText(runs));
  if (!args.json_out.empty())
    WriteStdout(fmt::format("\nJSON written to {}\n", TerminalSafe(args.json_out)));
  return kExitSuccess;
}

}  // namespace

CommandRunner RegisterHealth(CLI::App& app) {
  auto args = std::make_shared<HealthArgs>();
  app.add_option("logs", args->logs,
                 "Training logs (Megatron-LM / MindSpeed-LLM, TorchTitan, Hugging Face Trainer, "
                 "key=value or JSON lines; plain or .gz), one run each")
      ->required();
  app.add_option("--json", args->json_out,
                 "Write the health as JSON (schema trainscope.health/1, docs/json-schema.md) to "
                 "FILE, or '-' for stdout")
      ->type_name("FILE|-");
  app.add_option("--thresholds", args->thresholds_file,
                 "Override thresholds (as in data/thresholds.tsv)")
      ->type_name("FILE");
  app.add_option("--threads", args->threads, "Logs read at once (default: all cores)");
  return [args] { return RunHealth(*args); };
}

}  // namespace trainscope::cli
