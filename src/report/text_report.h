// The terminal summary printed by `trainscope analyze` by default.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/job/rank_analysis.h"

namespace trainscope::report {

struct TextReportOptions {
  std::optional<int32_t> focus_rank;  // rank shown in depth; default: the lowest rank
  bool color = false;                 // ANSI colours (only on a terminal)
  bool all_steps = false;             // --steps: the table of every captured step
  // Terminal fit: the findings' evidence, cause and remedy paragraphs are
  // wrapped to |width| columns under their label (0: lines kept whole, as
  // for a pipe or --wide, so grep sees a finding on one line).
  int width = 0;
  size_t top = 0;      // --top N: the N findings of largest gain (0: all)
  bool quiet = false;  // --quiet: the findings alone
};

// |text| wrapped at spaces to lines of at most |width| columns (UTF-8 code
// points), every line after the first indented by |indent| spaces; a word
// longer than a line stays whole. |width| <= indent + 20 or 0: unchanged.
std::string WrapParagraph(std::string_view text, int width, int indent);

std::string RenderText(const analysis::JobAnalysis& job, const TextReportOptions& options);

// Columns |text| takes on a terminal: UTF-8 code points, ANSI colour
// sequences not counted.
size_t VisibleColumns(std::string_view text);
// |text| cut to at most |columns| visible columns (not inside a UTF-8
// sequence or a colour sequence).
std::string CutToColumns(std::string_view text, size_t columns);
// Every line of |text| longer than |width| columns wrapped at spaces, its
// continuation lines indented under the line's value (after the label's
// run of spaces, "  time        339.7 ms ...", or its ": "), else two
// columns deeper than the line. 0: unchanged. A word longer than the line
// stays whole.
std::string FitToWidth(std::string_view text, int width);

// The rank shown in depth: |requested| if present, else the lowest rank that
// has kernels in its selected step. Shared by the text and HTML reports.
const analysis::RankAnalysis* FocusRank(const analysis::JobAnalysis& job,
                                        std::optional<int32_t> requested);

// Human formats shared by the text and HTML reports.
std::string FormatDurationUs(double us);     // "812 ns", "22.8 µs", "3.08 ms", "1.20 s"
std::string FormatDurationNs(double ns);     // the same from nanoseconds (analysis times)
std::string FormatCount(int64_t count);      // "19,252"
std::string FormatPercent(double fraction);  // "62.4%"
// "step 13", or "the whole capture" for a capture without steps (kNoStep):
// no report prints "step -1".
std::string StepName(int32_t step);
// Why a rank has no kernels to show: its missing_files entry of the kernel
// table (kernel_details.csv), else the first missing file, else a plain
// "no source of device events".
std::string NoKernelSource(const analysis::RankHeader& header);

}  // namespace trainscope::report
