#include "golden/cli_test_util.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_paths.h"

namespace trainscope::testing {

std::string ShellQuote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

CommandResult RunTrainscope(const std::vector<std::string>& args,
                            const std::vector<std::string>& env) {
  std::string dir = MakeTempDir("cli");
  // COLUMNS of the shell that runs the tests must not change their output.
  std::string command = "env -u COLUMNS";
  for (const auto& setting : env) command += " " + ShellQuote(setting);
  command += " " + ShellQuote(TrainscopeBinary());
  for (const auto& arg : args) command += " " + ShellQuote(arg);
  command += " >" + ShellQuote(dir + "/out") + " 2>" + ShellQuote(dir + "/err") + " </dev/null";
  int raw = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = ReadFileBytes(dir + "/out");
  result.err = ReadFileBytes(dir + "/err");
  return result;
}

std::string NormalizePaths(std::string text) {
  const std::string source = SourceDir();
  for (size_t pos = text.find(source); pos != std::string::npos; pos = text.find(source, pos)) {
    text.replace(pos, source.size(), "<SRC>");
  }
  return text;
}

std::string DescribeDifference(const std::string& label, const std::string& line_note,
                               const std::string& expected, const std::string& actual) {
  std::istringstream a(actual), e(expected);
  std::string line_a, line_e;
  for (int line = 1;; ++line) {
    bool more_a = static_cast<bool>(std::getline(a, line_a));
    bool more_e = static_cast<bool>(std::getline(e, line_e));
    if (!more_a && !more_e) break;
    if (line_a != line_e || more_a != more_e) {
      return label + " differs at line " + std::to_string(line) + line_note +
             "\n  expected: " + (more_e ? line_e : "<eof>") +
             "\n  actual:   " + (more_a ? line_a : "<eof>") +
             "\n(re-run with TRAINSCOPE_UPDATE_GOLDEN=1 after checking the change is intended)";
    }
  }
  return label + " differs (line endings or a missing newline at the end?)";
}

std::string CompareGolden(const std::string& name, const std::string& actual) {
  const std::string path = SourceDir() + "/tests/golden/data/" + name;
  if (const char* update = std::getenv("TRAINSCOPE_UPDATE_GOLDEN");
      update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return "";
  }
  std::string expected = ReadFileBytes(path);
  if (expected == actual) return "";
  return DescribeDifference("golden " + name, "", expected, actual);
}

}  // namespace trainscope::testing
