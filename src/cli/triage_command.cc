// `trainscope triage PATH...`: when a job hangs or dies, which rank, which
// collective, which link and what happened first (docs/triage.md). Files
// and directories are read (formats/triage), triaged (analysis/triage) and
// reported as text, JSON (trainscope.triage/1) and HTML.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "analysis/triage/triage.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/output_paths.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "core/atomic_write.h"
#include "core/safe_text.h"
#include "formats/triage/failure_log_reader.h"
#include "report/triage_report.h"

namespace trainscope::cli {
namespace {

struct TriageArgs {
  std::vector<std::string> paths;
  std::string json_out;
  std::string html_out;
  unsigned threads = 0;
};

int RunTriage(const TriageArgs& args) {
  const std::vector<OutputPath> outputs = {{"--json", args.json_out}, {"--html", args.html_out}};
  if (Status ok = CheckOutputPaths(outputs, args.paths); !ok.ok()) return ReportError(ok);
  const model::TriageInputs inputs = formats::LoadTriageInputs(args.paths, args.threads);
  report::TriageInputsSummary summary;
  summary.files_seen = inputs.files_seen;
  summary.not_read = inputs.not_read;
  if (inputs.dumps.empty() && inputs.logs.empty() && inputs.training.empty()) {
    std::string list;
    for (const model::NotRead& n : inputs.not_read)
      list += fmt::format("\n  {}: {}", n.path, n.reason);
    WriteStderr(TerminalSafe(
        fmt::format(
            "trainscope: error: nothing readable: no flight-recorder dump and no log with a "
            "failure, rank, HCCL or training line among {} file(s){}\nhint: give the job's "
            "flight-recorder dumps (JSON or pickled), its NCCL/c10d logs, its training logs, or "
            "Ascend plogs (docs/triage.md)\n",
            inputs.files_seen, list),
        /*keep_newlines=*/true));
    return kExitUnusableInput;
  }
  const analysis::TriageReport report = analysis::Triage(inputs);
  if (!args.html_out.empty()) {
    if (Status ok =
            WriteFileAtomically(args.html_out, report::RenderTriageHtml(report, summary, kVersion));
        !ok.ok()) {
      return ReportError(ok);
    }
  }
  if (args.json_out == "-") {
    WriteStdout(report::RenderTriageJson(report, summary, kVersion));
    return kExitSuccess;
  }
  if (!args.json_out.empty()) {
    if (Status ok =
            WriteFileAtomically(args.json_out, report::RenderTriageJson(report, summary, kVersion));
        !ok.ok()) {
      return ReportError(ok);
    }
  }
  WriteStdout(TerminalSafe(report::RenderTriageText(report, summary), /*keep_newlines=*/true));
  if (!args.html_out.empty()) {
    WriteStdout(fmt::format("\nHTML written to {}\n", TerminalSafe(args.html_out)));
  }
  if (!args.json_out.empty()) {
    WriteStdout(fmt::format("\nJSON written to {}\n", TerminalSafe(args.json_out)));
  }
  return kExitSuccess;
}

}  // namespace

CommandRunner RegisterTriage(CLI::App& app) {
  auto args = std::make_shared<TriageArgs>();
  app.add_option("paths", args->paths,
                 "What the failed job left: flight-recorder dumps, NCCL/c10d logs, training logs, "
                 "torchrun error.json, Slurm output, Ascend plogs and device logs; files or "
                 "directories (walked at any depth)")
      ->required();
  app.add_option("--json", args->json_out,
                 "Write the triage as JSON (schema trainscope.triage/1, docs/json-schema.md) to "
                 "FILE, or '-' for stdout")
      ->type_name("FILE|-");
  app.add_option("--html", args->html_out,
                 "Write an HTML page with a per-rank timeline of the last events and first errors")
      ->type_name("FILE");
  app.add_option("--threads", args->threads, "Files read at once (default: all cores)");
  return [args] { return RunTriage(*args); };
}

}  // namespace trainscope::cli
