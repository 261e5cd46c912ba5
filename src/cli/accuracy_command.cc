// `trainscope accuracy BASE NEW`: where two runs' numbers part ways
// (docs/accuracy.md). Both dumps read (formats/accuracy), aligned and
// compared (analysis/accuracy), reported as text, JSON
// (trainscope.accuracy/2) and HTML. `--loss LOG_A LOG_B` compares two loss
// curves instead (training logs through formats/log, or one number a line).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/accuracy/accuracy.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/output_paths.h"
#include "cli/report_output.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "core/mapped_file.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/read_file.h"
#include "core/safe_text.h"
#include "formats/accuracy/dump_reader.h"
#include "formats/log/training_log_reader.h"
#include "report/accuracy_report.h"

namespace trainscope::cli {
namespace {

struct AccuracyArgs {
  std::string base, next;
  std::string json_out, html_out, csv_out;
  std::string thresholds_file;
  std::string mapping_file, api_mapping_file;
  std::optional<double> min_cosine, max_abs;
  bool bf16 = false;
  std::optional<int64_t> step, rank;
  unsigned threads = 0;
  size_t worst = 10;
  bool loss = false;
  std::optional<double> loss_tolerance;
  int64_t loss_steps = 3;
};

// A training log's (step, loss) records; a file no log format recognises is
// read as one number per line (step = the number's 1-based position).
Result<std::vector<analysis::LossPoint>> ReadLossCurve(const std::string& path) {
  Result<formats::ReadTrainingLog> read = formats::ReadTrainingLogFile(path);
  if (!read.ok()) return read.status();
  std::vector<analysis::LossPoint> points;
  for (const model::TrainingRecord& r : read->log.records) {
    if (r.loss.has_value()) points.push_back({r.step, *r.loss});
  }
  if (!points.empty()) return points;
  Result<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.status();
  std::string_view text = mapped->data();
  int64_t line = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string cell(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line;
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    if (cell.empty()) continue;
    char* end = nullptr;
    const double value = std::strtod(cell.c_str(), &end);
    if (end == cell.c_str() || *end != '\0') {
      return InvalidInput(
          fmt::format("{}:{}: neither a training log line nor a number\nhint: "
                      "give a training log (docs/health.md) or one loss per line",
                      path, line));
    }
    points.push_back({static_cast<int64_t>(points.size()) + 1, value});
  }
  if (points.empty()) return InvalidInput(fmt::format("{}: no loss values", path));
  return points;
}

// The JSON and CSV documents are streamed (one row or object per tensor
// pair: gigabytes for a large dump, never held whole).
using StreamedDocument = std::function<void(const DocumentSink&)>;

int Emit(const AccuracyArgs& args, const std::function<std::string()>& html,
         const StreamedDocument& json, const std::function<std::string()>& text,
         const StreamedDocument& csv = nullptr) {
  bool on_stdout = false;
  if (Status ok = WriteDocument(args.html_out, html, &on_stdout); !ok.ok()) return ReportError(ok);
  if (Status ok = WriteStreamedDocument(args.json_out, json, &on_stdout); !ok.ok()) {
    return ReportError(ok);
  }
  if (csv) {
    if (Status ok = WriteStreamedDocument(args.csv_out, csv, &on_stdout); !ok.ok()) {
      return ReportError(ok);
    }
  }
  if (on_stdout) return kExitSuccess;
  WriteStdout(text());
  SayWhereDocumentsWent(args.json_out, args.html_out);
  if (csv && !args.csv_out.empty()) {
    WriteStdout(fmt::format("\nCSV written to {}\n", TerminalSafe(args.csv_out)));
  }
  return kExitSuccess;
}

int RunLoss(const AccuracyArgs& args, const analysis::AccuracyThresholds& thresholds) {
  auto base = ReadLossCurve(args.base);
  if (!base.ok()) return ReportError(base.status());
  auto next = ReadLossCurve(args.next);
  if (!next.ok()) return ReportError(next.status());
  analysis::LossComparison c = analysis::CompareLossCurves(
      *base, *next, args.loss_tolerance.value_or(thresholds.loss_tolerance()), args.loss_steps);
  c.base_label = args.base;
  c.next_label = args.next;
  return Emit(
      args, [&] { return report::RenderLossHtml(c, kVersion); },
      [&](const DocumentSink& sink) { sink(report::RenderLossJson(c, kVersion)); },
      [&] { return report::RenderLossText(c); });
}

// The rank folders of a dump read from msprobe's layout: the one read and
// the step's others ("rank0", "rank1"); empty for proc folders and plain
// dumps.
std::vector<std::string> RankFoldersOf(const model::TensorDump& dump) {
  const size_t slash = dump.selected.rfind('/');
  const std::string chosen =
      slash == std::string::npos ? dump.selected : dump.selected.substr(slash + 1);
  if (!chosen.starts_with("rank")) return {};
  std::vector<std::string> ranks = {chosen};
  ranks.insert(ranks.end(), dump.other_ranks.begin(), dump.other_ranks.end());
  return ranks;
}

int64_t RankNumber(const std::string& folder) {
  return std::strtoll(folder.c_str() + 4, nullptr, 10);  // "rank12" -> 12
}

// Both sides hold several ranks: each rank present on both is compared with
// its namesake; the comparison shown in full is the first rank that
// diverges, else the lowest; every paired rank gets a summary line.
Result<analysis::AccuracyComparison> CompareRankByRank(
    const AccuracyArgs& args, formats::DumpReadOptions read,
    const analysis::AccuracyThresholds& thresholds, const analysis::AccuracyOptions& options,
    const std::vector<std::string>& base_ranks, const std::vector<std::string>& next_ranks) {
  std::map<int64_t, std::string> base_by, next_by;
  for (const std::string& r : base_ranks) base_by.emplace(RankNumber(r), r);
  for (const std::string& r : next_ranks) next_by.emplace(RankNumber(r), r);
  std::vector<std::string> base_only, next_only;
  std::vector<int64_t> common;
  for (const auto& [n, name] : base_by) {
    if (next_by.count(n) != 0) {
      common.push_back(n);
    } else {
      base_only.push_back(name);
    }
  }
  for (const auto& [n, name] : next_by) {
    if (base_by.count(n) == 0) next_only.push_back(name);
  }
  if (common.empty()) {
    return InvalidInput(fmt::format(
        "{} and {}: no rank folder in common (BASE: {}; NEW: {})\nhint: give the two rank "
        "folders themselves to compare different ranks",
        args.base, args.next, fmt::join(base_ranks, ", "), fmt::join(next_ranks, ", ")));
  }
  std::optional<analysis::AccuracyComparison> shown;
  std::vector<analysis::RankSummary> summaries;
  for (const int64_t n : common) {
    read.rank = n;
    Result<model::TensorDump> base = formats::ReadTensorDump(args.base, read);
    if (!base.ok()) return base.status();
    Result<model::TensorDump> next = formats::ReadTensorDump(args.next, read);
    if (!next.ok()) return next.status();
    analysis::AccuracyComparison c = analysis::CompareDumps(
        std::make_shared<const model::TensorDump>(std::move(*base)),
        std::make_shared<const model::TensorDump>(std::move(*next)), thresholds, options);
    summaries.push_back(analysis::SummariseRank(c, base_by[n]));
    const bool better = !shown || (!shown->first_divergence && c.first_divergence);
    if (better) {
      c.rank_shown = base_by[n];
      shown = std::move(c);
    }
  }
  shown->ranks = std::move(summaries);
  shown->base_only_ranks = std::move(base_only);
  shown->next_only_ranks = std::move(next_only);
  return std::move(*shown);
}

int RunAccuracy(const AccuracyArgs& args) {
  std::vector<std::string> inputs = {args.base, args.next};
  if (!args.thresholds_file.empty()) inputs.push_back(args.thresholds_file);
  if (!args.mapping_file.empty()) inputs.push_back(args.mapping_file);
  if (!args.api_mapping_file.empty()) inputs.push_back(args.api_mapping_file);
  const std::vector<OutputPath> outputs = {
      {"--json", args.json_out}, {"--html", args.html_out}, {"--csv", args.csv_out}};
  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  if (int(args.json_out == "-") + int(args.html_out == "-") + int(args.csv_out == "-") > 1) {
    return ReportError(UsageError(
        "two of --json -, --html -, --csv - on stdout\nhint: write all but one to files"));
  }
  analysis::AccuracyThresholds thresholds = analysis::AccuracyThresholds::Builtin();
  if (!args.thresholds_file.empty()) {
    Result<std::string> text = ReadSmallFile(args.thresholds_file);
    if (!text.ok()) return ReportError(text.status());
    if (Status ok = thresholds.Override(*text, args.thresholds_file); !ok.ok())
      return ReportError(ok);
  }
  thresholds.SetEverywhere(args.min_cosine, args.max_abs);
  if (args.loss) return RunLoss(args, thresholds);

  formats::DumpReadOptions read;
  read.uint16_as_bf16 = args.bf16;
  read.step = args.step;
  read.rank = args.rank;
  Progress progress;
  progress.Update("trainscope: reading BASE...");
  Result<model::TensorDump> base = formats::ReadTensorDump(args.base, read);
  if (!base.ok()) {
    progress.Done();
    return ReportError(base.status());
  }
  progress.Update("trainscope: reading NEW...");
  Result<model::TensorDump> next = formats::ReadTensorDump(args.next, read);
  if (!next.ok()) {
    progress.Done();
    return ReportError(next.status());
  }
  progress.Update("trainscope: comparing...");
  analysis::AccuracyOptions options;
  options.threads = ClampThreads(args.threads);
  options.worst_rows = args.worst;
  std::optional<analysis::AccuracyMapping> mapping;
  if (!args.mapping_file.empty()) {
    Result<std::string> text = ReadSmallFile(args.mapping_file);
    if (!text.ok()) return ReportError(text.status());
    Result<analysis::AccuracyMapping> parsed =
        analysis::ParseAccuracyMapping(*text, args.mapping_file);
    if (!parsed.ok()) return ReportError(parsed.status());
    mapping = std::move(*parsed);
    options.mapping = &*mapping;
  }
  analysis::ApiNameTable api_table = analysis::ApiNameTable::Builtin();
  if (!args.api_mapping_file.empty()) {
    Result<std::string> text = ReadSmallFile(args.api_mapping_file);
    if (!text.ok()) return ReportError(text.status());
    if (Status ok = api_table.Add(*text, args.api_mapping_file); !ok.ok()) return ReportError(ok);
  }
  options.api_table = &api_table;
  const std::vector<std::string> base_ranks = RankFoldersOf(*base);
  const std::vector<std::string> next_ranks = RankFoldersOf(*next);
  analysis::AccuracyComparison c;
  if (!args.rank && (base_ranks.size() > 1 || next_ranks.size() > 1)) {
    // Each rank is read again below: the first rank's dumps are let go.
    *base = model::TensorDump();
    *next = model::TensorDump();
    Result<analysis::AccuracyComparison> by_rank =
        CompareRankByRank(args, read, thresholds, options, base_ranks, next_ranks);
    if (!by_rank.ok()) {
      progress.Done();
      return ReportError(by_rank.status());
    }
    c = std::move(*by_rank);
  } else {
    // The comparison holds the dumps: its pairs refer to their tensors.
    c = analysis::CompareDumps(std::make_shared<const model::TensorDump>(std::move(*base)),
                               std::make_shared<const model::TensorDump>(std::move(*next)),
                               thresholds, options);
  }
  progress.Done();
  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  return Emit(
      args, [&] { return report::RenderAccuracyHtml(c, kVersion); },
      [&](const DocumentSink& sink) { report::StreamAccuracyJson(c, kVersion, sink); },
      [&] { return report::RenderAccuracyText(c); },
      [&](const DocumentSink& sink) { report::StreamAccuracyCsv(c, sink); });
}

}  // namespace

CommandRunner RegisterAccuracy(CLI::App& app) {
  auto args = std::make_shared<AccuracyArgs>();
  app.add_option("base", args->base,
                 "BASE dump: msprobe dump (dump.json, its folder, or dump_path with step*/rank*) "
                 "or a folder of .npy/.npz; with --loss a training log")
      ->required();
  app.add_option("new", args->next, "NEW dump (same kinds as BASE)")->required();
  app.add_option("--json", args->json_out,
                 "Write the comparison as JSON (schema trainscope.accuracy/2, docs/json-schema.md) "
                 "to FILE, or '-' for stdout")
      ->type_name("FILE|-");
  app.add_option("--html", args->html_out, "Write a self-contained HTML page to FILE")
      ->type_name("FILE|-");
  app.add_option("--csv", args->csv_out,
                 "Write one row per tensor pair with msprobe compare's columns to FILE, or '-'")
      ->type_name("FILE|-");
  app.add_option("--thresholds", args->thresholds_file,
                 "Override rows of data/accuracy_thresholds.tsv (same columns)")
      ->type_name("FILE");
  app.add_option("--min-cosine", args->min_cosine, "Cosine similarity a pair needs, every dtype")
      ->check(FiniteNumber(-1.0, 1.0));
  app.add_option("--max-abs", args->max_abs, "Largest absolute error a pair may have, every dtype")
      ->check(FiniteNumber(0.0, 3.4e38));  // float32's range
  app.add_option("--mapping", args->mapping_file,
                 "msprobe compare's mapping YAML (data, cell or layer mapping): NEW's names on "
                 "the left, BASE's on the right (docs/accuracy.md)")
      ->type_name("FILE");
  app.add_option("--api-mapping", args->api_mapping_file,
                 "Rows added to data/accuracy_api_mapping.tsv (MindSpore API, PyTorch API)")
      ->type_name("FILE");
  app.add_flag("--bf16", args->bf16, "Read every uint16 .npy array as bfloat16 bits");
  app.add_option("--step", args->step, "msprobe step*/rank* layout: the step (default: lowest)");
  app.add_option("--rank", args->rank, "msprobe step*/rank* layout: the rank (default: lowest)");
  app.add_option("--threads", args->threads, "Tensor pairs compared at once (default: all cores)");
  app.add_option("--worst", args->worst, "Rows of the worst-tensors table")->capture_default_str();
  app.add_flag("--loss", args->loss,
               "BASE and NEW are training logs (or one loss per line): where the loss curves "
               "separate");
  app.add_option("--loss-tolerance", args->loss_tolerance,
                 "Relative loss difference that counts as apart (default: data row loss-curve)")
      ->check(FiniteNumber(0.0, 1e6));
  app.add_option("--loss-steps", args->loss_steps, "Steps in a row beyond the tolerance")
      ->capture_default_str();
  return [args] { return RunAccuracy(*args); };
}

}  // namespace trainscope::cli
