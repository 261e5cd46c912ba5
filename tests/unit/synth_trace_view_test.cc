// Tests of synth's trace_view.json (SynthOptions::trace_view / with_stack).
//
// Unlike synth_test.cc, these read the file back with trainscope's own
// trace_view reader and run its analyses on it: the device tasks must be
// kernel_details.csv's compute rows, every task must have a launching host
// op, the interval-union breakdown of the trace must reproduce
// step_trace_time.csv, and the source-line attribution must find the Python
// line ground_truth.json names for each planted chain. A plain JSON pass
// (simdjson) checks the torch_npu format details the reader tolerates anyway.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "analysis/motifs/fingerprint_attribution.h"
#include "analysis/step/step_budget.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend/step_trace_reader.h"
#include "formats/trace/trace_view_reader.h"
#include "golden/cli_test_util.h"
#include "model/rank_profile.h"
#include "synth/synth.h"
#include "test_paths.h"

namespace trainscope::synth {
namespace {

using testing::ReadFileBytes;

namespace fs = std::filesystem;

using testing::SynthOutputFile;
using testing::SynthRankDir;
// kernel_details.csv and step_trace_time.csv, then trace_view.json, as the
// rank loader reads them (the trace then adds the timeline only).
model::RankProfile LoadRank(const std::string& job, int rank) {
  model::RankProfile p;
  Status s = formats::ReadKernelDetailsFile(SynthOutputFile(job, rank, "kernel_details.csv"), &p);
  EXPECT_TRUE(s.ok()) << s.message();
  s = formats::ReadStepTraceTimeFile(SynthOutputFile(job, rank, "step_trace_time.csv"), &p);
  EXPECT_TRUE(s.ok()) << s.message();
  s = formats::ReadTraceView(SynthOutputFile(job, rank, "trace_view.json"), &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

const RowLedger* TraceLedger(const model::RankProfile& p) {
  for (const RowLedger& ledger : p.ledgers) {
    if (ledger.file().ends_with("trace_view.json")) return &ledger;
  }
  return nullptr;
}

struct PatternTruth {
  std::string id;
  int64_t instances = 0;  // forward instances per step per rank
  std::vector<std::string> types;
  std::vector<std::string> source_lines;
  std::string module;  // "" when null
};

std::vector<PatternTruth> ReadPatterns(const std::string& job) {
  std::vector<PatternTruth> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.load(job + "/ground_truth.json").get(doc), simdjson::SUCCESS);
  simdjson::dom::array patterns;
  EXPECT_EQ(doc["patterns"].get(patterns), simdjson::SUCCESS);
  for (simdjson::dom::element p : patterns) {
    PatternTruth t;
    std::string_view text;
    EXPECT_EQ(p["id"].get(text), simdjson::SUCCESS);
    t.id = text;
    EXPECT_EQ(p["instances_per_step_per_rank"].get(t.instances), simdjson::SUCCESS);
    simdjson::dom::array list;
    EXPECT_EQ(p["type_sequence"].get(list), simdjson::SUCCESS);
    for (simdjson::dom::element e : list) {
      if (e.get(text) == simdjson::SUCCESS) t.types.emplace_back(text);
    }
    if (p["source_lines"].get(list) == simdjson::SUCCESS) {
      for (simdjson::dom::element e : list) {
        if (e.get(text) == simdjson::SUCCESS) t.source_lines.emplace_back(text);
      }
    }
    if (p["module"].get(text) == simdjson::SUCCESS) t.module = text;
    out.push_back(std::move(t));
  }
  return out;
}

SynthOptions TraceOptions() {
  SynthOptions options;
  options.layers = 4;
  options.steps = 3;
  options.ranks = 2;
  options.trace_view = true;
  options.with_stack = true;
  return options;
}

// One job with stacks for the whole suite (~10 MB); tests that need other
// options write their own small jobs.
class SynthTraceViewTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    job_ = new std::string(testing::MakeTempDir("synth_tv") + "/job");
    const Status status = WriteSynthJob(TraceOptions(), *job_);
    ASSERT_TRUE(status.ok()) << status.message();
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(fs::path(*job_).parent_path(), ec);
    delete job_;
    job_ = nullptr;
  }
  void TearDown() override {
    std::error_code ec;
    for (const std::string& dir : dirs_) fs::remove_all(dir, ec);
  }

  std::string WriteJob(const SynthOptions& options, const std::string& tag) {
    dirs_.push_back(testing::MakeTempDir("synth_tv_" + tag));
    const Status status = WriteSynthJob(options, dirs_.back() + "/job");
    EXPECT_TRUE(status.ok()) << status.message();
    return dirs_.back() + "/job";
  }

  static std::string* job_;

 private:
  std::vector<std::string> dirs_;
};

std::string* SynthTraceViewTest::job_ = nullptr;

TEST_F(SynthTraceViewTest, EveryTaskIsAKernelDetailsRow) {
  for (int rank = 0; rank < TraceOptions().ranks; ++rank) {
    SCOPED_TRACE(rank);
    const model::RankProfile p = LoadRank(*job_, rank);
    ASSERT_TRUE(p.timeline.present);
    const RowLedger* ledger = TraceLedger(p);
    ASSERT_NE(ledger, nullptr);
    EXPECT_GT(ledger->rows_used(), 0);
    EXPECT_EQ(ledger->rows_skipped(), 0) << "the reader skipped events of a synth trace";

    // Every device task of the trace joined a kernel_details.csv row (the
    // join warns about the ones that did not), and every compute row got its
    // launch link through the join.
    for (const std::string& warning : p.warnings)
      EXPECT_EQ(warning.find("device tasks have no row"), std::string::npos) << warning;
    EXPECT_EQ(p.device_events_source, model::DeviceEventsSource::kKernelDetailsCsv);
    size_t compute = 0;
    for (size_t i = 0; i < p.device_events.size(); ++i) {
      if (p.device_events.kind[i] != model::ActivityKind::kCompute) continue;
      ++compute;
      ASSERT_NE(p.device_events.launcher[i], model::kNoIndex) << "row " << i << " not joined";
    }
    ASSERT_GT(compute, 0u);
  }
}

TEST_F(SynthTraceViewTest, LaunchLinksResolveForEveryComputeTask) {
  const SynthOptions options = TraceOptions();
  const model::RankProfile p = LoadRank(*job_, 0);
  const model::Timeline& tl = p.timeline;
  ASSERT_EQ(tl.steps.size(), static_cast<size_t>(options.steps));
  for (int s = 0; s < options.steps; ++s) EXPECT_EQ(tl.steps[s].number, options.first_step + s);

  size_t compute = 0;
  const model::DeviceEvents& events = p.device_events;
  for (size_t a = 0; a < events.size(); ++a) {
    if (events.kind[a] != model::ActivityKind::kCompute) continue;
    ++compute;
    const int32_t op = events.launcher[a];
    ASSERT_NE(op, model::kNoIndex) << "compute task " << a << " has no launching op";
    // The launch op (aclnn*) inside its framework op (aten::* / npu::*), and
    // launched before the task starts.
    EXPECT_EQ(p.strings.Get(tl.host_ops.category[op]), "cpu_op");
    const int32_t framework = tl.host_ops.parent[op];
    ASSERT_NE(framework, model::kNoIndex);
    const std::string_view name = p.strings.Get(tl.host_ops.name[framework]);
    EXPECT_TRUE(name.starts_with("aten::") || name.starts_with("npu::")) << name;
    EXPECT_LE(tl.host_ops.end_ns(static_cast<size_t>(op)), events.start_ns[a]);
  }
  ASSERT_GT(compute, 0u);
  // One torch_to_npu flow per compute task, all resolved; torch_npu's ids
  // are the task start in ns, far beyond 2^53.
  EXPECT_EQ(tl.flows.size(), compute);
  size_t beyond_double = 0;
  for (const model::Flow& flow : tl.flows) {
    EXPECT_NE(flow.host_op, model::kNoIndex);
    EXPECT_NE(flow.activity, model::kNoIndex);
    if (static_cast<uint64_t>(flow.id) > (uint64_t{1} << 53)) ++beyond_double;
  }
  EXPECT_EQ(beyond_double, tl.flows.size());
}

TEST_F(SynthTraceViewTest, TraceBreakdownReproducesStepTraceTime) {
  const SynthOptions options = TraceOptions();
  double worst = 0.0;
  for (int rank = 0; rank < options.ranks; ++rank) {
    SCOPED_TRACE(rank);
    const model::RankProfile p = LoadRank(*job_, rank);
    ASSERT_EQ(p.step_trace.size(), static_cast<size_t>(options.steps));
    for (const model::StepTraceRow& row : p.step_trace) {
      SCOPED_TRACE(row.step);
      // The product's per-step budget, over the kernel_details.csv rows the
      // trace joined.
      const auto budget = analysis::ComputeStepBudget(p, row.step);
      ASSERT_TRUE(budget.has_value());
      ASSERT_EQ(budget->source, "kernel_details.csv");
      const analysis::TimeBudget& b = budget->budget;
      const std::pair<int64_t, int64_t> pairs[] = {
          {b.computation_ns, row.computing_ns},
          {b.exposed_communication_ns, row.communication_not_overlapped_ns},
          {b.idle_ns, row.free_ns},
          {b.total_ns, row.stage_ns}};
      for (const auto& [trace, csv] : pairs) {
        ASSERT_GT(csv, 0);
        const double rel = std::abs(static_cast<double>(trace - csv)) / static_cast<double>(csv);
        worst = std::max(worst, rel);
        EXPECT_LE(rel, 0.005) << trace << " vs " << csv;
      }

      // The Overlap Analysis segments inside the step window add up to the
      // same columns.
      int64_t sums[4] = {0, 0, 0, 0};
      for (const model::OverlapSegment& seg : p.timeline.overlap) {
        if (seg.start_ns >= b.window_start_ns && seg.start_ns < b.window_end_ns) {
          sums[static_cast<int>(seg.kind)] += seg.duration_ns;
        }
      }
      EXPECT_EQ(sums[static_cast<int>(model::OverlapKind::kComputing)], row.computing_ns);
      EXPECT_EQ(sums[static_cast<int>(model::OverlapKind::kCommunication)], row.communication_ns);
      EXPECT_EQ(sums[static_cast<int>(model::OverlapKind::kCommunicationNotOverlapped)],
                row.communication_not_overlapped_ns);
      EXPECT_EQ(sums[static_cast<int>(model::OverlapKind::kFree)], row.free_ns);
    }
  }
  RecordProperty("worst_relative_difference_ppm", static_cast<int>(worst * 1e6));
}

// Every planted forward instance of a pattern with a source line is
// attributed to that line; matches of the same type sequence elsewhere (the
// RMSNorm chain inside the gated norm, Swish+Mul inside it) go to their own
// frames, so the count is exact.
TEST_F(SynthTraceViewTest, AttributionFindsThePlantedSourceLines) {
  const SynthOptions options = TraceOptions();
  const std::vector<PatternTruth> patterns = ReadPatterns(*job_);
  const model::RankProfile p = LoadRank(*job_, 0);
  const analysis::HostAttributor attributor(p);
  ASSERT_TRUE(attributor.available());

  std::map<int32_t, std::vector<size_t>> compute_by_step;
  for (size_t i = 0; i < p.device_events.size(); ++i) {
    if (p.device_events.kind[i] == model::ActivityKind::kCompute)
      compute_by_step[p.device_events.step[i]].push_back(i);
  }
  ASSERT_EQ(compute_by_step.size(), static_cast<size_t>(options.steps));

  std::set<std::string> checked;
  std::set<std::string> lines;
  for (const PatternTruth& t : patterns) {
    // Compute chains have a source line; the communication patterns
    // (pseudo-overlap, step-start skew) have none.
    const bool comm = std::any_of(t.types.begin(), t.types.end(), [](const std::string& type) {
      return type.starts_with("hcom_");
    });
    EXPECT_EQ(t.source_lines.empty(), comm) << t.id;
    if (t.source_lines.empty()) continue;
    SCOPED_TRACE(t.id);
    ASSERT_GT(t.instances, 0);
    ASSERT_FALSE(t.types.empty());
    lines.insert(t.source_lines.front());
    int64_t attributed = 0;
    for (const auto& [step, rows] : compute_by_step) {
      for (size_t i = 0; i + t.types.size() <= rows.size(); ++i) {
        bool match = true;
        for (size_t k = 0; k < t.types.size() && match; ++k) {
          match = p.strings.Get(p.device_events.op_type[rows[i + k]]) == t.types[k];
        }
        if (!match) continue;
        std::vector<int64_t> starts;
        for (size_t k = 0; k < t.types.size(); ++k)
          starts.push_back(p.device_events.start_ns[rows[i + k]]);
        const analysis::HostAttribution a = attributor.Attribute(starts);
        if (a.source != t.source_lines.front()) continue;
        ++attributed;
        if (!t.module.empty()) {
          EXPECT_TRUE(a.framework_op.starts_with("nn.Module: " + t.module + "_")) << a.framework_op;
        }
      }
    }
    EXPECT_EQ(attributed, t.instances * options.steps);
    checked.insert(t.id);
  }
  EXPECT_TRUE(checked.count("unfused-rmsnorm")) << "no source line for the RMSNorm chain";
  EXPECT_EQ(lines.size(), checked.size()) << "two patterns share a source line";
}

TEST_F(SynthTraceViewTest, WithoutStacksThereIsNoSourceLine) {
  SynthOptions options = TraceOptions();
  options.with_stack = false;
  options.layers = 2;
  options.steps = 1;
  options.ranks = 1;
  const std::string job = WriteJob(options, "nostack");
  const std::vector<PatternTruth> patterns = ReadPatterns(job);
  for (const PatternTruth& t : patterns) EXPECT_TRUE(t.source_lines.empty()) << t.id;
  const model::RankProfile p = LoadRank(job, 0);
  const analysis::HostAttributor attributor(p);
  ASSERT_TRUE(attributor.available());  // launch links without Python frames
  std::vector<int64_t> starts;
  for (size_t i = 0; i < p.device_events.size() && starts.size() < 8; ++i) {
    if (p.device_events.kind[i] == model::ActivityKind::kCompute)
      starts.push_back(p.device_events.start_ns[i]);
  }
  const analysis::HostAttribution a = attributor.Attribute(starts);
  EXPECT_EQ(a.source, "");
  EXPECT_FALSE(a.framework_op.empty());
}

TEST_F(SynthTraceViewTest, SameSeedSameBytesAndOtherFilesUnchanged) {
  SynthOptions options = TraceOptions();
  options.layers = 2;
  options.steps = 2;
  const std::string a = WriteJob(options, "det_a");
  const std::string b = WriteJob(options, "det_b");
  options.trace_view = false;
  options.with_stack = false;
  const std::string plain = WriteJob(options, "plain");
  for (int rank = 0; rank < options.ranks; ++rank) {
    const std::string trace = ReadFileBytes(SynthOutputFile(a, rank, "trace_view.json"));
    ASSERT_GT(trace.size(), 100000u);
    EXPECT_TRUE(trace == ReadFileBytes(SynthOutputFile(b, rank, "trace_view.json")));
    EXPECT_FALSE(fs::exists(SynthOutputFile(plain, rank, "trace_view.json")));
    for (const char* file : {"kernel_details.csv", "step_trace_time.csv", "op_statistic.csv",
                             "communication.json", "communication_matrix.json"}) {
      EXPECT_TRUE(ReadFileBytes(SynthOutputFile(a, rank, file)) ==
                  ReadFileBytes(SynthOutputFile(plain, rank, file)))
          << file << " changes with trace_view";
    }
  }
  EXPECT_EQ(ReadFileBytes(a + "/ground_truth.json"), ReadFileBytes(b + "/ground_truth.json"));
}

// The torch_npu format details, checked on the JSON itself: a top-level
// array, ts as a string with 3 decimals, dur a number, every pid named by
// process_name, flows with bp "e" and integer ids, NPU labels "NPU <id>".
TEST_F(SynthTraceViewTest, FileFollowsTheTorchNpuFormat) {
  const std::string text = ReadFileBytes(SynthOutputFile(*job_, 1, "trace_view.json"));
  ASSERT_TRUE(text.starts_with("[{") && text.ends_with("}]"));
  simdjson::dom::parser parser;
  simdjson::dom::array events;
  ASSERT_EQ(parser.parse(text).get(events), simdjson::SUCCESS);
  std::map<uint64_t, std::string> process_name;
  std::map<uint64_t, std::string> labels;
  std::set<uint64_t> used;
  std::set<std::string> task_types;
  size_t tasks = 0, flow_starts = 0, flow_ends = 0;
  for (simdjson::dom::element e : events) {
    std::string_view ph, name;
    uint64_t pid = 0;
    ASSERT_EQ(e["ph"].get(ph), simdjson::SUCCESS);
    ASSERT_EQ(e["pid"].get(pid), simdjson::SUCCESS);
    ASSERT_EQ(e["name"].get(name), simdjson::SUCCESS);
    if (ph == "M") {
      std::string_view value;
      if (name == "process_name" && e["args"]["name"].get(value) == simdjson::SUCCESS)
        process_name[pid] = value;
      if (name == "process_labels" && e["args"]["labels"].get(value) == simdjson::SUCCESS)
        labels[pid] = value;
      continue;
    }
    used.insert(pid);
    std::string_view ts;
    ASSERT_EQ(e["ts"].get(ts), simdjson::SUCCESS) << "ts must be a string";
    const size_t dot = ts.find('.');
    ASSERT_NE(dot, std::string_view::npos) << ts;
    ASSERT_EQ(ts.size() - dot - 1, 3u) << ts;
    ASSERT_EQ(ts.find_first_not_of("0123456789."), std::string_view::npos) << ts;
    if (ph == "X") {
      double dur = -1;
      ASSERT_EQ(e["dur"].get(dur), simdjson::SUCCESS);
      EXPECT_GE(dur, 0.0);
      std::string_view type;
      if (e["args"]["Task Type"].get(type) == simdjson::SUCCESS) {
        task_types.emplace(type);
        ++tasks;
      }
    } else {
      ASSERT_TRUE(ph == "s" || ph == "f") << ph;
      std::string_view bp, cat;
      uint64_t id = 0;
      ASSERT_EQ(e["bp"].get(bp), simdjson::SUCCESS);
      EXPECT_EQ(bp, "e");
      ASSERT_EQ(e["cat"].get(cat), simdjson::SUCCESS);
      EXPECT_EQ(cat, "async_npu");
      EXPECT_EQ(name, "torch_to_npu");
      ASSERT_EQ(e["id"].get(id), simdjson::SUCCESS) << "flow id must be an integer";
      ++(ph == "s" ? flow_starts : flow_ends);
    }
  }
  ASSERT_GT(tasks, 0u);
  EXPECT_EQ(flow_starts, tasks);  // one launch flow per device task
  EXPECT_EQ(flow_ends, tasks);
  for (uint64_t pid : used) EXPECT_TRUE(process_name.count(pid)) << "pid " << pid << " unnamed";
  std::set<std::string> names;
  for (const auto& [pid, name] : process_name) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"Python", "Ascend Hardware", "Communication",
                                          "Overlap Analysis"}));
  for (const auto& [pid, name] : process_name) {
    // Rank 1 runs on device 1.
    EXPECT_EQ(labels[pid], name == "Python" ? "CPU" : "NPU 1") << name;
  }
  EXPECT_EQ(task_types, (std::set<std::string>{"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV"}));
}

// Older generations: process "HCCL", plain "NPU" labels (device from the
// pid), "Stream Id" in the 2023 task args; the reader still gets everything.
TEST_F(SynthTraceViewTest, OlderHeaderVariantsAreReadToo) {
  for (HeaderVariant variant : {HeaderVariant::kLevel1_2025, HeaderVariant::kLegacy2023}) {
    SCOPED_TRACE(static_cast<int>(variant));
    SynthOptions options = TraceOptions();
    options.header = variant;
    options.layers = 2;
    options.steps = 1;
    options.ranks = 1;
    const std::string job = WriteJob(options, "variant");
    EXPECT_NE(ReadFileBytes(SynthOutputFile(job, 0, "trace_view.json"))
                  .find(R"("args": {"name": "HCCL"})"),
              std::string::npos);
    const model::RankProfile p = LoadRank(job, 0);
    size_t compute_rows = 0, comm_rows = 0, compute_tasks = 0, comm_tasks = 0, unlinked = 0;
    for (size_t i = 0; i < p.device_events.size(); ++i) {
      compute_rows += p.device_events.kind[i] == model::ActivityKind::kCompute;
      comm_rows += p.device_events.kind[i] == model::ActivityKind::kCommunication;
    }
    for (size_t a = 0; a < p.device_events.size(); ++a) {
      compute_tasks += p.device_events.kind[a] == model::ActivityKind::kCompute;
      comm_tasks += p.device_events.kind[a] == model::ActivityKind::kCommunication;
      EXPECT_EQ(p.device_events.device[a], 0);
      unlinked += p.device_events.kind[a] == model::ActivityKind::kCompute &&
                  p.device_events.launcher[a] == model::kNoIndex;
    }
    EXPECT_EQ(compute_tasks, compute_rows);
    EXPECT_EQ(comm_tasks, comm_rows);
    EXPECT_GT(comm_rows, 0u);
    EXPECT_EQ(unlinked, 0u);
  }
}

TEST_F(SynthTraceViewTest, WithStackNeedsTraceView) {
  SynthOptions options = TraceOptions();
  options.trace_view = false;
  const std::string dir = testing::MakeTempDir("synth_tv_bad");
  EXPECT_FALSE(WriteSynthJob(options, dir + "/job").ok());
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// The CLI: --with-stack implies --trace-view, and analyze reads the job,
// attributing the RMSNorm motif to the line ground_truth.json names.
TEST_F(SynthTraceViewTest, AnalyzeCliAttributesTheRmsNormChain) {
  const std::string dir = testing::MakeTempDir("synth_tv_cli");
  const std::string job = dir + "/job";
  testing::CommandResult synth = testing::RunTrainscope(
      {"synth", "--out", job, "--ranks", "2", "--layers", "2", "--steps", "2", "--with-stack"});
  ASSERT_EQ(synth.exit_code, 0) << synth.err;
  ASSERT_TRUE(fs::exists(SynthOutputFile(job, 0, "trace_view.json")));
  std::string rmsnorm_line;
  for (const PatternTruth& t : ReadPatterns(job)) {
    if (t.id == "unfused-rmsnorm" && !t.source_lines.empty()) rmsnorm_line = t.source_lines.front();
  }
  ASSERT_FALSE(rmsnorm_line.empty());

  testing::CommandResult result = testing::RunTrainscope({"analyze", job, "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(result.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array ranks;
  ASSERT_EQ(doc["ranks"].get(ranks), simdjson::SUCCESS);
  ASSERT_EQ(ranks.size(), 2u);
  for (simdjson::dom::element rank : ranks) {
    simdjson::dom::array steps;
    ASSERT_EQ(rank["steps"].get(steps), simdjson::SUCCESS);
    ASSERT_EQ(steps.size(), 2u);
    for (simdjson::dom::element step : steps) {
      std::string_view source;
      ASSERT_EQ(step["breakdown"]["source"].get(source), simdjson::SUCCESS);
      EXPECT_EQ(source, "kernel_details.csv");  // the trace joined onto its rows
      simdjson::dom::array motifs;
      ASSERT_EQ(step["motifs"].get(motifs), simdjson::SUCCESS);
      bool found = false;
      for (simdjson::dom::element motif : motifs) {
        std::string_view fingerprint, variant, line;
        if (motif["fingerprint"].get(fingerprint) != simdjson::SUCCESS) continue;
        if (fingerprint != "unfused-rmsnorm") continue;
        ASSERT_EQ(motif["variant"].get(variant), simdjson::SUCCESS);
        if (variant != "fwd") continue;
        ASSERT_EQ(motif["source"].get(line), simdjson::SUCCESS);
        EXPECT_EQ(line, rmsnorm_line);
        found = true;
      }
      EXPECT_TRUE(found);
    }
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace trainscope::synth
