#include "cli/app.h"

#include <fmt/format.h>

#include <exception>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/stdout_writer.h"
#include "cli/suggest.h"
#include "core/safe_text.h"

namespace trainscope::cli {

namespace {

// What the user may have meant by the first argument CLI11 did not expect:
// a flag of the command they chose, or a command when none was chosen.
std::string DidYouMean(const CLI::App& app, const CLI::App* chosen,
                       const std::vector<std::string>& unknown) {
  if (unknown.empty()) return "";
  std::string typed = unknown.front();
  std::vector<std::string> candidates;
  if (typed.starts_with("-")) {
    typed = typed.substr(0, typed.find('='));
    const CLI::App& owner = chosen != nullptr ? *chosen : app;
    for (const CLI::Option* option : owner.get_options()) {
      for (const std::string& name : option->get_lnames()) candidates.push_back("--" + name);
    }
  } else if (chosen == nullptr) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      candidates.push_back(sub->get_name());
      for (const std::string& alias : sub->get_aliases()) candidates.push_back(alias);
    }
  }
  const std::optional<std::string> nearest = NearestWord(typed, candidates);
  if (!nearest || *nearest == typed) return "";
  return fmt::format("hint: did you mean '{}'? ({} --help lists them all)\n", *nearest,
                     chosen != nullptr ? "trainscope " + chosen->get_name() : "trainscope");
}

int RunCommand(const std::vector<std::string>& args) {
  CLI::App app{
      "trainscope: diagnose large-model training profiles (Ascend torch_npu, PyTorch/Kineto)",
      "trainscope"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);

  struct Entry {
    CLI::App* sub;
    CommandRunner run;
  };
  std::vector<Entry> commands;
  auto add = [&](const char* name, const char* help, CommandRunner (*reg)(CLI::App&)) {
    CLI::App* sub = app.add_subcommand(name, help);
    commands.push_back({sub, reg(*sub)});
  };
  add("analyze", "Analyse profiles: job dirs, *_ascend_pt rank dirs or ASCEND_PROFILER_OUTPUT dirs",
      &RegisterAnalyze);
  commands.back().sub->alias("analyse");
  add("compare",
      "Compare two runs (before / after a change) with the same yardstick: deltas, operators and "
      "findings gone or new, predicted vs measured gain",
      &RegisterCompare);
  add("health",
      "Training health from training logs: step time, throughput, loss and grad norm; NaN, loss "
      "spikes, grad explosions, hangs, OOM and collective timeouts, with the step",
      &RegisterHealth);
  add("triage",
      "When a job hangs or dies: the stuck collective and the ranks that never reached it, the "
      "first error in time, the link chain between devices, how each rank ended",
      &RegisterTriage);
  add("accuracy",
      "Accuracy alignment of two tensor dumps (msprobe dump.json, .npy/.npz folders): the first "
      "diverging operator, error growth, worst tensors; --loss compares two loss curves",
      &RegisterAccuracy);
  add("synth", "Write a realistic synthetic Ascend profile job (demo, tests, benchmarks)",
      &RegisterSynth);
  add("demo", "Generate the built-in demo job and analyse it", &RegisterDemo);
  add("explain", "Print what a finding id means: texts, thresholds and their origin",
      &RegisterExplain);

  AddCommonChecks(app);

  // Bare `trainscope`: the help, not "A subcommand is required".
  if (args.empty()) {
    WriteStdout(app.help());
    return kExitSuccess;
  }
  auto chosen_command = [&]() -> const CLI::App* {
    for (const Entry& command : commands) {
      if (command.sub->parsed()) return command.sub;
    }
    return nullptr;
  };

  // CLI11 wants argv order with the program name first; it parses a reversed
  // vector when given one.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::RequiredError& e) {
    // CLI11 checks required arguments before unknown ones: `analyze --bogus`
    // would say "paths is required". The unknown argument is the real error.
    const std::vector<std::string> unknown = app.remaining(/*recurse=*/true);
    const int code = unknown.empty() ? app.exit(e) : app.exit(CLI::ExtrasError(unknown));
    WriteStderr(DidYouMean(app, chosen_command(), unknown));
    return code == 0 ? kExitSuccess : kExitUnusableInput;
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    if (code != 0) WriteStderr(DidYouMean(app, chosen_command(), app.remaining(/*recurse=*/true)));
    return code == 0 ? kExitSuccess : kExitUnusableInput;
  }
  try {
    for (auto& command : commands) {
      if (command.sub->parsed()) return command.run();
    }
  } catch (const std::exception& e) {
    // Nothing below should throw; this is the one boundary where a stray
    // exception from a dependency becomes an error message, not a crash.
    WriteStderr(fmt::format("trainscope: internal error: {}\n",
                            TerminalSafe(e.what(), /*keep_newlines=*/true)));
    return kExitFailure;
  }
  return kExitUnusableInput;
}

}  // namespace

int Run(const std::vector<std::string>& args) {
  // Whatever the command printed must have reached stdout: a full disk or a
  // closed pipe is an error (exit 1), not a silent success.
  return FinishStdout(RunCommand(args));
}

CapturedRun RunCaptured(const std::vector<std::string>& args) {
  CapturedRun run;
  const OutputCapture capture(&run.out, &run.err);
  run.exit_code = RunCommand(args);
  return run;
}

}  // namespace trainscope::cli
