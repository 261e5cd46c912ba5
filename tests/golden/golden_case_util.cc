#include "golden/golden_case_util.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_paths.h"

namespace trainscope::testing {
namespace {

constexpr std::string_view kCommentPrefix = "# ";

// |expected| without its leading "# " comment lines.
std::string StripLeadingComments(const std::string& expected) {
  size_t pos = 0;
  while (expected.compare(pos, kCommentPrefix.size(), kCommentPrefix) == 0) {
    size_t end = expected.find('\n', pos);
    if (end == std::string::npos) return "";
    pos = end + 1;
  }
  return expected.substr(pos);
}

}  // namespace

std::vector<GoldenCase> FindGoldenCases(const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<GoldenCase> cases;
  std::error_code ec;
  for (const auto& format : fs::directory_iterator(root, ec)) {
    if (!format.is_directory()) continue;
    for (const auto& entry : fs::directory_iterator(format.path(), ec)) {
      if (!entry.is_directory()) continue;
      cases.push_back({format.path().filename().string(), entry.path().filename().string(),
                       entry.path().string()});
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const GoldenCase& a, const GoldenCase& b) { return a.Id() < b.Id(); });
  return cases;
}

std::string GoldenCasesRoot() { return SourceDir() + "/tests/golden/cases"; }

std::vector<std::string> ParseCaseCommand(const std::string& cmd, const std::string& input_path,
                                          std::string* error) {
  error->clear();
  std::string line = cmd;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.find('\n') != std::string::npos) {
    *error = "cmd has more than one line";
    return {};
  }
  std::vector<std::string> args;
  std::istringstream words(line);
  for (std::string word; words >> word;) {
    for (size_t pos = word.find("{input}"); pos != std::string::npos;
         pos = word.find("{input}", pos + input_path.size())) {
      word.replace(pos, 7, input_path);
    }
    args.push_back(word);
  }
  if (args.empty()) *error = "cmd is empty";
  return args;
}

std::vector<std::string> TakeCaseEnvironment(std::vector<std::string>* args) {
  std::vector<std::string> env;
  size_t taken = 0;
  for (; taken < args->size(); ++taken) {
    const std::string& word = (*args)[taken];
    const size_t equals = word.find('=');
    if (equals == 0 || equals == std::string::npos) break;
    const bool name = std::all_of(
        word.begin(), word.begin() + static_cast<long>(equals),
        [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
    if (!name) break;
    env.push_back(word);
  }
  args->erase(args->begin(), args->begin() + static_cast<long>(taken));
  return env;
}

std::string FormatCaseOutput(const CommandResult& result) {
  std::string text = "exit: " + std::to_string(result.exit_code) + "\n--- stdout ---\n";
  text += result.out;
  if (!result.out.empty() && result.out.back() != '\n') text += "\n(no newline at end)\n";
  text += "--- stderr ---\n";
  text += result.err;
  if (!result.err.empty() && result.err.back() != '\n') text += "\n(no newline at end)\n";
  return text;
}

std::string LeadingComments(const std::string& expected) {
  return expected.substr(0, expected.size() - StripLeadingComments(expected).size());
}

std::string CompareCaseOutput(const std::string& label, const std::string& expected,
                              const std::string& actual) {
  const std::string body = StripLeadingComments(expected);
  if (body == actual) return "";
  return DescribeDifference(label, " of the output (comment lines not counted)", body, actual);
}

std::string CheckGoldenCase(const GoldenCase& golden_case, bool update) {
  namespace fs = std::filesystem;
  const std::string label = "golden case " + golden_case.format + "/" + golden_case.name;
  const std::string input = golden_case.dir + "/input";
  const std::string cmd_path = golden_case.dir + "/cmd";
  const std::string expected_path = golden_case.dir + "/expected";
  std::error_code ec;
  if (!fs::exists(input, ec))
    return label + ": no input (a file or a directory) in " + golden_case.dir;
  if (!fs::is_regular_file(cmd_path, ec)) return label + ": no cmd file in " + golden_case.dir;
  const bool has_expected = fs::is_regular_file(expected_path, ec);
  if (!has_expected && !update) {
    return label + ": no expected file in " + golden_case.dir +
           " (write it with TRAINSCOPE_UPDATE_GOLDEN=1, then review it)";
  }
  std::string error;
  std::vector<std::string> args = ParseCaseCommand(ReadFileBytes(cmd_path), input, &error);
  if (!error.empty()) return label + ": " + error;
  const std::vector<std::string> env = TakeCaseEnvironment(&args);
  CommandResult result = RunTrainscope(args, env);
  result.out = NormalizePaths(result.out);
  result.err = NormalizePaths(result.err);
  const std::string actual = FormatCaseOutput(result);
  const std::string expected = has_expected ? ReadFileBytes(expected_path) : "";
  if (update) {
    std::ofstream(expected_path, std::ios::binary) << LeadingComments(expected) << actual;
    return "";
  }
  return CompareCaseOutput(label, expected, actual);
}

}  // namespace trainscope::testing
