#include "report/json_report.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "report/json_writer.h"
#include "report/sections.h"
#include "report/steps_table.h"
#include "report/units.h"

namespace trainscope::report {
namespace {

// |timeline_used|: false when the step's device timeline is set aside
// (StepDistribution::timeline_set_aside): its span and issue rate are then
// unknown, though counts and durations stand.
void WriteKernels(JsonWriter& w, const analysis::KernelSummary& k, bool timeline_used) {
  // Statistics of no kernels (a step known only from step_trace_time.csv)
  // do not exist: null, not 0; an issue interval needs two kernels.
  auto known = [&w](const char* key, double value, bool exists) {
    if (exists) {
      w.Field(key, value);
    } else {
      w.Key(key).Null();
    }
  };
  const bool any = k.count > 0;
  w.Key("kernels").BeginObject();
  // A rank without any source of device events (kernel_details.csv
  // missing): its kernels are unknown, not absent.
  for (const auto& [key, count] :
       {std::pair{"count", k.count}, std::pair{"compute_count", k.compute_count},
        std::pair{"communication_count", k.communication_count}}) {
    if (k.known) {
      w.Field(key, count);
    } else {
      w.Key(key).Null();
    }
  }
  // Copies and memsets are device events but not kernels; unknown (null)
  // where the source does not record them (kernel_details.csv).
  for (const auto& [key, count] :
       {std::pair{"memcpy_count", k.memcpy_count}, std::pair{"memset_count", k.memset_count}}) {
    if (k.copies_known) {
      w.Field(key, count);
    } else {
      w.Key(key).Null();
    }
  }
  known("memcpy_time_us", Us(k.memcpy_time_ns), k.copies_known);
  known("memset_time_us", Us(k.memset_time_ns), k.copies_known);
  known("span_us", Us(k.span_ns), any && timeline_used);
  known("mean_issue_interval_us", Us(k.mean_issue_interval_ns), k.count > 1 && timeline_used);
  known("total_time_us", Us(k.total_time_ns), k.known);
  known("p50_us", Us(k.p50_ns), any);
  known("p90_us", Us(k.p90_ns), any);
  known("p99_us", Us(k.p99_ns), any);
  known("max_us", Us(k.max_ns), any);
  if (any) {
    w.Key("share_le_50us").Double(k.share_le_50us, 6);
    w.Key("share_le_100us").Double(k.share_le_100us, 6);
  } else {
    w.Key("share_le_50us").Null();
    w.Key("share_le_100us").Null();
  }
  w.EndObject();
}

void OptionalDouble(JsonWriter& w, std::string_view key, const std::optional<double>& value,
                    int decimals = 3) {
  w.Key(key);
  if (value)
    w.Double(*value, decimals);
  else
    w.Null();
}

void WriteShapeRow(JsonWriter& w, const analysis::ShapeEfficiency& r) {
  w.BeginObject();
  w.Field("op_type", r.op_type);
  w.Field("shapes", r.shapes);
  w.Field("dtypes", r.dtypes);
  w.Field("matmul", r.matmul);
  w.Field("count", r.count);
  w.Field("total_us", Us(r.total_ns));
  w.Field("mean_us", MeanUs(r.total_ns, r.count));
  OptionalDouble(w, "gflop_per_call",
                 r.flops ? std::optional<double>(*r.flops / 1e9) : std::nullopt, 6);
  OptionalDouble(w, "mb_per_call", r.bytes ? std::optional<double>(*r.bytes / 1e6) : std::nullopt,
                 6);
  w.Field("bytes_include_output", r.bytes_include_output);
  OptionalDouble(w, "tflops", r.Tflops());
  OptionalDouble(w, "gbps", r.Gbps());
  OptionalDouble(w, "flop_per_byte", r.FlopsPerByte());
  OptionalDouble(w, "peak_tflops", r.peak_tflops);
  OptionalDouble(w, "peak_pct", r.PeakPct(), 2);
  OptionalDouble(w, "yardstick_tflops", r.yardstick_tflops);
  w.Key("yardstick_shape").StringOrNull(r.yardstick_shapes);
  OptionalDouble(w, "relative_pct", r.RelativePct(), 2);
  w.EndObject();
}

void WriteOperatorEfficiency(JsonWriter& w, const std::optional<analysis::OperatorEfficiency>& e) {
  w.Key("operator_efficiency");
  if (!e) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("device").StringOrNull(e->device);
  w.Key("peak_device").StringOrNull(e->peak_device);
  OptionalDouble(w, "peak_gbps", e->peak_gbps);
  w.Field("device_us", Us(e->device_ns));
  w.Field("shaped_us", Us(e->shaped_ns));
  w.Field("matmul_us", Us(e->matmul_ns));
  w.Field("shapes", e->shapes);
  w.Key("rows").BeginArray();
  for (const analysis::ShapeEfficiency& r : e->rows) WriteShapeRow(w, r);
  w.EndArray();
  w.EndObject();
}

void WriteDensity(JsonWriter& w, const analysis::DurationDensity& d) {
  w.Key("density").BeginObject();
  w.Field("bins_per_decade", d.bins_per_decade);
  w.Field("min_us", Us(d.min_ns));
  w.Field("max_us", Us(d.max_ns));
  w.Field("below_min", d.below_min);
  w.Field("above_max", d.above_max);
  w.Key("bins").BeginArray();
  for (const auto& bin : d.bins) {
    w.BeginObject();
    w.Key("lo_us").Double(Us(bin.lo_ns), 4);
    w.Key("hi_us").Double(Us(bin.hi_ns), 4);
    w.Field("count", bin.count);
    w.Key("density_per_decade").Double(bin.density_per_decade, 6);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// Bytes, or null when unknown.
void BytesField(JsonWriter& w, std::string_view key, const std::optional<int64_t>& bytes) {
  if (bytes) {
    w.Field(key, *bytes);
  } else {
    w.Key(key).Null();
  }
}

// The nn.Module time tree (docs/json-schema.md): nodes in pre-order, each
// with its parent's index.
void WriteModuleTree(JsonWriter& w, const std::optional<analysis::ModuleTree>& tree) {
  w.Key("module_tree");
  if (!tree) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Field("kernels", tree->kernels);
  w.Field("outside_kernels", tree->outside_kernels);
  w.Field("outside_us", Us(tree->outside_ns));
  w.Key("nodes").BeginArray();
  for (const analysis::ModuleNode& node : tree->nodes) {
    w.BeginObject();
    w.Field("name", node.name);
    w.Field("parent", static_cast<int64_t>(node.parent));
    w.Field("calls", node.calls);
    w.Field("host_us", Us(node.host_ns));
    w.Field("kernels", node.kernels);
    w.Field("kernel_us", Us(node.kernel_ns));
    w.Key("fingerprints").BeginArray();
    for (const std::string& id : node.fingerprints) w.String(id);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// ranks[].steps[].memory (docs/json-schema.md): sizes in bytes, times in us.
void WriteMemory(JsonWriter& w, const std::optional<analysis::MemoryUsage>& memory) {
  if (!memory) {
    w.Key("memory").Null();
    return;
  }
  const analysis::MemoryUsage& m = *memory;
  w.Key("memory").BeginObject();
  w.Field("window_from", m.window_from);
  w.Field("samples_from", m.samples_from);
  w.Field("window_start_us", Us(m.window_start_ns));
  w.Field("window_end_us", Us(m.window_end_ns));
  w.Field("samples", m.samples);
  BytesField(w, "peak_allocated_bytes", m.peak_allocated_bytes);
  if (m.peak_allocated_ns) {
    w.Field("peak_allocated_at_us", Us(*m.peak_allocated_ns));
  } else {
    w.Key("peak_allocated_at_us").Null();
  }
  BytesField(w, "peak_reserved_bytes", m.peak_reserved_bytes);
  BytesField(w, "gap_at_peak_bytes", m.gap_at_peak_bytes);
  BytesField(w, "gap_min_bytes", m.gap_min_bytes);
  BytesField(w, "gap_mean_bytes", m.gap_mean_bytes);
  BytesField(w, "gap_max_bytes", m.gap_max_bytes);
  BytesField(w, "ge_peak_allocated_bytes", m.ge_peak_allocated_bytes);
  BytesField(w, "ge_peak_reserved_bytes", m.ge_peak_reserved_bytes);
  BytesField(w, "app_peak_reserved_bytes", m.app_peak_reserved_bytes);
  w.Key("streams").BeginArray();
  for (const analysis::StreamMemory& s : m.streams) {
    w.BeginObject();
    w.Field("stream", s.stream);
    w.Field("samples", s.samples);
    w.Field("allocations", s.allocations);
    w.Field("live_at_peak_bytes", s.live_at_peak_bytes);
    w.EndObject();
  }
  w.EndArray();
  BytesField(w, "live_at_peak_bytes", m.live_at_peak_bytes);
  w.Key("top_holders").BeginArray();
  for (const analysis::MemoryHolder& h : m.top_holders) {
    w.BeginObject();
    w.Field("name", h.name);
    w.Field("bytes", h.bytes);
    w.Field("allocations", h.allocations);
    w.EndObject();
  }
  w.EndArray();
  w.Key("modules").BeginArray();
  for (const analysis::ModuleMemory& c : m.modules) {
    w.BeginObject();
    w.Field("component", c.component);
    w.Field("reserved_bytes", c.reserved_bytes);
    w.EndObject();
  }
  w.EndArray();
  BytesField(w, "start_allocated_bytes", m.start_allocated_bytes);
  if (m.backward_start_ns) {
    w.Field("backward_start_us", Us(*m.backward_start_ns));
  } else {
    w.Key("backward_start_us").Null();
  }
  BytesField(w, "backward_allocated_bytes", m.backward_allocated_bytes);
  BytesField(w, "activation_bytes", m.activation_bytes);
  BytesField(w, "elementwise_live_at_peak_bytes", m.elementwise_live_at_peak_bytes);
  BytesField(w, "capacity_bytes", m.capacity_bytes);
  if (m.capacity_from.empty()) {
    w.Key("capacity_from").Null();
  } else {
    w.Field("capacity_from", m.capacity_from);
  }
  BytesField(w, "headroom_bytes", m.headroom_bytes);
  w.EndObject();
}

void WriteStep(JsonWriter& w, const analysis::StepDistribution& step) {
  w.BeginObject();
  if (step.step == model::kNoStep) {
    w.Key("step").Null();
  } else {
    w.Field("step", step.step);
  }
  WriteKernels(w, step.kernels, step.timeline_set_aside.empty());
  if (step.timeline_set_aside.empty()) {
    w.Key("timeline_set_aside").Null();
  } else {
    w.Field("timeline_set_aside", step.timeline_set_aside);
  }
  w.Key("families").BeginArray();
  for (const auto& family : step.families) {
    w.BeginObject();
    w.Field("name", family.name);
    w.Field("count", family.count);
    w.Field("total_us", Us(family.total_ns));
    w.Key("share_count").Double(family.share_count, 6);
    w.Key("share_time").Double(family.share_time, 6);
    w.EndObject();
  }
  w.EndArray();
  w.Key("top_operators").BeginArray();
  for (const auto& op : step.top_operators) {
    w.BeginObject();
    w.Field("type", op.op_type);
    w.Field("family", op.family);
    w.Field("count", op.count);
    w.Field("total_us", Us(op.total_ns));
    w.Field("mean_us", MeanUs(op.total_ns, op.count));
    w.Field("max_us", Us(op.max_ns));
    w.Key("share_time").Double(op.share_time, 6);
    w.Field("type_derived", op.type_derived);
    w.EndObject();
  }
  w.EndArray();
  WriteDensity(w, step.density);
  WriteMotifsJson(w, step);
  if (step.breakdown) {
    const auto& b = step.breakdown->budget;
    w.Key("breakdown").BeginObject();
    w.Field("source", step.breakdown->source);
    w.Field("scope", step.breakdown->scope);
    if (step.breakdown->replaced.empty()) {
      w.Key("replaced").Null();
    } else {
      w.Field("replaced", step.breakdown->replaced);
    }
    w.Field("span", step.breakdown->span);
    w.Field("activities", b.activities);
    w.Field("total_us", Us(b.total_ns));
    if (step.breakdown->host_step_ns) {
      w.Field("host_step_us", Us(*step.breakdown->host_step_ns));
    } else {
      w.Key("host_step_us").Null();
    }
    if (step.breakdown->device_busy_span_ns) {
      w.Field("device_busy_span_us", Us(*step.breakdown->device_busy_span_ns));
    } else {
      w.Key("device_busy_span_us").Null();
    }
    w.Field("busy_us", Us(b.busy_ns));
    w.Field("computation_us", Us(b.computation_ns));
    w.Field("communication_us", Us(b.communication_ns));
    w.Field("exposed_communication_us", Us(b.exposed_communication_ns));
    w.Field("memcpy_us", Us(b.memcpy_ns));
    w.Field("exposed_memcpy_us", Us(b.exposed_memcpy_ns));
    w.Field("memset_us", Us(b.memset_ns));
    w.Field("exposed_memset_us", Us(b.exposed_memset_ns));
    w.Field("idle_us", Us(b.idle_ns));
    w.EndObject();
  } else {
    w.Key("breakdown").Null();
  }
  if (step.host_sync) {
    const auto& s = *step.host_sync;
    w.Key("host_sync").BeginObject();
    w.Field("syncs", s.syncs);
    w.Field("item_calls", s.item_calls);
    w.Field("sync_us", Us(s.sync_ns));
    w.Field("idle_us", Us(s.idle_ns));
    w.Field("blocking_copies", s.blocking_copies);
    w.Key("site").BeginObject();
    if (s.site_op.empty()) {
      w.Key("framework_op").Null();
    } else {
      w.Field("framework_op", s.site_op);
    }
    if (s.site_source.empty()) {
      w.Key("source").Null();
    } else {
      w.Field("source", s.site_source);
    }
    w.Field("idle_us", Us(s.site_idle_ns));
    w.EndObject();
    w.EndObject();
  } else {
    w.Key("host_sync").Null();
  }
  if (step.data_loader) {
    const auto& d = *step.data_loader;
    w.Key("data_loader").BeginObject();
    w.Field("calls", d.calls);
    w.Field("single_process_calls", d.single_process_calls);
    w.Field("loader_us", Us(d.loader_ns));
    w.Field("idle_us", Us(d.idle_ns));
    w.Field("idle_in_window_us", Us(d.idle_in_window_ns));
    w.Field("iteration_us", Us(d.step_ns));
    w.EndObject();
  } else {
    w.Key("data_loader").Null();
  }
  WriteOperatorEfficiency(w, step.operator_efficiency);
  if (step.launch_gaps) {
    const analysis::LaunchGapStats& g = *step.launch_gaps;
    w.Key("launch_gaps").BeginObject();
    w.Field("gaps", g.gaps);
    w.Field("idle_us", Us(g.idle_ns));
    w.Field("gaps_with_launch", g.gaps_with_launch);
    w.Field("launch_bound_gaps", g.launch_bound_gaps);
    w.Field("launch_bound_us", Us(g.launch_bound_ns));
    w.Key("median_launch_delay_us");
    if (g.median_launch_delay_ns) {
      w.Double(Us(*g.median_launch_delay_ns));
    } else {
      w.Null();
    }
    w.EndObject();
  } else {
    w.Key("launch_gaps").Null();
  }
  WriteMemory(w, step.memory);
  WriteModuleTree(w, step.module_tree);
  if (step.step_trace) {
    const auto& t = *step.step_trace;
    w.Key("step_trace").BeginObject();
    w.Field("computing_us", Us(t.computing_ns));
    w.Field("communication_not_overlapped_us", Us(t.communication_not_overlapped_ns));
    w.Field("overlapped_us", Us(t.overlapped_ns));
    w.Field("communication_us", Us(t.communication_ns));
    w.Field("free_us", Us(t.free_ns));
    w.Field("stage_us", Us(t.stage_ns));
    w.Field("bubble_us", Us(t.bubble_ns));
    if (t.preparing_ns) {
      w.Field("preparing_us", Us(*t.preparing_ns));
    } else {
      w.Key("preparing_us").Null();
    }
    w.EndObject();
  } else {
    w.Key("step_trace").Null();
  }
  w.EndObject();
}

void WriteTimelineKernel(JsonWriter& w, const analysis::StepTimeline& t,
                         const analysis::TimelineKernel& kernel) {
  static const char* kLanes[] = {"compute", "comm", "other"};
  w.BeginObject();
  w.Field("start_us", Us(kernel.start_ns));
  w.Field("duration_us", Us(kernel.duration_ns));
  w.Field("lane", kLanes[static_cast<int>(kernel.lane)]);
  w.Field("type", t.Str(kernel.op_type));
  w.Field("family", t.Str(kernel.family));
  w.EndObject();
}

void WriteTimeline(JsonWriter& w, const analysis::StepTimeline& t) {
  w.Key("timeline").BeginObject();
  if (t.step == model::kNoStep) {
    w.Key("step").Null();
  } else {
    w.Field("step", t.step);
  }
  // A set-aside timeline (StepTimeline::set_aside): no number of it exists.
  if (!t.set_aside.empty()) {
    w.Field("set_aside", t.set_aside);
    for (const char* key :
         {"span_us", "lanes", "step_start_idle", "longest_free_gaps", "zooms_centred_on", "zooms"})
      w.Key(key).Null();
    w.EndObject();
    return;
  }
  w.Key("set_aside").Null();
  w.Field("span_us", Us(t.span_ns));
  w.Key("lanes").BeginObject();
  w.Field("compute_us", Us(t.compute_ns));
  w.Field("comm_us", Us(t.comm_ns));
  w.Field("other_us", Us(t.other_ns));
  w.Field("comm_not_overlapped_us", Us(t.comm_not_overlapped_ns));
  w.Field("free_us", Us(t.free_ns));
  w.EndObject();
  w.Key("step_start_idle").BeginObject();
  w.Field("idle_us", Us(t.step_start_idle_ns));
  w.Field("waits_for", t.step_start_waits_for);
  w.Field("collective_us", Us(t.step_start_wait_collective_ns));
  w.EndObject();
  // A step whose picture was not computed (rank_analysis.cc, MayBeShown):
  // its gaps and zooms are unknown, not none.
  if (!t.drawn) {
    w.Key("longest_free_gaps").Null();
    w.Key("zooms_centred_on").Null();
    w.Key("zooms").Null();
    w.EndObject();
    return;
  }
  w.Key("longest_free_gaps").BeginArray();
  for (const auto& gap : t.longest_gaps) {
    w.BeginObject();
    w.Field("start_us", Us(gap.start_ns));
    w.Field("duration_us", Us(gap.duration_ns));
    w.Field("before", gap.before);
    w.Field("after", gap.after);
    w.EndObject();
  }
  w.EndArray();
  w.Field("zooms_centred_on", t.zoom_centre);
  w.Key("zooms").BeginArray();
  for (const auto& zoom : t.zooms) {
    w.BeginObject();
    w.Field("width_us", Us(zoom.width_ns));
    w.Field("start_us", Us(zoom.start_ns));
    w.Field("kernel_count", zoom.kernel_count);
    w.Field("truncated", false);  // kept for schema 1 readers: a window is never cut now
    if (zoom.requested_width_ns > 0) {
      w.Field("requested_width_us", Us(zoom.requested_width_ns));
    } else {
      w.Key("requested_width_us").Null();
    }
    w.Key("kernels").BeginArray();
    for (const auto& kernel : zoom.kernels) WriteTimelineKernel(w, t, kernel);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteInputIssues(JsonWriter& w, const char* key,
                      const std::vector<model::InputIssue>& issues) {
  w.Key(key).BeginArray();
  for (const auto& issue : issues) {
    w.BeginObject();
    w.Field("path", issue.path);
    w.Field("reason", issue.reason);
    w.EndObject();
  }
  w.EndArray();
}

// Only when the inputs are more than one run (one run: no key).
void WriteRuns(JsonWriter& w, const std::vector<analysis::RunSummary>& runs) {
  w.Key("runs").BeginArray();
  for (const auto& run : runs) {
    w.BeginObject();
    w.Field("run", run.number);
    w.Field("analysed", run.analysed);
    w.Key("ranks").BeginArray();
    for (int32_t rank : run.ranks) w.Int(rank);
    w.EndArray();
    w.Key("sources").BeginArray();
    for (const auto& source : run.sources) w.String(source);
    w.EndArray();
    if (run.analysed) {
      w.Key("why_apart").Null();
    } else {
      w.Field("why_apart", run.why_apart);
    }
    w.EndObject();
  }
  w.EndArray();
}

// l2_cache.csv summarised; null when the rank has no such file.
void WriteL2Cache(JsonWriter& w, const std::optional<analysis::L2CacheSummary>& l2) {
  w.Key("l2_cache");
  if (!l2) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Field("tasks", l2->tasks);
  w.Field("tasks_with_hit_rate", l2->tasks_with_hit_rate);
  OptionalDouble(w, "mean_hit_rate", l2->mean_hit_rate, 4);
  OptionalDouble(w, "time_weighted_hit_rate", l2->time_weighted_hit_rate, 4);
  OptionalDouble(w, "mean_victim_rate", l2->mean_victim_rate, 4);
  w.Key("lowest_hit_ops").BeginArray();
  for (const analysis::L2CacheOp& op : l2->lowest_hit_ops) {
    w.BeginObject();
    w.Field("name", op.name);
    w.Field("tasks", op.tasks);
    w.Key("mean_hit_rate").Double(op.mean_hit_rate, 4);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteIngest(JsonWriter& w, const analysis::RankAnalysis& rank) {
  w.Key("ingest").BeginObject();
  w.Key("files").BeginArray();
  for (const auto& file : rank.header.files) {
    w.BeginObject();
    w.Field("file", file.file);
    w.Field("rows_read", file.rows_read);
    w.Field("rows_used", file.rows_used);
    w.Field("rows_skipped", file.rows_skipped);
    w.Key("skipped_by_reason").BeginObject();
    for (const auto& [reason, count] : file.skipped_by_reason) w.Field(reason, count);
    w.EndObject();
    w.Key("notes_by_reason").BeginObject();
    for (const auto& [reason, count] : file.notes_by_reason) w.Field(reason, count);
    w.EndObject();
    w.Key("samples").BeginArray();
    for (const auto& sample : file.samples) {
      w.BeginObject();
      w.Field("line", sample.line);
      w.Field("reason", sample.reason);
      w.Field("detail", sample.detail);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("missing_files").BeginArray();
  for (const auto& missing : rank.header.missing_files) w.String(missing);
  w.EndArray();
  w.Key("warnings").BeginArray();
  for (const auto& warning : rank.header.warnings) w.String(warning);
  w.EndArray();
  w.Key("inventory").BeginArray();
  for (const model::InputFile& file : rank.header.inventory) {
    w.BeginObject();
    w.Field("path", file.path);
    w.Field("read", file.read);
    if (file.read) {
      w.Key("reason").Null();
    } else {
      w.Field("reason", file.reason);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

namespace {

void WriteJobDocument(JsonWriter& w, const analysis::JobAnalysis& job,
                      const std::string& tool_version) {
  w.BeginObject();
  w.Field("schema", kJsonSchema);
  w.Key("tool")
      .BeginObject()
      .Field("name", "trainscope")
      .Field("version", tool_version)
      .EndObject();
  w.Key("inputs").BeginArray();
  for (const auto& input : job.inputs) w.String(input);
  w.EndArray();
  WriteInputIssues(w, "failed_inputs", job.failed_inputs);
  WriteInputIssues(w, "skipped_inputs", job.skipped_inputs);
  if (!job.runs.empty()) WriteRuns(w, job.runs);
  w.Field("platform", model::PlatformKey(job.platform));
  WriteFindingsJson(w, job);
  w.Key("withheld_for_inference").BeginArray();
  for (const std::string& id : job.withheld_for_inference) w.String(id);
  w.EndArray();
  WriteClusterJson(w, job);
  WriteStepsTableJson(w, BuildStepsTable(job));
  w.Key("ranks").BeginArray();
  for (const auto& rank : job.ranks) {
    w.BeginObject();
    w.Field("rank", rank.header.rank);
    w.Field("source", rank.header.source);
    w.Key("capture").BeginObject();
    w.Field("torch_npu_version", rank.header.torch_npu_version);
    w.Field("cann_version", rank.header.cann_version);
    w.Field("profiler_level", rank.header.profiler_level);
    w.Field("platform", model::PlatformKey(rank.header.platform));
    if (rank.header.device_name.empty()) {
      w.Key("device").Null();
    } else {
      w.Field("device", rank.header.device_name);
    }
    w.Key("workload")
        .BeginObject()
        .Field("kind", rank.header.workload)
        .Field("evidence", rank.header.workload_evidence)
        .EndObject();
    w.Field("steps_from", rank.header.steps_from.empty()
                              ? std::string("none (the whole capture is one step)")
                              : rank.header.steps_from);
    w.EndObject();
    if (rank.selected_step == model::kNoStep) {
      w.Key("selected_step").Null();
    } else {
      w.Field("selected_step", rank.selected_step);
    }
    w.Field("selected_step_reason", rank.selected_step_reason);
    w.Key("steps").BeginArray();
    for (const auto& step : rank.steps) WriteStep(w, step);
    w.EndArray();
    WriteTimeline(w, rank.timeline);
    WriteIngest(w, rank);
    WriteL2Cache(w, rank.header.l2_cache);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string RenderJson(const analysis::JobAnalysis& job, const std::string& tool_version) {
  JsonWriter w;
  WriteJobDocument(w, job, tool_version);
  std::string out = w.str();
  out.push_back('\n');
  return out;
}

void StreamJson(const analysis::JobAnalysis& job, const std::string& tool_version,
                const JsonWriter::Sink& sink) {
  JsonWriter w;
  w.StreamTo(sink);
  WriteJobDocument(w, job, tool_version);
  w.Flush();
  sink("\n");
}

}  // namespace trainscope::report
