#include "cli/job_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "analysis/motifs/mining_memo.h"
#include "core/read_file.h"
#include "core/row_ledger.h"
#include "formats/load_profiles.h"

namespace trainscope::cli {
namespace {

Result<analysis::FamilyRules> LoadRules(const std::string& families_file) {
  if (families_file.empty())
    return analysis::FamilyRules::Merge({}, analysis::FamilyRules::Builtin());
  // ReadSmallFile, not MappedFile: rule files may be pipes (<(...)).
  TS_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(families_file));
  TS_ASSIGN_OR_RETURN(analysis::FamilyRules user,
                      analysis::FamilyRules::Parse(text, families_file));
  return analysis::FamilyRules::Merge(user, analysis::FamilyRules::Builtin());
}

Result<analysis::FingerprintLibrary> LoadFingerprints(const std::string& path) {
  TS_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path));
  TS_ASSIGN_OR_RETURN(analysis::FingerprintLibrary user,
                      analysis::FingerprintLibrary::Parse(text, path));
  return analysis::FingerprintLibrary::Merge(user, analysis::FingerprintLibrary::Builtin());
}

Result<std::vector<model::ClassRule>> LoadActivityRules(const std::string& path) {
  TS_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path));
  TS_ASSIGN_OR_RETURN(std::vector<model::ClassRule> user, model::ParseClassRules(text, path));
  return model::WithDefaultClassRules(std::move(user));
}

Result<analysis::FindingCatalog> LoadThresholds(const std::string& path) {
  TS_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path));
  analysis::FindingCatalog catalog = analysis::FindingCatalog::Builtin();
  TS_RETURN_IF_ERROR(catalog.OverrideThresholds(text, path));
  return catalog;
}

}  // namespace

analysis::AnalysisOptions LoadedRules::Options(std::optional<int32_t> step) const {
  analysis::AnalysisOptions options;
  options.step = step;
  if (fingerprints) options.fingerprints = &*fingerprints;
  if (catalog) options.catalog = &*catalog;
  return options;
}

const analysis::FindingCatalog& LoadedRules::Catalog() const {
  return catalog ? *catalog : analysis::FindingCatalog::Builtin();
}

Result<LoadedRules> LoadRuleFiles(const RuleFiles& files) {
  TS_ASSIGN_OR_RETURN(analysis::FamilyRules rules, LoadRules(files.families_file));
  LoadedRules loaded{std::move(rules), std::nullopt, std::nullopt, std::nullopt};
  if (!files.fingerprints_file.empty()) {
    TS_ASSIGN_OR_RETURN(analysis::FingerprintLibrary library,
                        LoadFingerprints(files.fingerprints_file));
    loaded.fingerprints.emplace(std::move(library));
  }
  if (!files.thresholds_file.empty()) {
    TS_ASSIGN_OR_RETURN(analysis::FindingCatalog catalog, LoadThresholds(files.thresholds_file));
    loaded.catalog.emplace(std::move(catalog));
  }
  if (!files.activity_rules_file.empty()) {
    TS_ASSIGN_OR_RETURN(std::vector<model::ClassRule> activity,
                        LoadActivityRules(files.activity_rules_file));
    loaded.activity_rules.emplace(std::move(activity));
  }
  return loaded;
}

Result<AnalysedInputs> AnalyseInputs(const std::vector<std::string>& paths, unsigned threads,
                                     const LoadedRules& rules,
                                     const analysis::AnalysisOptions& options,
                                     const formats::ProfileShard& shard, const RankSink* sink,
                                     Progress* progress) {
  // Each rank is loaded, analysed on its own and freed (at most |threads|
  // profiles in memory); the job is combined from the results.
  AnalysedInputs out;
  std::mutex mutex;
  // Ranks that run the same kernels mine their steps once (the job's
  // ranks, not only a rank's steps).
  analysis::MiningMemo mining_memo;
  size_t ranks_done = 0;
  int64_t rows_read = 0;
  TS_ASSIGN_OR_RETURN(
      formats::StreamedProfiles streamed,
      formats::ForEachProfile(
          paths, threads, rules.activity_rules ? &*rules.activity_rules : nullptr,
          [&](size_t index, unsigned rank_threads, model::RankProfile&& profile) {
            const model::RankProfile rank_profile = std::move(profile);
            const analysis::JobContext context{rules.rules, options, rank_threads, &mining_memo};
            Result<analysis::RankResult> result = analysis::AnalyzeRank(rank_profile, context);
            if (sink && result.ok()) (*sink)(index, rank_profile, *result);
            analysis::RunIdentity identity = analysis::RunIdentityOf(rank_profile);
            int64_t rank_rows = 0;
            for (const RowLedger& ledger : rank_profile.ledgers) {
              rank_rows += ledger.rows_read();
            }
            std::lock_guard<std::mutex> lock(mutex);
            ++ranks_done;
            rows_read += rank_rows;
            if (progress != nullptr) {
              progress->Update(fmt::format(
                  "trainscope: {} rank(s) analysed, the last rank {} ({}); {} rows "
                  "read...",
                  ranks_done,
                  rank_profile.rank >= 0 ? std::to_string(rank_profile.rank) : std::string("n/a"),
                  rank_profile.source_dir, rows_read));
            }
            out.results.emplace(index, std::move(result));
            out.identities.emplace(index, std::move(identity));
          },
          shard));
  out.loaded = streamed.loaded;
  out.failed = std::move(streamed.failed);
  out.skipped = std::move(streamed.skipped);
  return out;
}

Result<std::vector<analysis::RankResult>> RankResultsOf(
    std::map<size_t, Result<analysis::RankResult>>&& results) {
  std::vector<analysis::RankResult> ranks;
  ranks.reserve(results.size());
  Status first_error = Status::Ok();
  for (auto& [index, result] : results) {
    if (!result.ok()) {
      if (first_error.ok()) first_error = result.status();
      continue;
    }
    ranks.push_back(std::move(result).value());
  }
  results.clear();
  if (!first_error.ok()) return first_error;
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const auto& a, const auto& b) { return a.header.rank < b.header.rank; });
  return ranks;
}

}  // namespace trainscope::cli
