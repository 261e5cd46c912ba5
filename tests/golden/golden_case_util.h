// Data-driven golden cases: tests/golden/cases/<format>/<case>/ holds
//   input     the profile (a file or a directory),
//   cmd       one line of trainscope arguments, "{input}" standing for the
//             input's path (split on spaces; no quoting); leading NAME=VALUE
//             words ("COLUMNS=80") set the run's environment,
//   expected  what the run prints: "exit: N", then "--- stdout ---" and the
//             stdout, then "--- stderr ---" and the stderr (paths normalised).
// Lines at the top of expected that start with "# " are comments the
// comparison ignores; "# KNOWN BUG: ..." records that the output shown is
// today's, not the one the case should have (docs in HACKING.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "golden/cli_test_util.h"

namespace trainscope::testing {

struct GoldenCase {
  std::string format;                                     // the folder under cases/
  std::string name;                                       // the case folder
  std::string dir;                                        // absolute path of the case folder
  std::string Id() const { return format + "_" + name; }  // the gtest name
};

// How gtest shows a case in failure messages (instead of its bytes).
inline void PrintTo(const GoldenCase& golden_case, std::ostream* os) {
  *os << golden_case.format << "/" << golden_case.name;
}

// Every <format>/<case> folder under |root|, sorted. A case folder is listed
// even when files are missing: LoadCase then fails on it, loudly.
std::vector<GoldenCase> FindGoldenCases(const std::string& root);

// tests/golden/cases of this checkout.
std::string GoldenCasesRoot();

// The argument list of |cmd| (the cmd file's text) with {input} replaced by
// |input_path|. "" in |error| unless cmd is empty or has more than one line.
std::vector<std::string> ParseCaseCommand(const std::string& cmd, const std::string& input_path,
                                          std::string* error);

// The leading NAME=VALUE words of |args| (NAME of capitals, digits and
// '_'), removed from it: the environment a case runs with.
std::vector<std::string> TakeCaseEnvironment(std::vector<std::string>* args);

// The text an expected file holds for |result| (stdout and stderr already
// normalised by the caller).
std::string FormatCaseOutput(const CommandResult& result);

// Compares the formatted |actual| with the |expected| file's text, leading
// "# " comment lines of |expected| ignored. "" when equal, else a message
// naming |label| and the first differing line.
std::string CompareCaseOutput(const std::string& label, const std::string& expected,
                              const std::string& actual);

// The leading "# " comment lines of |expected| (kept when the file is
// rewritten with TRAINSCOPE_UPDATE_GOLDEN=1, so a KNOWN BUG note survives).
std::string LeadingComments(const std::string& expected);

// Runs |golden_case| and compares with its expected file: "" when it
// matches, else what is wrong (a missing or malformed file, the first
// differing line). With |update| it writes expected instead (keeping its
// leading comments; creating it when absent) and only fails on a missing
// input or cmd.
std::string CheckGoldenCase(const GoldenCase& golden_case, bool update);

}  // namespace trainscope::testing
