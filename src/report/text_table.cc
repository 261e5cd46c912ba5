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

std::string RenderTextTable(const std::vector<TextColumn>& columns,
                            const std::vector<std::vector<std::string>>& rows,
                            const TextTableOptions& options) {
  const size_t n = columns.size();
  std::vector<size_t> natural(n, 0);
  for (size_t c = 0; c < n; ++c) {
    natural[c] = VisibleColumns(columns[c].header);
    for (const auto& row : rows) {
      if (c < row.size()) natural[c] = std::max(natural[c], VisibleColumns(row[c]));
    }
  }
  size_t elastic = n;
  for (size_t c = 0; c < n; ++c) {
    if (columns[c].elastic) elastic = c;
  }
  std::vector<bool> shown(n, true);
  std::vector<size_t> width = natural;
  if (elastic < n) {
    size_t cap = columns[elastic].max_width > 0 ? columns[elastic].max_width : natural[elastic];
    if (options.width <= 0) cap = std::min(cap, options.pipe_name_columns);
    width[elastic] =
        std::max(std::min(natural[elastic], cap), VisibleColumns(columns[elastic].header));
  }
  auto total = [&] {
    size_t sum = options.indent;
    bool first = true;
    for (size_t c = 0; c < n; ++c) {
      if (!shown[c]) continue;
      sum += width[c] + (first ? 0 : options.gap);
      first = false;
    }
    return sum;
  };
  if (options.width > 0) {
    const auto limit = static_cast<size_t>(options.width);
    auto elastic_floor = [&] {
      return elastic < n
                 ? std::max(columns[elastic].min_width, VisibleColumns(columns[elastic].header))
                 : size_t{0};
    };
    while (true) {
      // What the table needs with its name column at its narrowest.
      const size_t floor_total =
          total() - (elastic < n ? width[elastic] - std::min(width[elastic], elastic_floor()) : 0);
      if (floor_total <= limit) break;
      size_t drop = n;
      for (size_t c = 0; c < n; ++c) {
        if (shown[c] && columns[c].drop_order > 0 &&
            (drop == n || columns[c].drop_order <= columns[drop].drop_order))
          drop = c;
      }
      if (drop == n) break;  // nothing left to drop: the lines run over
      shown[drop] = false;
    }
    if (elastic < n && total() > limit) {
      const size_t over = total() - limit;
      width[elastic] = std::max(elastic_floor(), width[elastic] > over ? width[elastic] - over : 0);
    }
  }
  std::vector<std::string> names;
  if (elastic < n) {
    std::vector<std::string> full;
    for (const auto& row : rows) full.push_back(elastic < row.size() ? row[elastic] : "");
    names = model::DistinctElidedNames(full, width[elastic]);
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out(options.indent, ' ');
    bool first = true;
    for (size_t c = 0; c < n; ++c) {
      if (!shown[c]) continue;
      if (!first) out.append(options.gap, ' ');
      first = false;
      const std::string& text = c < cells.size() ? cells[c] : std::string();
      out += PadCell(text, width[c], columns[c].left);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  std::vector<std::string> header_cells;
  for (const auto& column : columns) header_cells.push_back(column.header);
  std::string header = line(header_cells);
  std::string out = options.header_style ? options.header_style(header) : header;
  out += '\n';
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> cells = rows[r];
    if (elastic < n && elastic < cells.size()) cells[elastic] = names[r];
    out += line(cells) + '\n';
  }
  return out;
}

}  // namespace trainscope::report
