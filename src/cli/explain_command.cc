// `trainscope explain [ID] [--thresholds FILE]`: what a finding id means,
// from the catalogue (with the thresholds FILE would put in force).
#include <fmt/format.h>

#include <memory>

#include "analysis/common/findings_catalog.h"
#include "analysis/motifs/fingerprint_library.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "core/read_file.h"
#include "report/explain_report.h"

namespace trainscope::cli {
namespace {

struct ExplainArgs {
  std::string id;
  std::string thresholds_file;
};

int RunExplain(const ExplainArgs& args) {
  analysis::FindingCatalog catalog = analysis::FindingCatalog::Builtin();
  if (!args.thresholds_file.empty()) {
    auto text = ReadSmallFile(args.thresholds_file);
    if (!text.ok()) return ReportError(text.status());
    Status s = catalog.OverrideThresholds(*text, args.thresholds_file);
    if (!s.ok()) return ReportError(s);
  }
  const auto& library = analysis::FingerprintLibrary::Builtin();
  const std::string list = report::ListFindingIds(catalog, library);
  if (args.id.empty()) {
    WriteStdout(list);
    return kExitSuccess;
  }
  const auto entry = report::ExplainFinding(catalog, library, args.id);
  if (!entry) {
    return ReportError(
        UsageError(fmt::format("explain: unknown finding id '{}'\n{}", args.id, list)));
  }
  WriteStdout(*entry);
  return kExitSuccess;
}

}  // namespace

CommandRunner RegisterExplain(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  app.add_option("id", args->id, "Finding id (e.g. exposed-communication); none: list every id");
  app.add_option("--thresholds", args->thresholds_file,
                 "Show the thresholds this file (as for analyze --thresholds) puts in force")
      ->type_name("FILE");
  return [args] { return RunExplain(*args); };
}

}  // namespace trainscope::cli
