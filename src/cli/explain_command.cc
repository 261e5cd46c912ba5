// `trainscope explain [ID]`: what a finding id means, from the catalogue.
#include <fmt/format.h>

#include <memory>

#include "analysis/findings_catalog.h"
#include "analysis/fingerprint_library.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "report/explain_report.h"

namespace trainscope::cli {

CommandRunner RegisterExplain(CLI::App& app) {
  auto id = std::make_shared<std::string>();
  app.add_option("id", *id, "Finding id (e.g. exposed-communication); none: list every id");
  return [id]() -> int {
    const auto& catalog = analysis::FindingCatalog::Builtin();
    const auto& library = analysis::FingerprintLibrary::Builtin();
    const std::string list = report::ListFindingIds(catalog, library);
    if (id->empty()) {
      WriteStdout(list);
      return kExitSuccess;
    }
    const auto entry = report::ExplainFinding(catalog, library, *id);
    if (!entry) {
      return ReportError(
          UsageError(fmt::format("explain: unknown finding id '{}'\n{}", *id, list)));
    }
    WriteStdout(*entry);
    return kExitSuccess;
  };
}

}  // namespace trainscope::cli
