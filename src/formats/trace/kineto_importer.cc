#include "formats/trace/kineto_importer.h"

#include "formats/kineto_sniff.h"
#include "formats/trace/kineto_reader.h"

namespace trainscope::formats {
namespace {

bool HasTraceName(std::string_view name) {
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

SniffVerdict Sniff(const std::string& path, bool named) {
  if (!named && !HasTraceName(path)) return {};
  SniffResult sniff = SniffKinetoTrace(path);
  // A synth ground truth, a --json report, an annotated trace (--perfetto)
  // found in a directory: trainscope's, not a profile of the job.
  if (sniff.own_output && !named) return {};
  if (sniff.is_trace) return {100, {}};
  return {0, std::move(sniff.reason)};
}

Result<model::RankProfile> Load(const std::string& path, const ImportOptions& options) {
  model::RankProfile profile;
  profile.source_dir = path;
  trace::ScanOptions scan;
  scan.threads = options.threads;
  scan.activity_rules = options.activity_rules;
  TS_RETURN_IF_ERROR(ReadKinetoTrace(path, &profile, scan));
  return profile;
}

}  // namespace

const Importer kKinetoImporter = {
    "kineto",
    "PyTorch profiler (Kineto) Chrome trace, .json or .json.gz (traceEvents, or a top-level event "
    "array)",
    InputShape::kFile,
    ImportScope::kRank,
    Sniff,
    Load,
};

}  // namespace trainscope::formats
