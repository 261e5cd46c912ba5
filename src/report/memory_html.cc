// The HTML report's memory section: the focus rank's allocator
// curves over its step (allocated and reserved, the peak marked and its top
// holders named), the step's memory numbers (activation memory, headroom,
// the driver's components) and, for a job, every rank's peaks as bars.
// Every profile string goes through Format() / SvgCanvas, which escape it.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "report/html_sections.h"
#include "report/svg.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

double Gib(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

std::string GibText(const std::optional<int64_t>& bytes) {
  return bytes ? fmt::format("{:.2f} GiB", Gib(*bytes)) : std::string("n/a");
}

constexpr double kMemoryChartWidth = 860, kMemoryChartHeight = 260, kMemoryChartLeft = 60,
                 kMemoryChartRight = 20, kMemoryChartTop = 20, kMemoryChartBottom = 30;

// Allocated (blue) and reserved (orange) over the window; the peak as a
// vertical line labelled with the top holders.
HtmlFragment MemoryCurveSvg(const analysis::MemoryUsage& m) {
  SvgCanvas svg(kMemoryChartWidth, kMemoryChartHeight,
                "allocated and reserved memory over the step");
  const int64_t t0 = m.curve.front().ts_ns;
  const int64_t t1 = std::max(m.curve.back().ts_ns, t0 + 1);
  int64_t top = 1;
  for (const analysis::MemoryCurvePoint& p : m.curve) {
    top = std::max({top, p.allocated_bytes, p.reserved_bytes.value_or(0)});
  }
  if (m.capacity_bytes && *m.capacity_bytes < top * 2) top = std::max(top, *m.capacity_bytes);
  const double plot_w = kMemoryChartWidth - kMemoryChartLeft - kMemoryChartRight,
               plot_h = kMemoryChartHeight - kMemoryChartTop - kMemoryChartBottom;
  auto x = [&](int64_t ts) {
    return kMemoryChartLeft + plot_w * static_cast<double>(ts - t0) / static_cast<double>(t1 - t0);
  };
  auto y = [&](int64_t bytes) {
    return kMemoryChartTop + plot_h * (1 - static_cast<double>(bytes) / static_cast<double>(top));
  };
  svg.Line(kMemoryChartLeft, kMemoryChartTop + plot_h, kMemoryChartLeft + plot_w,
           kMemoryChartTop + plot_h, "#999");
  svg.Line(kMemoryChartLeft, kMemoryChartTop, kMemoryChartLeft, kMemoryChartTop + plot_h, "#999");
  for (int i = 0; i <= 4; ++i) {
    const int64_t bytes = top / 4 * i;
    svg.Text(kMemoryChartLeft - 4, y(bytes) + 4, fmt::format("{:.1f} GiB", Gib(bytes)), "end", 10,
             "#555");
  }
  svg.Text(kMemoryChartLeft, kMemoryChartHeight - 8, "step start", "start", 10, "#555");
  svg.Text(kMemoryChartLeft + plot_w, kMemoryChartHeight - 8,
           ShortDurationLabel(static_cast<double>(t1 - t0) / 1e3), "end", 10, "#555");
  std::vector<std::pair<double, double>> allocated, reserved;
  for (const analysis::MemoryCurvePoint& p : m.curve) {
    allocated.emplace_back(x(p.ts_ns), y(p.allocated_bytes));
    if (p.reserved_bytes) reserved.emplace_back(x(p.ts_ns), y(*p.reserved_bytes));
  }
  if (!reserved.empty()) svg.Polyline(reserved, kPalette[1], 1.5, "reserved (PTA)");
  svg.Polyline(allocated, kPalette[0], 1.5, "allocated (PTA)");
  if (m.capacity_bytes && *m.capacity_bytes <= top) {
    svg.Line(kMemoryChartLeft, y(*m.capacity_bytes), kMemoryChartLeft + plot_w,
             y(*m.capacity_bytes), kPalette[5], 1);
    svg.Text(kMemoryChartLeft + plot_w, y(*m.capacity_bytes) - 3,
             fmt::format("device memory {:.1f} GiB", Gib(*m.capacity_bytes)), "end", 10,
             kPalette[5]);
  }
  if (m.peak_allocated_ns && m.peak_allocated_bytes) {
    const double px = x(*m.peak_allocated_ns);
    svg.Line(px, kMemoryChartTop, px, kMemoryChartTop + plot_h, "#222", 1);
    std::string label = fmt::format("peak {:.2f} GiB", Gib(*m.peak_allocated_bytes));
    for (size_t i = 0; i < m.top_holders.size() && i < 3; ++i) {
      label += fmt::format("{} {} {:.2f} GiB", i == 0 ? ":" : ",", m.top_holders[i].name,
                           Gib(m.top_holders[i].bytes));
    }
    const bool right = px < kMemoryChartLeft + plot_w / 2;
    svg.Text(right ? px + 4 : px - 4, kMemoryChartTop + 10, label, right ? "start" : "end", 10);
  }
  svg.Text(kMemoryChartLeft + 6, kMemoryChartTop + plot_h - 6, "allocated", "start", 10,
           kPalette[0]);
  svg.Text(kMemoryChartLeft + 70, kMemoryChartTop + plot_h - 6, "reserved", "start", 10,
           kPalette[1]);
  return std::move(svg).Finish();
}

// Peak allocated and reserved per rank, side by side.
HtmlFragment RankPeakBarsSvg(const analysis::JobAnalysis& job) {
  std::vector<std::pair<int32_t, const analysis::MemoryUsage*>> ranks;
  int64_t top = 1;
  for (const analysis::RankAnalysis& rank : job.ranks) {
    const analysis::StepDistribution* step = rank.selected();
    if (step == nullptr || !step->memory || !step->memory->peak_allocated_bytes) continue;
    ranks.emplace_back(rank.header.rank, &*step->memory);
    top = std::max(
        {top, *step->memory->peak_allocated_bytes, step->memory->peak_reserved_bytes.value_or(0)});
  }
  const double row = 18, height = kMemoryChartTop + row * static_cast<double>(ranks.size()) + 10;
  SvgCanvas svg(kMemoryChartWidth, height, "peak memory per rank");
  const double plot_w = kMemoryChartWidth - kMemoryChartLeft - 160;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const auto& [rank, m] = ranks[i];
    const double yy = kMemoryChartTop + row * static_cast<double>(i);
    svg.Text(kMemoryChartLeft - 4, yy + 12, fmt::format("rank {}", rank), "end", 10);
    const double reserved =
        m->peak_reserved_bytes
            ? plot_w * static_cast<double>(*m->peak_reserved_bytes) / static_cast<double>(top)
            : 0;
    const double allocated =
        plot_w * static_cast<double>(*m->peak_allocated_bytes) / static_cast<double>(top);
    svg.Rect(kMemoryChartLeft, yy + 2, reserved, row - 4, kPalette[1],
             fmt::format("rank {}: peak reserved {}", rank, GibText(m->peak_reserved_bytes)));
    svg.Rect(kMemoryChartLeft, yy + 5, allocated, row - 10, kPalette[0],
             fmt::format("rank {}: peak allocated {}", rank, GibText(m->peak_allocated_bytes)));
    svg.Text(
        kMemoryChartLeft + std::max(reserved, allocated) + 4, yy + 12,
        fmt::format("{} / {}", GibText(m->peak_allocated_bytes), GibText(m->peak_reserved_bytes)),
        "start", 10, "#555");
  }
  return std::move(svg).Finish();
}

}  // namespace

void RenderMemoryHtml(HtmlWriter& out, const analysis::JobAnalysis& job,
                      const analysis::RankAnalysis* focus) {
  const analysis::StepDistribution* step = focus != nullptr ? focus->selected() : nullptr;
  if (step == nullptr || !step->memory) return;
  const analysis::MemoryUsage& m = *step->memory;
  out.Raw("<section id=\"memory\"><h2>Memory</h2>\n");
  out.Format(
      "<p>Rank {}, {} (window: {}; samples from {}): peak allocated {}, peak reserved {}, "
      "reserved never allocated at least {}; activation memory {} (allocated at the first "
      "backward op minus at the step's start); device memory {}{}; headroom {}.</p>\n",
      focus->header.rank, StepName(focus->selected_step), m.window_from, m.samples_from,
      GibText(m.peak_allocated_bytes), GibText(m.peak_reserved_bytes), GibText(m.gap_min_bytes),
      GibText(m.activation_bytes), GibText(m.capacity_bytes),
      m.capacity_from.empty() ? std::string() : " (" + m.capacity_from + ")",
      GibText(m.headroom_bytes));
  if (m.curve.size() >= 2) out.Append(MemoryCurveSvg(m));
  if (!m.top_holders.empty()) {
    out.Raw(
        "<table><tr><th class=\"l\">held at the peak by</th><th>GiB</th>"
        "<th>allocations</th></tr>\n");
    for (const analysis::MemoryHolder& h : m.top_holders) {
      out.Format("<tr><td class=\"l\"><code>{}</code></td><td>{:.3f}</td><td>{}</td></tr>\n",
                 h.name, Gib(h.bytes), h.allocations);
    }
    out.Raw("</table>\n");
  }
  if (!m.modules.empty()) {
    out.Raw("<p>Device components (npu_module_mem): ");
    for (size_t i = 0; i < m.modules.size() && i < 8; ++i) {
      out.Format("{}{} {:.2f} GiB", i == 0 ? "" : ", ", m.modules[i].component,
                 Gib(m.modules[i].reserved_bytes));
    }
    out.Raw(".</p>\n");
  }
  if (job.ranks.size() > 1) {
    out.Raw("<p>Peak allocated (blue) and reserved (orange) per rank:</p>\n");
    out.Append(RankPeakBarsSvg(job));
  }
  out.Raw("</section>\n");
}

}  // namespace trainscope::report
