#include "report/compare_ops_report.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "core/safe_text.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

using analysis::AlignedOp;
using analysis::OpAlignment;

std::string OpsMs(int64_t ns, bool present) {
  return present ? fmt::format("{:.3f}", static_cast<double>(ns) / 1e6) : std::string("-");
}

std::string OpsPerCall(std::optional<double> kernels_per_call) {
  return kernels_per_call ? fmt::format("{:.2f}", *kernels_per_call) : std::string("-");
}

std::string OpsRatio(const AlignedOp& op) {
  if (op.ratio()) return fmt::format("{:.2f}x", *op.ratio());
  return op.in_base() ? "gone" : "new";
}

const char* OpsState(const AlignedOp& op) {
  return op.in_base() && op.in_next() ? "both" : op.in_base() ? "base_only" : "new_only";
}

// "module Qwen2RMSNorm: one kernel per call on NEW (RmsNorm...), 8.00 per
// call on BASE (Cast, Pow, ...); BASE lacks it: unfused-rmsnorm; remedy: ..."
std::string PortingSentence(const AlignedOp& op, const char* what) {
  const bool base_fused = op.fused_side == "base";
  const std::optional<double> other =
      base_fused ? op.next_kernels_per_call() : op.base_kernels_per_call();
  std::string text =
      fmt::format("{} {}: one kernel per call on {} ({}), {:.2f} per call on {} ({})", what,
                  TerminalSafe(op.name), base_fused ? "BASE" : "NEW", TerminalSafe(op.fused_kernel),
                  other.value_or(0), base_fused ? "NEW" : "BASE", TerminalSafe(op.unfused_kernels));
  if (!op.fingerprint.empty()) {
    text += fmt::format("; {} lacks the fused kernel: {}; remedy: {}", base_fused ? "NEW" : "BASE",
                        TerminalSafe(op.fingerprint), TerminalSafe(op.remedy));
  }
  return text;
}

void OpsTextTable(const char* title, const std::vector<AlignedOp>& ops, size_t rows,
                  std::string* out) {
  if (ops.empty()) return;
  *out += fmt::format("\n  {:<48} {:>10} {:>10} {:>7} {:>7} {:>7} {:>7} {:>7}\n", title, "BASE ms",
                      "NEW ms", "ratio", "B calls", "B k/c", "N calls", "N k/c");
  for (size_t i = 0; i < ops.size() && i < rows; ++i) {
    const AlignedOp& op = ops[i];
    *out +=
        fmt::format("  {:<48} {:>10} {:>10} {:>7} {:>7} {:>7} {:>7} {:>7}\n", TerminalSafe(op.name),
                    OpsMs(op.base_ns, op.in_base()), OpsMs(op.next_ns, op.in_next()), OpsRatio(op),
                    FormatCount(op.base_calls), OpsPerCall(op.base_kernels_per_call()),
                    FormatCount(op.next_calls), OpsPerCall(op.next_kernels_per_call()));
  }
  if (ops.size() > rows)
    *out += fmt::format("  ... {} more in the JSON report\n", ops.size() - rows);
}

void OpsJsonSide(JsonWriter& w, const char* key, bool present, int64_t calls, int64_t kernels,
                 int64_t ns, std::optional<double> per_call, const std::string& shapes,
                 const std::string& top_kernel) {
  w.Key(key).BeginObject();
  w.Field("present", present);
  w.Field("calls", calls);
  w.Field("kernels", kernels);
  w.Field("total_ns", ns);
  w.Key("kernels_per_call");
  if (per_call) {
    w.Double(*per_call, 3);
  } else {
    w.Null();
  }
  w.Key("input_shapes").StringOrNull(shapes);
  w.Key("top_kernel").StringOrNull(top_kernel);
  w.EndObject();
}

void OpsJsonRows(JsonWriter& w, const char* key, const std::vector<AlignedOp>& ops) {
  w.Key(key).BeginArray();
  for (const AlignedOp& op : ops) {
    w.BeginObject();
    w.Field("name", op.name);
    w.Field("state", OpsState(op));
    OpsJsonSide(w, "base", op.in_base(), op.base_calls, op.base_kernels, op.base_ns,
                op.base_kernels_per_call(), op.base_shapes, op.base_top_kernel);
    OpsJsonSide(w, "new", op.in_next(), op.next_calls, op.next_kernels, op.next_ns,
                op.next_kernels_per_call(), op.next_shapes, op.next_top_kernel);
    w.Key("ratio");
    if (op.ratio()) {
      w.Double(*op.ratio(), 4);
    } else {
      w.Null();
    }
    w.Key("fused");
    if (op.fused_side.empty()) {
      w.Null();
    } else {
      w.BeginObject();
      w.Field("side", op.fused_side);
      w.Field("kernel", op.fused_kernel);
      w.Field("unfused_kernels", op.unfused_kernels);
      w.Key("fingerprint").StringOrNull(op.fingerprint);
      w.Key("remedy").StringOrNull(op.remedy);
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
}

void OpsHtmlTable(HtmlWriter& out, const char* what, const std::vector<AlignedOp>& ops) {
  out.Format(
      "<table class=\"sortable\"><tr><th class=\"l\">{}</th><th>BASE ms</th><th>NEW ms</th>"
      "<th>ratio</th><th>BASE calls</th><th>BASE kernels/call</th><th>NEW calls</th>"
      "<th>NEW kernels/call</th><th class=\"l\">fused on</th></tr>\n",
      what);
  for (const AlignedOp& op : ops) {
    out.Format(
        "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>\n",
        op.name, OpsMs(op.base_ns, op.in_base()), OpsMs(op.next_ns, op.in_next()), OpsRatio(op),
        op.base_calls, OpsPerCall(op.base_kernels_per_call()), op.next_calls,
        OpsPerCall(op.next_kernels_per_call()),
        op.fused_side.empty() ? std::string() : op.fused_side + ": " + op.fused_kernel);
  }
  out.Raw("</table>\n");
}

}  // namespace

void RenderOpAlignmentText(const analysis::RunComparison& c, size_t rows, std::string* out) {
  if (!c.op_alignment) {
    if (!c.op_alignment_missing.empty()) {
      *out +=
          fmt::format("\n  framework ops: not paired: {}\n", TerminalSafe(c.op_alignment_missing));
    }
    return;
  }
  const OpAlignment& a = *c.op_alignment;
  *out += fmt::format(
      "\n  framework ops (device time of the kernels each op launched, by the op the model "
      "called;\n  ratio NEW / BASE; k/c kernels per call; BASE {} of {} ms, NEW {} of {} ms "
      "owned by an op;\n  {} op(s) on BASE only, {} on NEW only)\n",
      OpsMs(a.base_owned_ns, true), OpsMs(a.base_step_ns, true), OpsMs(a.next_owned_ns, true),
      OpsMs(a.next_step_ns, true), a.base_only, a.next_only);
  OpsTextTable("framework op", a.ops, rows, out);
  OpsTextTable("nn.Module class", a.modules, rows, out);
  bool header = false;
  for (const auto& [rows_of, what] : {std::pair{&a.ops, "op"}, std::pair{&a.modules, "module"}}) {
    for (const AlignedOp& op : *rows_of) {
      if (op.fused_side.empty()) continue;
      if (!header)
        *out += "\n  porting findings (one kernel per call on one side, several on the other)\n";
      header = true;
      *out += fmt::format("    - {}\n", PortingSentence(op, what));
    }
  }
}

void WriteOpAlignmentJson(JsonWriter& w, const analysis::RunComparison& c) {
  w.Key("op_alignment");
  if (!c.op_alignment) {
    w.Null();
  } else {
    const OpAlignment& a = *c.op_alignment;
    w.BeginObject();
    w.Field("base_device_ns", a.base_step_ns);
    w.Field("new_device_ns", a.next_step_ns);
    w.Field("base_owned_ns", a.base_owned_ns);
    w.Field("new_owned_ns", a.next_owned_ns);
    w.Field("base_only", a.base_only);
    w.Field("new_only", a.next_only);
    OpsJsonRows(w, "ops", a.ops);
    OpsJsonRows(w, "modules", a.modules);
    w.EndObject();
  }
  w.Key("op_alignment_missing").StringOrNull(c.op_alignment_missing);
}

void RenderOpAlignmentHtml(HtmlWriter& out, const analysis::RunComparison& c) {
  out.Raw("<section id=\"framework-ops\"><h2>Framework ops</h2>");
  if (!c.op_alignment) {
    out.Format("<p class=\"muted\">Not paired: {}</p>\n", c.op_alignment_missing);
    out.Raw("</section>\n");
    return;
  }
  const OpAlignment& a = *c.op_alignment;
  out.Raw(
      "<p class=\"muted\">Device time of the kernels each framework op launched (the op the "
      "model called), paired by name; ratio is NEW / BASE. Click a column to sort.</p>\n");
  std::vector<std::string> findings;
  for (const auto& [rows_of, what] : {std::pair{&a.ops, "op"}, std::pair{&a.modules, "module"}}) {
    for (const AlignedOp& op : *rows_of) {
      if (!op.fused_side.empty()) findings.push_back(PortingSentence(op, what));
    }
  }
  if (!findings.empty()) {
    out.Raw("<ul class=\"cautions\">");
    for (const std::string& f : findings) out.Format("<li>{}</li>", f);
    out.Raw("</ul>\n");
  }
  OpsHtmlTable(out, "framework op", a.ops);
  if (!a.modules.empty()) {
    out.Raw("<h3>nn.Module classes</h3>\n");
    OpsHtmlTable(out, "module class", a.modules);
  }
  out.Raw("</section>\n");
}

}  // namespace trainscope::report
