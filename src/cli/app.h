// cli::Run: the whole command line, callable in-process (tests drive the
// real CLI through it). main.cc only forwards argv.
#pragma once

#include <string>
#include <vector>

namespace trainscope::cli {

enum ExitCode : int {
  kExitSuccess = 0,
  kExitFailure = 1,        // internal error or findings with --strict (later)
  kExitUnusableInput = 2,  // bad input files or bad usage: the message says which
  kExitRegression = 3,     // compare --gate: a rule found a regression
  kExitGateUndecided = 4,  // compare --gate: no regression, but a rule could not conclude
  kExitInterrupted = 130,
};

// |args| excludes the program name. Output goes to stdout, messages to stderr.
int Run(const std::vector<std::string>& args);

// What a captured run printed, and its exit code.
struct CapturedRun {
  int exit_code = kExitSuccess;
  std::string out;  // stdout: the text summary, or a document written to '-'
  std::string err;  // stderr: warnings, and the error with its hint
};

// Run, with what the command writes to stdout and stderr kept instead of
// printed (the Python module). Runs on the calling thread; several threads
// may run at once. Progress lines (drawn only when stderr is a terminal)
// still go to stderr.
CapturedRun RunCaptured(const std::vector<std::string>& args);

inline constexpr const char* kVersion = "0.1.0";

}  // namespace trainscope::cli
