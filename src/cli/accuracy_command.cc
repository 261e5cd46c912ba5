// `trainscope accuracy BASE NEW`: where two runs' numbers part ways
// (docs/accuracy.md). Both dumps read (formats/accuracy), aligned and
// compared (analysis/accuracy), reported as text, JSON
// (trainscope.accuracy/1) and HTML. `--loss LOG_A LOG_B` compares two loss
// curves instead (training logs through formats/log, or one number a line).
#include <fmt/format.h>

#include <cstdlib>
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
  std::string json_out, html_out;
  std::string thresholds_file;
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

int Emit(const AccuracyArgs& args, const std::function<std::string()>& html,
         const std::function<std::string()>& json, const std::function<std::string()>& text) {
  bool on_stdout = false;
  if (Status ok = WriteDocument(args.html_out, html, &on_stdout); !ok.ok()) return ReportError(ok);
  if (Status ok = WriteDocument(args.json_out, json, &on_stdout); !ok.ok()) return ReportError(ok);
  if (on_stdout) return kExitSuccess;
  WriteStdout(text());
  SayWhereDocumentsWent(args.json_out, args.html_out);
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
      [&] { return report::RenderLossJson(c, kVersion); },
      [&] { return report::RenderLossText(c); });
}

int RunAccuracy(const AccuracyArgs& args) {
  std::vector<std::string> inputs = {args.base, args.next};
  if (!args.thresholds_file.empty()) inputs.push_back(args.thresholds_file);
  const std::vector<OutputPath> outputs = {{"--json", args.json_out}, {"--html", args.html_out}};
  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  if (args.json_out == "-" && args.html_out == "-") {
    return ReportError(
        UsageError("--json - and --html - both on stdout\nhint: write one to a file"));
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
  const analysis::AccuracyComparison c = analysis::CompareDumps(*base, *next, thresholds, options);
  progress.Done();
  if (Status ok = CheckOutputPaths(outputs, inputs); !ok.ok()) return ReportError(ok);
  return Emit(
      args, [&] { return report::RenderAccuracyHtml(c, kVersion); },
      [&] { return report::RenderAccuracyJson(c, kVersion); },
      [&] { return report::RenderAccuracyText(c); });
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
                 "Write the comparison as JSON (schema trainscope.accuracy/1, docs/json-schema.md) "
                 "to FILE, or '-' for stdout")
      ->type_name("FILE|-");
  app.add_option("--html", args->html_out, "Write a self-contained HTML page to FILE")
      ->type_name("FILE|-");
  app.add_option("--thresholds", args->thresholds_file,
                 "Override rows of data/accuracy_thresholds.tsv (same columns)")
      ->type_name("FILE");
  app.add_option("--min-cosine", args->min_cosine, "Cosine similarity a pair needs, every dtype")
      ->check(FiniteNumber(-1.0, 1.0));
  app.add_option("--max-abs", args->max_abs, "Largest absolute error a pair may have, every dtype")
      ->check(FiniteNumber(0.0, 3.4e38));  // float32's range
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
