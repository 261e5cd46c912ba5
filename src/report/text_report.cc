#include "report/text_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "core/rank_ranges.h"
#include "core/safe_text.h"
#include "model/kernel_names.h"
#include "report/sections.h"
#include "report/steps_table.h"
#include "report/text_table.h"
#include "report/units.h"

namespace trainscope::report {
namespace {

// Profile strings shown in the report: no control byte reaches the terminal.
std::string T(std::string_view text) { return TerminalSafe(text); }

// The last line of defence, over the whole report: every control byte and
// ill-formed UTF-8 sequence that a section let through (a profile string
// not wrapped in T()) is escaped; '\n' stays, and with colour only the
// exact SGR sequences the report itself writes (bold, dim, yellow, reset),
// which cannot move the cursor or talk to the terminal.
std::string TerminalSafeReport(std::string_view text, bool color) {
  static constexpr std::string_view kOwnSequences[] = {"\033[0m", "\033[1m", "\033[2m", "\033[33m"};
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t esc = text.find('\033', i);
    if (esc == std::string_view::npos) esc = text.size();
    // ESC is ASCII: cutting there never splits a UTF-8 sequence.
    AppendTerminalSafe(&out, text.substr(i, esc - i), /*keep_newlines=*/true);
    i = esc;
    if (i >= text.size()) break;
    bool own = false;
    if (color) {
      for (std::string_view seq : kOwnSequences) {
        if (text.substr(i, seq.size()) == seq) {
          out.append(seq);
          i += seq.size();
          own = true;
          break;
        }
      }
    }
    if (!own) {
      out.append("\\x1b");
      ++i;
    }
  }
  return out;
}

class Styler {
 public:
  explicit Styler(bool color) : color_(color) {}
  std::string Bold(const std::string& text) const { return Wrap("1", text); }
  std::string Dim(const std::string& text) const { return Wrap("2", text); }
  std::string Warn(const std::string& text) const { return Wrap("33", text); }

 private:
  std::string Wrap(const char* code, const std::string& text) const {
    return color_ ? fmt::format("\033[{}m{}\033[0m", code, text) : text;
  }
  bool color_;
};

TextTableOptions TableOptions(const Styler& s, int width) {
  TextTableOptions options;
  options.width = width;
  options.header_style = [&s](const std::string& text) { return s.Bold(text); };
  return options;
}

// One character per density bin; the tallest bin is a full block.
std::string Sparkline(const analysis::DurationDensity& density) {
  static const char* kBlocks[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  double peak = 0;
  for (const auto& bin : density.bins) peak = std::max(peak, bin.density_per_decade);
  std::string line;
  for (const auto& bin : density.bins) {
    int level = 0;
    if (peak > 0 && bin.count > 0) {
      level = std::max(1, static_cast<int>(std::lround(bin.density_per_decade / peak * 8)));
    }
    line += kBlocks[level];
  }
  return line;
}

// "n/a" for an unknown number, never 0.
std::string Opt(const std::optional<double>& value, const char* spec) {
  return value ? fmt::format(fmt::runtime(spec), *value) : std::string("n/a");
}

// The step's top matmul shapes by time (operator_efficiency): achieved
// TFLOP/s, against the device's datasheet peak and against the step's best
// large matmul shape of the same dtype. Nothing when no matmul has shapes.
void RenderMatmulShapes(std::string& out, const analysis::StepDistribution& step, const Styler& s,
                        int width) {
  if (!step.operator_efficiency) return;
  const analysis::OperatorEfficiency& e = *step.operator_efficiency;
  std::vector<const analysis::ShapeEfficiency*> rows;
  for (const auto& row : e.rows) {
    if (row.matmul && rows.size() < 5) rows.push_back(&row);
  }
  if (rows.empty()) return;
  out += "\n";
  const std::vector<TextColumn> columns = {
      {.header = "top matmul shapes", .left = true},
      {.header = "input shapes", .left = true, .elastic = true, .min_width = 14},
      {.header = "calls", .drop_order = 3},
      {.header = "total"},
      {.header = "TFLOP/s"},
      {.header = "% peak", .drop_order = 2},
      {.header = "% best", .drop_order = 1}};
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (const analysis::ShapeEfficiency* row : rows) {
    cells.push_back({model::ElideName(T(row->op_type), 24), T(row->shapes), FormatCount(row->count),
                     FormatDurationNs(row->total_ns), Opt(row->Tflops(), "{:.1f}"),
                     Opt(row->PeakPct(), "{:.1f}%"), Opt(row->RelativePct(), "{:.0f}%")});
  }
  out += RenderTextTable(columns, cells, TableOptions(s, width));
  out += s.Dim(fmt::format("  matmuls {} of {} device time; % peak of {}; % best of the step's "
                           "fastest large matmul shape of the same dtype",
                           FormatDurationNs(e.matmul_ns), FormatDurationNs(e.device_ns),
                           e.peak_device.empty()
                               ? std::string("n/a (device not in the datasheet table)")
                               : T(e.peak_device))) +
         "\n";
}

// Where the profiler's own step accounting was read: step_trace_time.csv
// of the text export, analysis.db's StepTraceTime table, or else the
// sums of the rank database's OVERLAP_ANALYSIS (the file health lists the
// one read).
std::string StepTraceSource(const analysis::RankHeader& header) {
  for (const analysis::FileHealth& f : header.files) {
    std::string name = std::filesystem::path(f.file).filename().string();
    if (name == "step_trace_time.csv") return name;
    constexpr std::string_view kTable = ":StepTraceTime";
    if (name.size() > kTable.size() && name.ends_with(kTable)) return name;
  }
  // A .db rank without analysis.db's table: the sums of OVERLAP_ANALYSIS.
  for (const analysis::FileHealth& f : header.files) {
    std::string name = std::filesystem::path(f.file).filename().string();
    if (name.ends_with(":OVERLAP_ANALYSIS")) return name;
  }
  return "step_trace_time.csv";
}

// The step's memory: peaks and gap, then activation memory, headroom and
// the driver's largest components (n/a when unknown).
std::string MemoryLines(const analysis::MemoryUsage& m) {
  std::string out;
  auto gib = [](const std::optional<int64_t>& bytes) {
    return bytes ? fmt::format("{:.2f} GiB", static_cast<double>(*bytes) / (1 << 30))
                 : std::string("n/a");
  };
  out += fmt::format(
      "  memory      peak allocated {}, reserved {}; reserved - allocated {} at the peak (min "
      "{}, mean {}){}{}  [{}]\n",
      gib(m.peak_allocated_bytes), gib(m.peak_reserved_bytes), gib(m.gap_at_peak_bytes),
      gib(m.gap_min_bytes), gib(m.gap_mean_bytes),
      m.streams.empty()
          ? std::string()
          : fmt::format("; {} stream pool{}", m.streams.size(), m.streams.size() == 1 ? "" : "s"),
      m.top_holders.empty() ? std::string()
                            : fmt::format("; top holder {} ({})", T(m.top_holders[0].name),
                                          gib(m.top_holders[0].bytes)),
      m.samples_from);
  // Activation memory and headroom: n/a when the phases or the device's
  // capacity are unknown; the driver's largest components.
  std::string modules;
  for (size_t i = 0; i < m.modules.size() && i < 3; ++i) {
    modules += fmt::format("{}{} {}", i == 0 ? "; components " : ", ", T(m.modules[i].component),
                           gib(m.modules[i].reserved_bytes));
  }
  out += fmt::format("              activation {}, headroom {}{}{}\n", gib(m.activation_bytes),
                     gib(m.headroom_bytes),
                     m.capacity_from.empty()
                         ? std::string()
                         : fmt::format(" of {} ({})", gib(m.capacity_bytes), m.capacity_from),
                     modules);
  return out;
}

// Span and issue rate are times on the device timeline: n/a when it is set
// aside; an issue rate needs two kernels.
std::string TextBusySpan(const analysis::StepDistribution& step) {
  return step.timeline_set_aside.empty() ? FormatDurationNs(step.kernels.span_ns)
                                         : std::string("n/a (timeline set aside)");
}
std::string TextIssueInterval(const analysis::StepDistribution& step) {
  return step.timeline_set_aside.empty() && step.kernels.count > 1
             ? FormatDurationNs(step.kernels.mean_issue_interval_ns)
             : std::string("n/a");
}

void RenderRankHeader(std::string& out, const analysis::RankAnalysis& rank, const Styler& s,
                      int width) {
  // A path wider than the terminal keeps its end (the rank's own folder).
  std::string source = T(rank.header.source);
  const size_t columns = VisibleColumns(source);
  if (width > 12 && columns + 2 > static_cast<size_t>(width)) {
    const size_t drop = columns + 3 - static_cast<size_t>(width);
    source = "…" + source.substr(CutToColumns(source, drop).size());
  }
  out += fmt::format("  {}\n", s.Dim(source));
  out += fmt::format("  platform:    {}{}\n", model::PlatformLabel(rank.header.platform),
                     rank.header.device_name.empty() ? "" : ", " + T(rank.header.device_name));
  out += fmt::format(
      "  workload:    {}{}\n", rank.header.workload,
      rank.header.workload_evidence.empty() ? "" : " (" + T(rank.header.workload_evidence) + ")");
  out += fmt::format("  step chosen: {}\n", T(rank.selected_step_reason));
  if (!rank.header.steps_from.empty() &&
      rank.header.steps_from.find("Step Id column") == std::string::npos) {
    out += fmt::format("  steps from:  {}\n", T(rank.header.steps_from));
  }
}

// "  time        383.6 ms device busy span: computation ...": where the
// step's time goes.
std::string TimeLine(const analysis::StepDistribution& step) {
  const auto& b = step.breakdown->budget;
  auto pct = [&](int64_t ns) {
    return b.total_ns ? FormatPercent(static_cast<double>(ns) / b.total_ns) : "-";
  };
  const analysis::StepBudget& sb = *step.breakdown;
  // What the step's time is: an iteration names its host step beside it.
  std::string span =
      sb.span == analysis::kSpanIteration
          ? fmt::format("{} iteration (host step {})", FormatDurationNs(b.total_ns),
                        sb.host_step_ns ? FormatDurationNs(*sb.host_step_ns) : std::string("n/a"))
          : fmt::format("{} {}", FormatDurationNs(b.total_ns), sb.span);
  return fmt::format(
      "  time        {}: computation {} ({}), communication {} (exposed {}, {}), idle {} "
      "({})  "
      "[{}]\n",
      span, FormatDurationNs(b.computation_ns), pct(b.computation_ns),
      FormatDurationNs(b.communication_ns), FormatDurationNs(b.exposed_communication_ns),
      pct(b.exposed_communication_ns), FormatDurationNs(b.idle_ns), pct(b.idle_ns),
      step.breakdown->source);
}

// The step's |rows| operators of most time.
void RenderTopOperators(std::string& out, const analysis::StepDistribution& step, const Styler& s,
                        int width, size_t rows) {
  const std::vector<TextColumn> op_columns = {
      {.header = "top operators by time", .left = true, .elastic = true, .min_width = 21},
      {.header = "family", .left = true, .drop_order = 2},
      {.header = "count", .drop_order = 3},
      {.header = "total"},
      {.header = "mean", .drop_order = 1},
      {.header = "share"}};
  std::vector<std::vector<std::string>> op_cells;
  const size_t shown_ops = std::min<size_t>(step.top_operators.size(), rows);
  bool derived = false;
  for (size_t row = 0; row < shown_ops; ++row) {
    const auto& op = step.top_operators[row];
    // A type the export does not give is marked: it is a guess from the name.
    derived = derived || op.type_derived;
    op_cells.push_back({T(op.op_type) + (op.type_derived ? "*" : ""), T(op.family),
                        FormatCount(op.count), FormatDurationNs(op.total_ns),
                        FormatDurationUs(MeanUs(op.total_ns, op.count)),
                        FormatPercent(op.share_time)});
  }
  out += RenderTextTable(op_columns, op_cells, TableOptions(s, width));
  if (derived) {
    out += s.Dim(
               "  * op type derived from the kernel name: the export gives none (Level0), "
               "and Level1 may type it otherwise (ReduceSumD for ReduceSum)") +
           "\n";
  }
}

// The selected step of the rank in depth: kernels, time, memory, density,
// families, top operators and matmul shapes.
void RenderStepDetail(std::string& out, const analysis::RankAnalysis& rank,
                      const analysis::StepDistribution& selected, const Styler& s, int width) {
  const analysis::StepDistribution* step = &selected;
  const auto& k = step->kernels;
  // No kernels in the step (a rank with only step_trace_time.csv): the
  // kernel statistics are unknown, not zero.
  const bool has_kernels = k.count > 0;
  out += "\n";
  if (has_kernels) {
    out += fmt::format(
        "  kernels     {} ({} compute, {} communication) in a device busy span of {}; one "
        "issued every {}\n",
        FormatCount(k.count), FormatCount(k.compute_count), FormatCount(k.communication_count),
        TextBusySpan(*step), TextIssueInterval(*step));
    out += fmt::format("  durations   p50 {}   p90 {}   p99 {}   max {}\n",
                       FormatDurationNs(k.p50_ns), FormatDurationNs(k.p90_ns),
                       FormatDurationNs(k.p99_ns), FormatDurationNs(k.max_ns));
    out += fmt::format("  small       {} of kernels ≤ 50 µs, {} ≤ 100 µs\n",
                       FormatPercent(k.share_le_50us), FormatPercent(k.share_le_100us));
  } else {
    out +=
        "  kernels     n/a: no device kernels in this step (durations, families and operators "
        "need kernel_details.csv or a trace)\n";
  }
  if (k.memcpy_count + k.memset_count > 0) {
    out += fmt::format("  copies      {} memcpy ({}), {} memset ({}); not counted as kernels\n",
                       FormatCount(k.memcpy_count), FormatDurationNs(k.memcpy_time_ns),
                       FormatCount(k.memset_count), FormatDurationNs(k.memset_time_ns));
  }
  if (step->step_trace) {
    const auto& t = *step->step_trace;
    out += fmt::format(
        "  profiler    computing {}, communication {} (not overlapped {}), free {}  [{}]\n",
        FormatDurationNs(t.computing_ns), FormatDurationNs(t.communication_ns),
        FormatDurationNs(t.communication_not_overlapped_ns), FormatDurationNs(t.free_ns),
        T(StepTraceSource(rank.header)));
  }
  if (step->breakdown) out += TimeLine(*step);
  if (step->memory && step->memory->peak_allocated_bytes) out += MemoryLines(*step->memory);
  const analysis::StepTimeline& timeline = rank.timeline;
  if (timeline.step_start_idle_ns > 0) {
    out += fmt::format("  step start  compute idle for {} after the step starts{}\n",
                       FormatDurationNs(timeline.step_start_idle_ns),
                       timeline.step_start_waits_for.empty()
                           ? std::string()
                           : fmt::format(", waiting for {} ({})", T(timeline.step_start_waits_for),
                                         FormatDurationNs(timeline.step_start_wait_collective_ns)));
  }
  if (!has_kernels) return;
  std::string density = fmt::format("  density     1µs |{}| 1s", Sparkline(step->density));
  // The legend only where it fits beside the sparkline; on a narrow
  // terminal the label moves closer to the sparkline.
  constexpr std::string_view kDensityLegend = "   (log-log, kernels per decade)";
  const auto columns = static_cast<size_t>(std::max(width, 0));
  if (width <= 0 || VisibleColumns(density) + kDensityLegend.size() <= columns) {
    density += kDensityLegend;
  } else if (VisibleColumns(density) > columns) {
    density = fmt::format("  density 1µs |{}| 1s", Sparkline(step->density));
  }
  out += density + "\n";

  out += "\n";
  // A family counts device events: kernels, and the copies and memsets
  // the 'copies' line counts apart, so its rows add up to both lines.
  out += s.Bold(fmt::format("  {:<26} {:>9} {:>7} {:>11} {:>7}", "family", "events", "share",
                            "time", "share")) +
         "\n";
  std::vector<analysis::FamilyStat> families = step->families;
  std::stable_sort(families.begin(), families.end(),
                   [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  for (const auto& family : families) {
    if (family.count == 0) continue;
    out += fmt::format("  {:<26} {:>9} {:>7} {:>11} {:>7}\n", T(family.name),
                       FormatCount(family.count), FormatPercent(family.share_count),
                       FormatDurationNs(family.total_ns), FormatPercent(family.share_time));
  }

  out += "\n";
  RenderTopOperators(out, *step, s, width, 10);
  RenderMatmulShapes(out, *step, s, width);
}

// |brief| (--top): the rank's header, its time line and its top five
// operators, what fits one screen after the findings.
void RenderRankDetail(std::string& out, const analysis::RankAnalysis& rank, const Styler& s,
                      int width, bool brief) {
  std::string capture;
  if (!rank.header.torch_npu_version.empty())
    capture += "torch_npu " + rank.header.torch_npu_version;
  if (!rank.header.cann_version.empty())
    capture += (capture.empty() ? "" : ", ") + ("CANN " + rank.header.cann_version);
  if (!rank.header.profiler_level.empty())
    capture += (capture.empty() ? "" : ", ") + rank.header.profiler_level;
  out += s.Bold(fmt::format("Rank {}", rank.header.rank));
  if (!capture.empty()) out += fmt::format("  ({})", capture);
  out += "\n";
  if (!brief) RenderRankHeader(out, rank, s, width);
  const analysis::StepDistribution* step = rank.selected();
  if (step == nullptr) return;
  if (brief) {
    if (step->breakdown) out += TimeLine(*step);
    if (step->kernels.count > 0) {
      out += "\n";
      RenderTopOperators(out, *step, s, width, 5);
    }
    return;
  }
  RenderStepDetail(out, rank, *step, s, width);
}

void RenderRankTable(std::string& out, const analysis::JobAnalysis& job, const Styler& s) {
  out += "\n";
  out += s.Bold(fmt::format("  {:<9} {:>6} {:>9} {:>11} {:>10} {:>10} {:>7} {:>7}", "all ranks",
                            "step", "kernels", "span", "p50", "p90", "≤50µs", "≤100µs")) +
         "\n";
  for (const auto& rank : job.ranks) {
    const analysis::StepDistribution* step = rank.selected();
    std::string step_text =
        rank.selected_step == model::kNoStep ? "all" : std::to_string(rank.selected_step);
    if (step == nullptr || step->kernels.count == 0) {
      // Unknown (n/a) when the rank has no source of device events, 0 when
      // its kernel table is empty.
      const bool known = step == nullptr || step->kernels.known;
      out +=
          fmt::format("  rank {:<4} {:>6} {:>9}   (no kernels: {})\n", rank.header.rank, step_text,
                      known ? "0" : "n/a",
                      known ? std::string("empty kernel table") : T(NoKernelSource(rank.header)));
      continue;
    }
    const auto& k = step->kernels;
    out += fmt::format("  rank {:<4} {:>6} {:>9} {:>11} {:>10} {:>10} {:>7} {:>7}\n",
                       rank.header.rank, step_text, FormatCount(k.count),
                       step->timeline_set_aside.empty() ? FormatDurationNs(k.span_ns) : "n/a",
                       FormatDurationNs(k.p50_ns), FormatDurationNs(k.p90_ns),
                       FormatPercent(k.share_le_50us), FormatPercent(k.share_le_100us));
  }
  const bool any_aside = std::any_of(job.ranks.begin(), job.ranks.end(), [](const auto& rank) {
    const analysis::StepDistribution* step = rank.selected();
    return step != nullptr && !step->timeline_set_aside.empty();
  });
  if (any_aside) {
    out +=
        "  span n/a: the rank's device timeline of the step is set aside (its warning says why)\n";
  }
}

// "<path>: <reason>" unless the reason names the path already; the hint
// and any further lines of the reason indented below it.
std::vector<std::string> IssueLines(const model::InputIssue& issue) {
  std::string text = issue.reason.rfind(issue.path, 0) == 0
                         ? issue.reason
                         : fmt::format("{}: {}", issue.path, issue.reason);
  std::vector<std::string> lines;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Inputs that were not analysed at all: failed ranks, every one with its
// reason; skipped files, the first few (the JSON lists all).
void RenderInputIssues(std::string& out, const analysis::JobAnalysis& job, const Styler& s) {
  for (const auto& issue : job.failed_inputs) {
    std::vector<std::string> lines = IssueLines(issue);
    out += s.Warn("  not loaded: " + lines.front()) + "\n";
    for (size_t i = 1; i < lines.size(); ++i) out += s.Dim("    " + lines[i]) + "\n";
  }
  constexpr size_t kShownSkipped = 10;
  for (size_t i = 0; i < job.skipped_inputs.size() && i < kShownSkipped; ++i) {
    out += s.Warn("  skipped: " + IssueLines(job.skipped_inputs[i]).front()) + "\n";
  }
  if (job.skipped_inputs.size() > kShownSkipped) {
    out += s.Dim(fmt::format("  ... and {} more skipped (all listed in --json skipped_inputs)",
                             job.skipped_inputs.size() - kShownSkipped)) +
           "\n";
  }
}

// Files in the rank directories that were not read, each once with the
// ranks it applies to, and how many were read.
void RenderInventory(std::string& out, const analysis::JobAnalysis& job, const Styler& s) {
  std::vector<std::pair<std::string, std::vector<int32_t>>> unread;
  size_t files_read = 0;
  size_t files_unread = 0;
  for (const auto& rank : job.ranks) {
    for (const model::InputFile& file : rank.header.inventory) {
      if (file.read) {
        ++files_read;
        continue;
      }
      ++files_unread;
      const std::string line = file.path + ": " + file.reason;
      auto it = std::find_if(unread.begin(), unread.end(),
                             [&](const auto& u) { return u.first == line; });
      if (it == unread.end()) {
        unread.push_back({line, {rank.header.rank}});
      } else {
        it->second.push_back(rank.header.rank);
      }
    }
  }
  if (files_read + files_unread > 0) {
    out += s.Dim(fmt::format("  files in the rank directories: {} read, {} not read", files_read,
                             files_unread)) +
           "\n";
  }
  for (const auto& [line, ranks] : unread) {
    std::string which =
        ranks.size() == job.ranks.size()
            ? "all ranks"
            : fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", CompactRankList(ranks));
    out += s.Dim(fmt::format("  not read ({}): {}", which, T(line))) + "\n";
  }
}

std::string Rate(const std::optional<double>& rate) {
  return rate ? fmt::format("{:.1f}%", *rate * 100) : std::string("n/a");
}

// One line per rank with an l2_cache.csv.
void RenderL2Cache(std::string& out, const analysis::JobAnalysis& job, const Styler& s) {
  for (const auto& rank : job.ranks) {
    const auto& l2 = rank.header.l2_cache;
    if (!l2) continue;
    std::string line = fmt::format(
        "  rank {}: L2 cache: {} tasks, {} with a hit rate; hit rate {} (kernel-time weighted "
        "{}), victim rate {}",
        rank.header.rank, FormatCount(l2->tasks), FormatCount(l2->tasks_with_hit_rate),
        Rate(l2->mean_hit_rate), Rate(l2->time_weighted_hit_rate), Rate(l2->mean_victim_rate));
    if (!l2->lowest_hit_ops.empty()) {
      const analysis::L2CacheOp& low = l2->lowest_hit_ops.front();
      line += fmt::format("; lowest {} {}", T(low.name), Rate(low.mean_hit_rate));
    }
    out += s.Dim(line) + "\n";
  }
}

// |brief| (--top): the input's line and the inputs not analysed, no more.
void RenderHealth(std::string& out, const analysis::JobAnalysis& job, const Styler& s, bool brief) {
  int64_t files = 0, read = 0, used = 0, skipped = 0;
  for (const auto& rank : job.ranks) {
    for (const auto& file : rank.header.files) {
      ++files;
      read += file.rows_read;
      used += file.rows_used;
      skipped += file.rows_skipped;
    }
  }
  out += "\n";
  out += fmt::format("Input: {} ranks, {} files, {} rows read = {} used + {} skipped\n",
                     job.ranks.size(), files, FormatCount(read), FormatCount(used),
                     FormatCount(skipped));
  RenderInputIssues(out, job, s);
  if (brief) return;
  for (const auto& rank : job.ranks) {
    for (const auto& file : rank.header.files) {
      for (const auto& [reason, count] : file.skipped_by_reason) {
        out += s.Warn(fmt::format("  rank {}: {}: {} rows skipped: {}", rank.header.rank,
                                  T(file.file), FormatCount(count), T(reason))) +
               "\n";
      }
      for (const auto& sample : file.samples) {
        out += s.Dim(fmt::format("    line {}: {}: {}", sample.line, T(sample.reason),
                                 T(sample.detail))) +
               "\n";
      }
    }
    for (const auto& warning : rank.header.warnings) {
      out += s.Warn(fmt::format("  rank {}: {}", rank.header.rank,
                                TerminalSafe(warning, /*keep_newlines=*/true))) +
             "\n";
    }
  }
  // Missing optional files are the same on every rank most of the time:
  // say each once with the ranks it applies to.
  std::vector<std::pair<std::string, std::vector<int32_t>>> missing;
  for (const auto& rank : job.ranks) {
    for (const auto& file : rank.header.missing_files) {
      auto it = std::find_if(missing.begin(), missing.end(),
                             [&](const auto& m) { return m.first == file; });
      if (it == missing.end()) {
        missing.push_back({file, {rank.header.rank}});
      } else {
        it->second.push_back(rank.header.rank);
      }
    }
  }
  for (const auto& [file, ranks] : missing) {
    std::string which =
        ranks.size() == job.ranks.size()
            ? "all ranks"
            : fmt::format("{} {}", ranks.size() == 1 ? "rank" : "ranks", CompactRankList(ranks));
    out += s.Dim(fmt::format("  not present ({}): {}", which, T(file))) + "\n";
  }
  RenderInventory(out, job, s);
  RenderL2Cache(out, job, s);
}

// Inputs that are more than one run: which ones, why apart, what to do.
void RenderRuns(std::string& out, const analysis::JobAnalysis& job, const Styler& s) {
  if (job.runs.empty()) return;
  out += s.Warn(fmt::format("The inputs are {} runs, not one job; they are not merged.",
                            job.runs.size())) +
         "\n";
  for (const auto& run : job.runs) {
    out += fmt::format("  run {}{}: ranks {}\n", run.number, run.analysed ? " (analysed)" : "",
                       CompactRankList(run.ranks));
    for (const auto& source : run.sources) out += s.Dim("    " + source) + "\n";
    if (!run.analysed) out += fmt::format("    apart because {}\n", run.why_apart);
  }
  out +=
      s.Dim(
          "  Analyse another run with --run N (the same inputs), every run with --run all, or one "
          "run's inputs alone; "
          "comparing runs is the job of `trainscope compare` (docs/compare.md).") +
      "\n\n";
}

}  // namespace

size_t VisibleColumns(std::string_view text) {
  size_t columns = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\033') {  // CSI ... final byte in @-~
      while (i + 1 < text.size() &&
             !(text[i + 1] >= '@' && text[i + 1] <= '~' && text[i + 1] != '['))
        ++i;
      ++i;
      continue;
    }
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++columns;
  }
  return columns;
}

std::string CutToColumns(std::string_view text, size_t columns) {
  size_t seen = 0;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    if (text[i] == '\033') {
      while (i + 1 < text.size() &&
             !(text[i + 1] >= '@' && text[i + 1] <= '~' && text[i + 1] != '['))
        ++i;
      ++i;
      continue;
    }
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (seen == columns) break;
      ++seen;
    }
  }
  return std::string(text.substr(0, i));
}

namespace {

// A unit that must stay on the line of the number before it ("339.7 ms",
// "2.50 GiB"): the word without trailing punctuation is one of them.
bool IsUnitWord(std::string_view word) {
  while (!word.empty() && (word.back() == ',' || word.back() == ';' || word.back() == ')' ||
                           word.back() == ']' || word.back() == ':' || word.back() == '.'))
    word.remove_suffix(1);
  static constexpr std::string_view kUnits[] = {
      "ns",  "µs", "us", "ms", "s",  "min",  "h",     "B",       "KiB",    "MiB", "GiB",
      "TiB", "KB", "MB", "GB", "TB", "GB/s", "GiB/s", "TFLOP/s", "TFLOPS", "%"};
  return std::find(std::begin(kUnits), std::end(kUnits), word) != std::end(kUnits);
}

// The end of the word of |text| that starts at |start|, a unit after it
// included when the word ends in a digit: a wrap never splits "339.7 ms".
size_t WordEndKeepingUnit(std::string_view text, size_t start) {
  size_t end = text.find(' ', start);
  if (end == std::string_view::npos) return text.size();
  while (end > start && end + 1 < text.size() && text[end - 1] >= '0' && text[end - 1] <= '9') {
    size_t next = text.find(' ', end + 1);
    if (next == std::string_view::npos) next = text.size();
    if (next == end + 1 || !IsUnitWord(text.substr(end + 1, next - end - 1))) break;
    end = next;
    if (end == text.size()) break;
  }
  return end;
}

// |word| in pieces of at most |room| columns: each piece ends after a
// '+', ',', ';' or '/' where one fits ("aten::mm+aten::add+..." breaks
// between operators), else at |room| columns (not inside a UTF-8
// sequence). A word that fits is one piece.
std::vector<std::string_view> BreakLongWord(std::string_view word, size_t room) {
  std::vector<std::string_view> pieces;
  room = std::max<size_t>(room, 8);
  while (VisibleColumns(word) > room) {
    const std::string head = CutToColumns(word, room);
    size_t cut = head.find_last_of("+,;/");
    if (cut == std::string::npos || cut < head.size() / 3) {
      cut = head.size();
    } else {
      ++cut;
    }
    pieces.push_back(word.substr(0, cut));
    word.remove_prefix(cut);
  }
  if (!word.empty()) pieces.push_back(word);
  return pieces;
}

// Where a long line's continuation starts: under its value, i.e. after the
// last run of 2+ spaces that follows text within the line's first 40%
// ("  1.  40.6%  Title ...", "  time        339.7 ms ..."), else after a
// label's ": " there; else two columns deeper than the line.
size_t HangingIndent(std::string_view line, size_t width) {
  const size_t lead = line.find_first_not_of(' ');
  if (lead == std::string_view::npos) return 0;
  size_t indent = lead + 2;
  for (size_t gap = line.find("  ", lead); gap != std::string_view::npos && gap < width * 2 / 5;
       gap = line.find("  ", gap)) {
    const size_t value = line.find_first_not_of(' ', gap);
    if (value == std::string_view::npos) break;
    indent = VisibleColumns(line.substr(0, value));
    gap = value;
  }
  // "  step chosen: step 5: ..." (a label ended by one space): under the value.
  const size_t colon = line.find(": ", lead);
  if (indent == lead + 2 && colon != std::string_view::npos && colon < width * 2 / 5) {
    indent = VisibleColumns(line.substr(0, colon + 2));
  }
  // A value column too far right leaves no room: fall back.
  return indent + 24 > width ? std::min(lead + 2, width / 2) : indent;
}

}  // namespace

std::string FitToWidth(std::string_view text, int width) {
  if (width <= 0) return std::string(text);
  const auto columns = static_cast<size_t>(width);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (VisibleColumns(line) <= columns) {
      out.append(line);
    } else {
      const size_t indent = HangingIndent(line, columns);
      size_t used = 0;
      size_t pos = 0;
      bool first = true;
      while (pos < line.size()) {
        // The next word with the spaces before it.
        size_t word_start = pos;
        while (word_start < line.size() && line[word_start] == ' ') ++word_start;
        const size_t word_end = WordEndKeepingUnit(line, word_start);
        std::string_view spaces = line.substr(pos, word_start - pos);
        // A word longer than a continuation line is broken (a chain of
        // operators at its '+'); its pieces follow each other unspaced.
        for (const std::string_view word :
             BreakLongWord(line.substr(word_start, word_end - word_start), columns - indent)) {
          const size_t w = VisibleColumns(word);
          if (!first && used > indent && used + spaces.size() + w > columns) {
            out += '\n';
            out.append(indent, ' ');
            out.append(word);
            used = indent + w;
          } else {
            out.append(spaces);
            out.append(word);
            used += spaces.size() + w;
          }
          first = false;
          spaces = {};
        }
        pos = word_end;
      }
    }
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

std::string WrapParagraph(std::string_view text, int width, int indent) {
  if (width <= indent + 20) return std::string(text);
  const auto columns = static_cast<size_t>(width - indent);
  // Columns of a UTF-8 run: its code points (continuation bytes do not count).
  auto columns_of = [](std::string_view s) {
    return static_cast<size_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  };
  std::string out;
  size_t line = 0;  // columns on the current line
  size_t at = 0;
  while (at < text.size()) {
    const size_t word_end = WordEndKeepingUnit(text, at);
    const size_t space = word_end < text.size() ? word_end : std::string_view::npos;
    bool spaced = true;  // the pieces of a broken word follow each other unspaced
    for (const std::string_view word : BreakLongWord(text.substr(at, word_end - at), columns)) {
      const size_t w = columns_of(word);
      if (line > 0 && line + (spaced ? 1 : 0) + w > columns) {
        out += '\n';
        out.append(static_cast<size_t>(indent), ' ');
        line = 0;
      } else if (line > 0 && spaced) {
        out += ' ';
        ++line;
      }
      out.append(word);
      line += w;
      spaced = false;
    }
    if (space == std::string_view::npos) break;
    at = space + 1;
  }
  return out;
}

std::string RenderText(const analysis::JobAnalysis& job, const TextReportOptions& options) {
  Styler s(options.color);
  std::string out;
  if (job.ranks.empty()) return "no ranks found\n";
  const analysis::RankAnalysis* focus = FocusRank(job, options.focus_rank);
  RenderRuns(out, job, s);
  RenderPortraitText(out, job, options);
  if (!job.withheld_for_inference.empty()) {
    out +=
        fmt::format("  Not reported for an inference job (their remedies assume training): {}\n\n",
                    fmt::join(job.withheld_for_inference, ", "));
  }
  if (options.quiet) return FitToWidth(TerminalSafeReport(out, options.color), options.width);
  if (options.top > 0) {
    // --top N: one screen. The findings, the focus rank's time and top
    // operators, and the input's line; the rest is in the full summary.
    RenderRankDetail(out, *focus, s, options.width, /*brief=*/true);
    RenderHealth(out, job, s, /*brief=*/true);
    return FitToWidth(TerminalSafeReport(out, options.color), options.width);
  }
  RenderRankDetail(out, *focus, s, options.width, /*brief=*/false);
  RenderMotifsText(out, *focus, options.color, options.width);
  if (job.ranks.size() > 1) RenderRankTable(out, job, s);
  if (options.all_steps) {
    const std::string steps = StepsTableText(BuildStepsTable(job));
    out += steps.empty() ? "\n  every captured step: the capture has no step numbers\n" : steps;
  }
  RenderClusterText(out, job, options.color, options.width);
  RenderHealth(out, job, s, /*brief=*/false);
  return FitToWidth(TerminalSafeReport(out, options.color), options.width);
}

}  // namespace trainscope::report
