// The HTML report's nn.Module time tree (analysis/step/module_tree.h) of
// the focus rank's selected step: one collapsible <details> per module with
// children, its calls, host time, kernels launched inside it and their time,
// and the findings of fingerprints placed in it. Every name goes through
// Format(), which escapes it.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/html_sections.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

// A tree of a very large model is cut here; the rest is in the JSON.
constexpr size_t kMaxModulesShown = 3000;

// The findings of |node|'s fingerprints, as "id" or "id (finding title)".
std::string FindingsOf(const analysis::JobAnalysis& job, const analysis::ModuleNode& node) {
  std::string out;
  for (const std::string& id : node.fingerprints) {
    std::string item = id;
    for (const analysis::Finding& finding : job.findings) {
      if (finding.id == id) {
        item += ": " + finding.title;
        break;
      }
    }
    out += (out.empty() ? "" : "; ") + item;
  }
  return out;
}

void NodeLine(HtmlWriter& out, const analysis::JobAnalysis& job, const analysis::ModuleNode& node,
              double step_kernel_ns) {
  out.Format(
      "<code>{}</code> <span class=\"muted\">{} call{} &middot; host {} &middot; {} kernel{}, {}",
      node.name, node.calls, node.calls == 1 ? "" : "s",
      FormatDurationNs(static_cast<double>(node.host_ns)), FormatCount(node.kernels),
      node.kernels == 1 ? "" : "s", FormatDurationNs(static_cast<double>(node.kernel_ns)));
  if (step_kernel_ns > 0) {
    out.Format(" ({} of the step's kernel time)",
               FormatPercent(static_cast<double>(node.kernel_ns) / step_kernel_ns));
  }
  out.Raw("</span>");
  const std::string findings = FindingsOf(job, node);
  if (!findings.empty()) out.Format(" <b class=\"bad\">{}</b>", findings);
}

}  // namespace

void RenderModuleTreeHtml(HtmlWriter& out, const analysis::JobAnalysis& job,
                          const analysis::RankAnalysis* focus) {
  if (focus == nullptr || focus->selected() == nullptr) return;
  const std::optional<analysis::ModuleTree>& tree = focus->selected()->module_tree;
  if (!tree || tree->nodes.empty()) return;
  const std::vector<analysis::ModuleNode>& nodes = tree->nodes;
  double step_kernel_ns = 0;
  for (const analysis::ModuleNode& node : nodes)
    step_kernel_ns += node.parent < 0 ? static_cast<double>(node.kernel_ns) : 0;
  step_kernel_ns += static_cast<double>(tree->outside_ns);
  out.Raw("<section id=\"modules\"><h2>Module tree</h2>\n");
  out.Format(
      "<p>Rank {}, {}: the nn.Module calls of the host trace and the {} kernels launched inside "
      "them (sub-modules included); {} kernels ({}) were launched outside every module (backward, "
      "optimizer, or no launch link). Click a module to open it.</p>\n<div class=\"modtree\">",
      focus->header.rank, StepName(focus->selected_step),
      FormatCount(tree->kernels - tree->outside_kernels), FormatCount(tree->outside_kernels),
      FormatDurationNs(static_cast<double>(tree->outside_ns)));
  std::vector<bool> has_children(nodes.size(), false);
  for (const analysis::ModuleNode& node : nodes) {
    if (node.parent >= 0) has_children[static_cast<size_t>(node.parent)] = true;
  }
  // Pre-order with parent indices: close the open modules that are not the
  // next node's ancestors, then open it.
  std::vector<int32_t> open;
  const size_t shown = std::min(nodes.size(), kMaxModulesShown);
  for (size_t n = 0; n < shown; ++n) {
    const analysis::ModuleNode& node = nodes[n];
    while (!open.empty() && open.back() != node.parent) {
      out.Raw("</details>");
      open.pop_back();
    }
    if (has_children[n]) {
      if (open.size() < 2) {
        out.Raw("<details open><summary>");
      } else {
        out.Raw("<details><summary>");
      }
      NodeLine(out, job, node, step_kernel_ns);
      out.Raw("</summary>\n");
      open.push_back(static_cast<int32_t>(n));
    } else {
      out.Raw("<div class=\"leaf\">");
      NodeLine(out, job, node, step_kernel_ns);
      out.Raw("</div>\n");
    }
  }
  for (size_t k = 0; k < open.size(); ++k) out.Raw("</details>");
  out.Raw("</div>\n");
  if (shown < nodes.size()) {
    out.Format("<p class=\"muted\">{} more modules are in the JSON report (module_tree).</p>\n",
               FormatCount(static_cast<int64_t>(nodes.size() - shown)));
  }
  out.Raw("</section>\n");
}

}  // namespace trainscope::report
