#include "cli/synth_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>

#include "cli/app.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/status_exit.h"
#include "cli/stdout_writer.h"
#include "synth/accuracy_dump.h"

namespace trainscope::cli {

Status ApplyFusedList(const std::vector<std::string>& names, synth::SynthOptions* options) {
  for (const std::string& name : names) {
    if (name == "all") {
      *options = synth::AllFused(*options);
    } else if (name == "rmsnorm") {
      options->fused_rmsnorm = true;
    } else if (name == "gated-norm") {
      options->fused_gated_norm = true;
    } else if (name == "swiglu") {
      options->fused_swiglu = true;
    } else if (name == "cross-entropy") {
      options->fused_cross_entropy = true;
    } else if (name == "custom-op") {
      options->native_custom_op = true;
    } else if (name == "unshard") {
      options->unshard_on_compute_stream = true;
    } else if (name == "numa") {
      options->numa_bound = true;
    } else if (name == "optimizer") {
      options->fused_optimizer = true;
    } else {
      return UsageError(fmt::format(
          "--fused: unknown remedy '{}'\nhint: use rmsnorm, gated-norm, swiglu, cross-entropy, "
          "custom-op, unshard, numa, optimizer or all (comma-separated)",
          name));
    }
  }
  return Status::Ok();
}

Status ParseHeaderVariant(const std::string& name, synth::HeaderVariant* header) {
  const std::optional<synth::HeaderVariant> variant = synth::kHeaderVariantNames.FromName(name);
  if (!variant) {
    return UsageError(fmt::format("--header: unknown variant '{}'\nhint: use {}", name,
                                  synth::kHeaderVariantNames.Choices()));
  }
  *header = *variant;
  return Status::Ok();
}

namespace {

// "--clock-offset HOST:MS" into |options|.
Status ParseClockOffset(const std::string& text, synth::SynthOptions* options) {
  const size_t colon = text.find(':');
  char* end = nullptr;
  const std::string host = colon == std::string::npos ? std::string() : text.substr(0, colon);
  const long index = std::strtol(host.c_str(), &end, 10);
  const bool host_ok = !host.empty() && end == host.c_str() + host.size() && index >= 0;
  const std::string ms = colon == std::string::npos ? std::string() : text.substr(colon + 1);
  const double value = std::strtod(ms.c_str(), &end);
  if (!host_ok || ms.empty() || end != ms.c_str() + ms.size()) {
    return UsageError(fmt::format(
        "--clock-offset '{}': expected HOST:MS (a host index, a number of milliseconds)\n"
        "hint: e.g. --hosts 2 --clock-offset 1:3.7",
        text));
  }
  options->clock_offset_host = static_cast<int>(std::min<long>(index, 1 << 20));
  options->clock_offset_ms = value;
  return Status::Ok();
}

// "--slow-op TYPE[@SHAPES]:FACTOR" into |options|.
Status ParseSlowOp(const std::string& text, synth::SynthOptions* options) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return UsageError(
        fmt::format("--slow-op '{}': expected TYPE:FACTOR\nhint: e.g. MatMulV2:1.2", text));
  }
  const std::string factor = text.substr(colon + 1);
  char* end = nullptr;
  const double value = std::strtod(factor.c_str(), &end);
  if (factor.empty() || end != factor.c_str() + factor.size()) {
    return UsageError(
        fmt::format("--slow-op '{}': FACTOR is not a number\nhint: e.g. MatMulV2:1.2", text));
  }
  const std::string op = text.substr(0, colon);
  const size_t at = op.find('@');
  options->slow_op = op.substr(0, at);
  options->slow_op_shapes = at == std::string::npos ? "" : op.substr(at + 1);
  options->slow_op_factor = value;
  return Status::Ok();
}

}  // namespace

CommandRunner RegisterSynth(CLI::App& app) {
  struct Args {
    synth::SynthOptions options;
    std::string out;
    std::string header = "cann83";
    std::vector<std::string> fused;
    std::string accuracy;              // --accuracy PLANT: tensor dumps instead of a profile
    bool accuracy_statistics = false;  // --accuracy-statistics: msprobe task "statistics"
    int64_t accuracy_bench_mb = 0;     // --accuracy-bench MB: big float32 .npy pairs
    std::string slow_op;               // --slow-op TYPE:FACTOR
    std::string clock_offset;          // --clock-offset HOST:MS
  };
  auto args = std::make_shared<Args>();
  auto& o = args->options;
  app.add_option("--out,-o", args->out, "Job directory to create (must be empty or absent)")
      ->required();
  app.add_option("--seed", o.seed, "PRNG seed; the same seed writes the same bytes")
      ->capture_default_str();
  app.add_option("--ranks", o.ranks, "Number of ranks")->capture_default_str();
  app.add_option("--layers", o.layers, "Transformer layers")->capture_default_str();
  app.add_option("--micro-batches", o.micro_batches, "Micro-batches per step")
      ->capture_default_str();
  app.add_option("--steps", o.steps, "Captured steps")->capture_default_str();
  app.add_option("--first-step", o.first_step, "Number of the first captured ProfilerStep")
      ->capture_default_str();
  app.add_option("--hidden", o.hidden, "Hidden size (drives matmul and norm durations)")
      ->capture_default_str();
  app.add_option("--vocab", o.vocab, "Vocabulary size (drives the loss)")->capture_default_str();
  app.add_option("--scale", o.scale,
                 "Multiply the micro-batches per step, rounded to a whole one (~490 for 1 GB of "
                 "kernel_details.csv at the default sizes)")
      ->capture_default_str();
  app.add_option("--header", args->header,
                 "CSV header generation: legacy2023, level1-2025, cann83, cann2026")
      ->capture_default_str();
  app.add_option("--fused", args->fused,
                 "Remedies to apply (comma-separated): rmsnorm, gated-norm, swiglu, cross-entropy, "
                 "custom-op, unshard, numa, optimizer, all. Default: the unfused baseline")
      ->delimiter(',');
  app.add_option("--name", o.name, "Job name used in directory names")->capture_default_str();
  app.add_option("--host-skew-ms", o.host_skew_ms,
                 "First-kernel spread across unbound ranks (without --fused numa); bound ranks "
                 "keep only the spread of their step preparation")
      ->capture_default_str();
  app.add_option("--straggler-rank", o.straggler_rank,
                 "Plant a straggler: this rank's compute is 15% slower (-1: none)")
      ->capture_default_str();
  app.add_option("--late-rank", o.late_rank,
                 "Plant a late rank: it reaches every step --late-ms late and the others wait for "
                 "it in the step-start collective (-1: none)")
      ->capture_default_str();
  app.add_option("--late-ms", o.late_ms, "How late the --late-rank rank reaches each step")
      ->capture_default_str();
  app.add_option("--tp", o.tp, "Tensor-parallel size: all-reduce after row-parallel matmuls")
      ->check(CLI::Range(1, 64));
  app.add_option("--pp", o.pp, "Pipeline-parallel stages (GPipe schedule; must divide --layers)")
      ->check(CLI::Range(1, 64));
  app.add_option("--ep", o.ep, "Expert-parallel size: a MoE MLP with all-to-all dispatch")
      ->check(CLI::Range(1, 64));
  app.add_flag("--ddp", o.ddp,
               "Data parallelism by gradient all-reduce buckets instead of FSDP (implied by "
               "--tp/--pp/--ep > 1)");
  app.add_option("--slowdown", o.slowdown,
                 "Plant a regression: every compute kernel of every rank takes this many times "
                 "as long (1: none; the regression gate's fixtures, docs/synth.md)")
      ->capture_default_str();
  app.add_option("--slow-op", args->slow_op,
                 "Plant a regression in one operator: TYPE:FACTOR, e.g. MatMulV2:1.2 (its "
                 "kernels take FACTOR times as long), or in one of its shapes: "
                 "TYPE@SHAPES:FACTOR, e.g. MatMulV3@4096,2048;2048,6144:3 (the Input Shapes "
                 "column without its quotes)")
      ->type_name("TYPE:FACTOR");
  app.add_option("--hosts", o.hosts,
                 "Spread the ranks over this many hosts: directories named "
                 "{name}-node{h}_{pid}_{timestamp}_ascend_pt, as torch_npu names them")
      ->capture_default_str();
  app.add_option("--clock-offset", args->clock_offset,
                 "Plant a clock offset: HOST:MS, that host's ranks write every time MS "
                 "milliseconds late (clock alignment's fixture, docs/clusters.md)")
      ->type_name("HOST:MS");
  app.add_flag("--slow-link", o.slow_link,
               "Plant a slow link 0 -> 1 at 10% bandwidth: in communication_matrix.json, and "
               "ranks 0 and 1 take 10x as long for their part of every world-group collective "
               "(a ring runs at its slowest link's pace)");
  app.add_option("--host-bound-rank", o.host_bound_rank,
                 "Plant a host-bound rank: its host issues a kernel at most every --dispatch-us, "
                 "so short kernels leave its device idle (-1: none)")
      ->capture_default_str();
  app.add_option("--dispatch-us", o.dispatch_us,
                 "The --host-bound-rank's issue interval: a kernel starts at least this long "
                 "after the previous one started")
      ->capture_default_str();
  app.add_flag(
      "--trace-view", o.trace_view,
      "Also write ASCEND_PROFILER_OUTPUT/trace_view.json per rank (host ops, launch flows, "
      "device tasks; ~3.5x the size of kernel_details.csv)");
  app.add_flag("--memory", o.memory,
               "Also write memory_record.csv, operator_memory.csv and npu_module_mem.csv per rank "
               "(profile_memory=True): a per-stream pool offset unless the unshard runs on the "
               "compute stream, a peak holder unless the cross-entropy is fused (docs/synth.md)");
  app.add_flag("--with-stack", o.with_stack,
               "Python frames in trace_view.json (torch with_stack=True; implies --trace-view); "
               "ground_truth.json names each pattern's source line");
  app.add_option("--accuracy", args->accuracy,
                 "Write two tensor dumps of a small transformer instead (docs/accuracy.md): "
                 "base/, new/ (msprobe) and base_npy/, new_npy/, NEW with one planted change: "
                 "none, bf16, epsilon, nan or fused")
      ->type_name("PLANT");
  app.add_flag("--accuracy-statistics", args->accuracy_statistics,
               "With --accuracy: msprobe task statistics (dump.json only, no .npy)");
  app.add_option("--accuracy-bench", args->accuracy_bench_mb,
                 "Write two folders of float32 .npy files of about MB megabytes each (benchmark)")
      ->type_name("MB")
      ->check(WholeNumber(1, int64_t{1} << 20));
  return [args] {
    if (args->accuracy_bench_mb > 0) {
      const int64_t elements = int64_t{16} << 20;  // 64 MiB per file
      const int files = static_cast<int>(std::max<int64_t>(1, args->accuracy_bench_mb / 64));
      Result<int64_t> bytes =
          synth::WriteAccuracyBenchDumps(args->out, files, elements, args->options.seed);
      if (!bytes.ok()) return ReportError(bytes.status());
      WriteStdout(fmt::format("wrote {} .npy pairs ({} bytes) to {}/base and {}/new\n", files,
                              *bytes, args->out, args->out));
      return static_cast<int>(kExitSuccess);
    }
    if (!args->accuracy.empty()) {
      synth::AccuracyDumpOptions a;
      a.seed = args->options.seed;
      a.tensors = !args->accuracy_statistics;
      if (Status ok = synth::ParseAccuracyPlant(args->accuracy, &a.plant); !ok.ok()) {
        return ReportError(ok);
      }
      Result<synth::AccuracyDumpResult> done = synth::WriteAccuracyDumps(args->out, a);
      if (!done.ok()) return ReportError(done.status());
      WriteStdout(fmt::format(
          "wrote two dumps of {} tensors to {} (planted: {} {})\n", done->tensors, args->out,
          done->planted_op.empty() ? "nothing" : done->planted_op, done->planted_module));
      return static_cast<int>(kExitSuccess);
    }
    synth::SynthOptions options = args->options;
    if (options.with_stack) options.trace_view = true;
    Status status = ParseHeaderVariant(args->header, &options.header);
    if (status.ok()) status = ApplyFusedList(args->fused, &options);
    if (status.ok() && !args->slow_op.empty()) status = ParseSlowOp(args->slow_op, &options);
    if (status.ok() && !args->clock_offset.empty())
      status = ParseClockOffset(args->clock_offset, &options);
    if (status.ok()) status = synth::WriteSynthJob(options, args->out);
    if (!status.ok()) return ReportError(status);
    WriteStdout(fmt::format("wrote {} rank(s) to {} (ground truth: {}/ground_truth.json)\n",
                            options.ranks, args->out, args->out));
    return static_cast<int>(kExitSuccess);
  };
}

}  // namespace trainscope::cli
