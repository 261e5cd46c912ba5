#include "report/text_table.h"

#include <algorithm>

#include "model/kernel_names.h"
#include "report/text_report.h"

namespace trainscope::report {
namespace {

std::string PadCell(const std::string& text, size_t width, bool left) {
  const size_t used = VisibleColumns(text);
  if (used >= width) return text;
  const std::string pad(width - used, ' ');
  return left ? text + pad : pad + text;
}

}  // namespace

std::string PadToColumns(const std::string& text, size_t columns) {
  return PadCell(text, columns, true);
}

namespace {

// Which columns a table shows and how wide each is.
struct TableLayout {
  std::vector<bool> shown;
  std::vector<size_t> width;
  size_t elastic;  // the name column that shortens; columns.size() when none

  size_t Total(const TextTableOptions& options) const {
    size_t sum = options.indent;
    bool first = true;
    for (size_t c = 0; c < width.size(); ++c) {
      if (!shown[c]) continue;
      sum += width[c] + (first ? 0 : options.gap);
      first = false;
    }
    return sum;
  }
};

// Every column at its widest cell; the elastic column capped by its own
// maximum, and on a pipe by the options' name width.
TableLayout NaturalLayout(const std::vector<TextColumn>& columns,
                          const std::vector<std::vector<std::string>>& rows,
                          const TextTableOptions& options) {
  const size_t n = columns.size();
  TableLayout layout{std::vector<bool>(n, true), std::vector<size_t>(n, 0), n};
  for (size_t c = 0; c < n; ++c) {
    layout.width[c] = VisibleColumns(columns[c].header);
    for (const auto& row : rows) {
      if (c < row.size()) layout.width[c] = std::max(layout.width[c], VisibleColumns(row[c]));
    }
    if (columns[c].elastic) layout.elastic = c;
  }
  if (layout.elastic < n) {
    const TextColumn& column = columns[layout.elastic];
    const size_t natural = layout.width[layout.elastic];
    size_t cap = column.max_width > 0 ? column.max_width : natural;
    if (options.width <= 0) cap = std::min(cap, options.pipe_name_columns);
    layout.width[layout.elastic] = std::max(std::min(natural, cap), VisibleColumns(column.header));
  }
  return layout;
}

// Within |limit| columns: drops the least important columns (lowest
// drop_order first) while the table cannot fit with its name column at its
// narrowest, then narrows the name column.
void FitLayout(const std::vector<TextColumn>& columns, size_t limit,
               const TextTableOptions& options, TableLayout* layout) {
  const size_t n = columns.size();
  const size_t elastic = layout->elastic;
  const size_t floor =
      elastic < n ? std::max(columns[elastic].min_width, VisibleColumns(columns[elastic].header))
                  : size_t{0};
  const size_t shrinkable =
      elastic < n ? layout->width[elastic] - std::min(layout->width[elastic], floor) : 0;
  while (layout->Total(options) - shrinkable > limit) {
    size_t drop = n;
    for (size_t c = 0; c < n; ++c) {
      if (layout->shown[c] && columns[c].drop_order > 0 &&
          (drop == n || columns[c].drop_order <= columns[drop].drop_order)) {
        drop = c;
      }
    }
    if (drop == n) break;  // nothing left to drop: the lines run over
    layout->shown[drop] = false;
  }
  const size_t total = layout->Total(options);
  if (elastic < n && total > limit) {
    const size_t over = total - limit;
    size_t& width = layout->width[elastic];
    width = std::max(floor, width > over ? width - over : 0);
  }
}

std::string TableLine(const std::vector<TextColumn>& columns, const TableLayout& layout,
                      const TextTableOptions& options, const std::vector<std::string>& cells) {
  std::string out(options.indent, ' ');
  bool first = true;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (!layout.shown[c]) continue;
    if (!first) out.append(options.gap, ' ');
    first = false;
    const std::string& text = c < cells.size() ? cells[c] : std::string();
    out += PadCell(text, layout.width[c], columns[c].left);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::string RenderTextTable(const std::vector<TextColumn>& columns,
                            const std::vector<std::vector<std::string>>& rows,
                            const TextTableOptions& options) {
  const size_t n = columns.size();
  TableLayout layout = NaturalLayout(columns, rows, options);
  if (options.width > 0) FitLayout(columns, static_cast<size_t>(options.width), options, &layout);
  std::vector<std::string> names;
  if (layout.elastic < n) {
    std::vector<std::string> full;
    full.reserve(rows.size());
    for (const auto& row : rows)
      full.push_back(layout.elastic < row.size() ? row[layout.elastic] : "");
    names = model::DistinctElidedNames(full, layout.width[layout.elastic]);
  }
  std::vector<std::string> header_cells;
  header_cells.reserve(n);
  for (const auto& column : columns) header_cells.push_back(column.header);
  const std::string header = TableLine(columns, layout, options, header_cells);
  std::string out = options.header_style ? options.header_style(header) : header;
  out += '\n';
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> cells = rows[r];
    if (layout.elastic < n && layout.elastic < cells.size()) cells[layout.elastic] = names[r];
    out += TableLine(columns, layout, options, cells) + '\n';
  }
  return out;
}

}  // namespace trainscope::report
