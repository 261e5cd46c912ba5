// One function per subcommand; each registers its CLI11 options and returns
// the callback that runs it. Table-driven like ninja's tools.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

namespace trainscope::cli {

using CommandRunner = std::function<int()>;

CommandRunner RegisterAnalyze(CLI::App& app);
CommandRunner RegisterSynth(CLI::App& app);
CommandRunner RegisterDemo(CLI::App& app);
CommandRunner RegisterExplain(CLI::App& app);
CommandRunner RegisterCompare(CLI::App& app);
CommandRunner RegisterHealth(CLI::App& app);
CommandRunner RegisterAccuracy(CLI::App& app);
CommandRunner RegisterTriage(CLI::App& app);

// Shared by commands: prints "trainscope: error: ..." and maps a Status code
// to an exit code (2 for input/usage problems, 1 otherwise).

}  // namespace trainscope::cli
