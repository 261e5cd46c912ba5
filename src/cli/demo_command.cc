#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/analyze_pipeline.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/status_exit.h"
#include "synth/synth.h"

namespace trainscope::cli {

CommandRunner RegisterDemo(CLI::App& app) {
  struct Args {
    std::string out = "trainscope-demo";
    int ranks = 4;
    bool fused = false;
    std::string json_out;
    std::string html_out;
  };
  auto args = std::make_shared<Args>();
  app.add_option("--out,-o", args->out, "Where to write the demo job (replaced if it exists)")
      ->capture_default_str();
  app.add_option("--ranks", args->ranks, "Ranks in the demo job")->capture_default_str();
  app.add_flag("--fused", args->fused, "Generate the optimised run (all remedies) instead of the baseline");
  app.add_option("--json", args->json_out, "Also write the JSON result to FILE ('-' for stdout)");
  app.add_option("--html", args->html_out, "Where to write the HTML report (default: <out>/report.html)");
  return [args] {
    synth::SynthOptions options;
    options.ranks = args->ranks;
    options.name = args->fused ? "demo_fused" : "demo_baseline";
    // trace_view.json with Python frames: the report attributes each unfused
    // chain to its source line, as on a real with_stack=True profile.
    options.trace_view = true;
    options.with_stack = true;
    if (args->fused) options = synth::AllFused(options);
    std::error_code ec;
    std::filesystem::remove_all(args->out, ec);
    Status status = synth::WriteSynthJob(options, args->out);
    if (!status.ok()) return ReportError(status);
    fmt::print("Demo job ({}, {} ranks, seed {}) written to {}\n\n",
               args->fused ? "all remedies applied" : "unfused baseline", options.ranks, options.seed, args->out);
    std::fflush(stdout);
    AnalyzeArgs analyze;
    analyze.paths = {args->out};
    analyze.json_out = args->json_out;
    analyze.html_out = args->html_out.empty() ? args->out + "/report.html" : args->html_out;
    return RunAnalyze(analyze);
  };
}

}  // namespace trainscope::cli
