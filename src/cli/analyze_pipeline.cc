#include "cli/analyze_pipeline.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "analysis/family_rules.h"
#include "analysis/fingerprint_library.h"
#include "analysis/rank_analysis.h"
#include "cli/app.h"
#include "cli/status_exit.h"
#include "core/mapped_file.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "formats/load_profiles.h"
#include "model/timeline_classify.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace trainscope::cli {
namespace {

Result<analysis::FamilyRules> LoadRules(const std::string& families_file) {
  if (families_file.empty()) return analysis::FamilyRules::Merge({}, analysis::FamilyRules::Builtin());
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(families_file));
  TS_ASSIGN_OR_RETURN(analysis::FamilyRules user,
                      analysis::FamilyRules::Parse(file.data(), families_file));
  return analysis::FamilyRules::Merge(user, analysis::FamilyRules::Builtin());
}

Result<analysis::FingerprintLibrary> LoadFingerprints(const std::string& path) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  TS_ASSIGN_OR_RETURN(analysis::FingerprintLibrary user, analysis::FingerprintLibrary::Parse(file.data(), path));
  return analysis::FingerprintLibrary::Merge(user, analysis::FingerprintLibrary::Builtin());
}

Result<std::vector<model::ClassRule>> LoadActivityRules(const std::string& path) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  TS_ASSIGN_OR_RETURN(std::vector<model::ClassRule> user, model::ParseClassRules(file.data(), path));
  return model::WithDefaultClassRules(std::move(user));
}

Status WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return IoError(fmt::format("{}: cannot open for writing", path));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) return IoError(fmt::format("{}: write failed", path));
  return Status::Ok();
}

// Wall time per stage for --timings (stderr, so --json - stays clean).
class StageClock {
 public:
  explicit StageClock(bool enabled) : enabled_(enabled), last_(std::chrono::steady_clock::now()) {}
  void Lap(const char* stage) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    fmt::print(stderr, "trainscope: {:<8} {:8.3f} s\n", stage, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace

int RunAnalyze(const AnalyzeArgs& args) {
  StageClock clock(args.timings);
  const unsigned threads = args.threads ? args.threads : DefaultThreadCount();
  auto rules = LoadRules(args.families_file);
  if (!rules.ok()) return ReportError(rules.status());

  std::optional<analysis::FingerprintLibrary> fingerprints;
  if (!args.fingerprints_file.empty()) {
    auto loaded = LoadFingerprints(args.fingerprints_file);
    if (!loaded.ok()) return ReportError(loaded.status());
    fingerprints.emplace(std::move(loaded).value());
  }

  std::optional<std::vector<model::ClassRule>> activity_rules;
  if (!args.activity_rules_file.empty()) {
    auto loaded = LoadActivityRules(args.activity_rules_file);
    if (!loaded.ok()) return ReportError(loaded.status());
    activity_rules.emplace(std::move(loaded).value());
  }

  Progress progress;
  progress.Update(fmt::format("trainscope: reading {} path(s)...", args.paths.size()));
  // Fails (exit 2) only when no rank loads or none has usable data; ranks
  // that failed and files not taken go to the input health of every report.
  auto loaded = formats::LoadProfiles(args.paths, threads, activity_rules ? &*activity_rules : nullptr);
  if (!loaded.ok()) {
    progress.Done();
    return ReportError(loaded.status());
  }
  const std::vector<model::RankProfile>& profiles = loaded->profiles;
  if (!loaded->failed.empty()) {
    // On stderr too: with --json - the report itself is not read by a person.
    progress.Done();
    fmt::print(stderr, "trainscope: warning: {} of {} ranks not loaded (listed in the input health)\n",
               loaded->failed.size(), loaded->failed.size() + profiles.size());
  }
  clock.Lap("read");
  progress.Update(fmt::format("trainscope: analysing {} rank(s)...", profiles.size()));
  analysis::AnalysisOptions options;
  options.step = args.step;
  if (fingerprints) options.fingerprints = &*fingerprints;
  auto job = analysis::AnalyzeJob(profiles, *rules, options, threads);
  progress.Done();
  if (!job.ok()) return ReportError(job.status());
  clock.Lap("analyse");
  job->inputs = args.paths;
  job->failed_inputs = std::move(loaded->failed);
  job->skipped_inputs = std::move(loaded->skipped);

  if (!args.html_out.empty()) {
    report::HtmlReportOptions html_options;
    html_options.focus_rank = args.focus_rank;
    html_options.tool_version = kVersion;
    Status written = WriteFile(args.html_out, report::RenderHtml(*job, html_options));
    if (!written.ok()) return ReportError(written);
  }
  if (!args.json_out.empty()) {
    std::string json = report::RenderJson(*job, kVersion);
    if (args.json_out == "-") {
      std::fwrite(json.data(), 1, json.size(), stdout);
      clock.Lap("report");
      return kExitSuccess;
    }
    Status written = WriteFile(args.json_out, json);
    if (!written.ok()) return ReportError(written);
  }
  report::TextReportOptions text_options;
  text_options.focus_rank = args.focus_rank;
  text_options.color = !args.no_color && ::isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
  std::string text = report::RenderText(*job, text_options);
  std::fwrite(text.data(), 1, text.size(), stdout);
  clock.Lap("report");
  if (!args.json_out.empty()) fmt::print("\nJSON written to {}\n", args.json_out);
  if (!args.html_out.empty()) fmt::print("\nHTML report written to {}\n", args.html_out);
  return kExitSuccess;
}

}  // namespace trainscope::cli
