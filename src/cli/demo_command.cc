#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/analyze_pipeline.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/demo_dir.h"
#include "cli/output_paths.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "synth/manifest.h"
#include "synth/synth.h"

namespace trainscope::cli {
namespace {

namespace fs = std::filesystem;

// The directories `mkdir -p |dir|` would create, deepest first.
std::vector<fs::path> MissingDirs(const fs::path& dir) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = dir; !p.empty() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  return missing;
}

// Records the reports demo wrote inside its job directory in the manifest,
// so the next demo run may replace them too.
void RecordReports(const std::string& dir, const std::vector<std::string>& outputs) {
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) return;
  std::vector<synth::ManifestEntry> entries;
  for (const std::string& out : outputs) {
    if (out.empty() || out == "-") continue;
    struct stat st {};
    if (::lstat(out.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const fs::path relative = fs::canonical(out, ec).lexically_relative(root);
    if (ec || relative.empty() || *relative.begin() == "..") continue;
    entries.push_back({'f', relative.generic_string()});
  }
  if (!entries.empty()) (void)synth::AppendToManifest(dir, entries);
}

}  // namespace

CommandRunner RegisterDemo(CLI::App& app) {
  struct Args {
    std::string out = "trainscope-demo";
    int ranks = 4;
    bool fused = false;
    std::string json_out;
    std::string html_out;
    unsigned threads = 0;
  };
  auto args = std::make_shared<Args>();
  app.add_option("--out,-o", args->out,
                 "Where to write the demo job: a new or empty directory, or one holding an earlier "
                 "demo job "
                 "(replaced; anything else there is refused, never deleted)")
      ->capture_default_str();
  app.add_option("--ranks", args->ranks, "Ranks in the demo job")->capture_default_str();
  app.add_flag("--fused", args->fused,
               "Generate the optimised run (all remedies) instead of the baseline");
  app.add_option("--json", args->json_out, "Also write the JSON result to FILE ('-' for stdout)");
  app.add_option("--html", args->html_out,
                 "Where to write the HTML report ('-' for stdout; default: <out>/report.html)");
  app.add_option("--threads", args->threads,
                 "Worker threads for the analysis (default: all cores)");
  return [args] {
    synth::SynthOptions options;
    options.ranks = args->ranks;
    options.name = args->fused ? "demo_fused" : "demo_baseline";
    // trace_view.json with Python frames: the report attributes each unfused
    // chain to its source line, as on a real with_stack=True profile.
    options.trace_view = true;
    options.with_stack = true;
    if (args->fused) options = synth::AllFused(options);
    AnalyzeArgs analyze;
    analyze.paths = {args->out};
    analyze.json_out = args->json_out;
    analyze.threads = args->threads;
    analyze.html_out = args->html_out.empty() ? args->out + "/report.html" : args->html_out;

    // Everything is checked before the first change on disk: the options,
    // what is in --out, and where the reports go.
    Status status = synth::ValidateSynthOptions(options);
    if (!status.ok()) return ReportError(status);
    auto plan = InspectDemoDir(args->out);
    if (!plan.ok()) return ReportError(plan.status());
    const std::vector<fs::path> created = MissingDirs(args->out);
    std::error_code ec;
    if (!created.empty() && !fs::create_directories(args->out, ec) && ec) {
      return ReportError(UsageError(
          fmt::format("demo --out {}: cannot create it: {}\nhint: choose another directory",
                      args->out, ec.message())));
    }
    status =
        CheckOutputPaths({{"--json", analyze.json_out}, {"--html", analyze.html_out}}, {args->out});
    if (!status.ok()) {
      for (const fs::path& dir : created) ::rmdir(dir.c_str());  // only ours, only if still empty
      return ReportError(status);
    }
    status = ClearDemoDir(*plan);
    if (status.ok()) status = synth::WriteSynthJob(options, args->out);
    if (!status.ok()) return ReportError(status);

    // With a document on stdout, the banner goes to stderr to keep it clean.
    const std::string banner =
        fmt::format("Demo job ({}, {} ranks, seed {}) written to {}\n\n",
                    args->fused ? "all remedies applied" : "unfused baseline", options.ranks,
                    options.seed, args->out);
    if (analyze.json_out == "-" || analyze.html_out == "-") {
      WriteStderr(banner);
    } else {
      WriteStdout(banner);
      std::fflush(stdout);
    }
    const int code = RunAnalyze(analyze);
    RecordReports(args->out, {analyze.json_out, analyze.html_out});
    return code;
  };
}

}  // namespace trainscope::cli
