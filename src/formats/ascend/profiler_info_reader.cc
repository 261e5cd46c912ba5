#include "formats/ascend/profiler_info_reader.h"

#include <simdjson.h>

#include <filesystem>
#include <utility>

#include "core/mapped_file.h"
#include "core/numbers.h"
#include "formats/ascend/json_common.h"

namespace trainscope::formats {
namespace {

namespace od = simdjson::ondemand;

simdjson::error_code ReadExperimentalConfig(od::object object, model::CaptureInfo* info) {
  return ForEachJsonField(object,
                          [&](std::string_view key, od::value value) -> simdjson::error_code {
                            if (key == "_profiler_level")
                              return JsonValueToString(value, &info->profiler_level);
                            if (key == "_aic_metrics")
                              return JsonValueToString(value, &info->aic_metrics);
                            return simdjson::SUCCESS;
                          });
}

simdjson::error_code ReadConfig(od::object object, model::CaptureInfo* info) {
  return ForEachJsonField(object,
                          [&](std::string_view key, od::value value) -> simdjson::error_code {
                            if (key != "experimental_config") return simdjson::SUCCESS;
                            od::object experimental;
                            if (auto error = value.get_object().get(experimental)) return error;
                            return ReadExperimentalConfig(experimental, info);
                          });
}

simdjson::error_code ReadRankId(od::value value, model::CaptureInfo* info) {
  std::string text;
  if (auto error = JsonValueToString(value, &text)) return error;
  std::optional<int64_t> rank = ParseInt64(text);
  if (rank && *rank >= 0 && *rank <= INT32_MAX) info->rank = static_cast<int32_t>(*rank);
  return simdjson::SUCCESS;
}

}  // namespace

Status ParseProfilerInfo(std::string_view json, const std::string& file_label,
                         model::CaptureInfo* info) {
  return ForEachTopLevelJsonField(json, file_label, [&](std::string_view key, od::value value) {
    if (key == "torch_npu_version") return JsonValueToString(value, &info->torch_npu_version);
    if (key == "cann_version") return JsonValueToString(value, &info->cann_version);
    if (key == "rank_id") return ReadRankId(value, info);
    if (key == "config") {
      od::object config;
      if (auto error = value.get_object().get(config)) return error;
      return ReadConfig(config, info);
    }
    return simdjson::SUCCESS;
  });
}

std::optional<int32_t> RankFromProfilerInfoName(std::string_view file_name) {
  constexpr std::string_view kPrefix = "profiler_info_";
  constexpr std::string_view kSuffix = ".json";
  if (file_name.size() <= kPrefix.size() + kSuffix.size() ||
      file_name.substr(0, kPrefix.size()) != kPrefix ||
      file_name.substr(file_name.size() - kSuffix.size()) != kSuffix) {
    return std::nullopt;
  }
  std::string_view digits =
      file_name.substr(kPrefix.size(), file_name.size() - kPrefix.size() - kSuffix.size());
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::optional<int64_t> rank = ParseInt64(digits);
  if (!rank || *rank > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*rank);
}

Status ReadProfilerInfoFile(const std::string& path, model::CaptureInfo* info) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  Status status = ParseProfilerInfo(file.data(), path, info);
  std::optional<int32_t> name_rank =
      RankFromProfilerInfoName(std::filesystem::path(path).filename().string());
  if (name_rank) info->rank = name_rank;
  return status;
}

}  // namespace trainscope::formats
