// Running the real trainscope binary from tests and comparing with golden files.
#pragma once

#include <string>
#include <vector>

namespace trainscope::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the built trainscope binary with |args| (shell-quoted here), and
// with |env| ("NAME=VALUE" each, e.g. "COLUMNS=80") added to its environment
// (COLUMNS removed from it otherwise).
CommandResult RunTrainscope(const std::vector<std::string>& args,
                            const std::vector<std::string>& env = {});

// |arg| in single quotes for sh.
std::string ShellQuote(const std::string& arg);

// Replaces every occurrence of the source dir with "<SRC>" so golden files do
// not depend on where the checkout lives.
std::string NormalizePaths(std::string text);

// Compares |actual| with tests/golden/data/|name|. With
// TRAINSCOPE_UPDATE_GOLDEN=1 in the environment it rewrites the file instead.
// Returns "" when equal, else a message with the first differing line.
std::string CompareGolden(const std::string& name, const std::string& actual);

// "" when equal, else "<label> differs at line N<line_note>" with both lines
// and the update hint (the line of the first difference).
std::string DescribeDifference(const std::string& label, const std::string& line_note,
                               const std::string& expected, const std::string& actual);

}  // namespace trainscope::testing
