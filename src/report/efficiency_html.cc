// The HTML report's operator efficiency table (analysis/step/
// operator_efficiency): per (operator, input shapes, dtypes) of the focus
// rank's selected step, achieved TFLOP/s and GB/s, against the device's
// datasheet peak and, for matmuls, against the step's best large matmul
// shape of the same dtype. Every profile string goes through Format(),
// which escapes it.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "report/html_sections.h"
#include "report/text_report.h"
#include "report/units.h"

namespace trainscope::report {
namespace {

std::string Opt(const std::optional<double>& value, const char* spec) {
  return value ? fmt::format(fmt::runtime(spec), *value) : std::string("n/a");
}

}  // namespace

void RenderEfficiencyHtml(HtmlWriter& out, const analysis::RankAnalysis* focus) {
  if (focus == nullptr || focus->selected() == nullptr) return;
  const auto& efficiency = focus->selected()->operator_efficiency;
  if (!efficiency || efficiency->rows.empty()) return;
  const analysis::OperatorEfficiency& e = *efficiency;
  out.Raw("<section id=\"efficiency\"><h2>Operator efficiency</h2>\n");
  out.Format(
      "<p>Rank {}, {}: operators with input shapes ({} of {} device time; matmuls {}; {} "
      "distinct shapes). Achieved TFLOP/s from a matmul's shapes, GB/s from the bytes its "
      "operands move; ",
      focus->header.rank, StepName(focus->selected_step), FormatDurationNs(e.shaped_ns),
      FormatDurationNs(e.device_ns), FormatDurationNs(e.matmul_ns), FormatCount(e.shapes));
  if (e.peak_device.empty()) {
    out.Raw("<b>% peak</b> n/a: the device is unknown or not in the datasheet table; ");
  } else {
    out.Format("<b>% peak</b> against the datasheet peak of {}; ", e.peak_device);
  }
  out.Raw("<b>% best</b> against the step's best large matmul shape of the same dtype.</p>\n");
  out.Raw(
      "<table><tr><th class=\"l\">operator</th><th class=\"l\">input shapes</th><th "
      "class=\"l\">dtypes</th><th>calls</th><th>total</th><th>mean</th><th>TFLOP/s</th>"
      "<th>GB/s</th><th>FLOP/byte</th><th>% peak</th><th>% best</th><th "
      "class=\"l\">best shape</th></tr>\n");
  for (const analysis::ShapeEfficiency& r : e.rows) {
    out.Format(
        "<tr><td class=\"l\">{}</td><td class=\"l\"><code>{}</code></td><td "
        "class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>\n",
        r.op_type, r.shapes, r.dtypes, FormatCount(r.count), FormatDurationNs(r.total_ns),
        FormatDurationUs(MeanUs(r.total_ns, r.count)), Opt(r.Tflops(), "{:.1f}"),
        Opt(r.Gbps(), "{:.1f}"), Opt(r.FlopsPerByte(), "{:.1f}"), Opt(r.PeakPct(), "{:.1f}%"),
        Opt(r.RelativePct(), "{:.0f}%"), r.yardstick_shapes.empty() ? "—" : r.yardstick_shapes);
  }
  out.Raw("</table></section>\n");
}

}  // namespace trainscope::report
