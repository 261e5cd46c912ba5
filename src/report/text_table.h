// Terminal tables that fit the terminal: each column knows how important it
// is, and a table narrower than its content drops its least important
// columns first, then shortens its name column (model::DistinctElidedNames:
// the start and the distinguishing tail of each name, never two names as
// one). A cell is never split: a number stays beside its unit.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace trainscope::report {

struct TextColumn {
  std::string header;
  bool left = false;  // left-aligned (text), else right-aligned (numbers)
  // 0: always shown; 1 is dropped first when the table is too wide, then
  // 2, and so on (equal numbers: the rightmost first).
  int drop_order = 0;
  // The one shortening column (a name): it takes what the other columns
  // leave, at least |min_width| columns, at most |max_width| (0: its widest
  // cell). At most one column is elastic.
  bool elastic = false;
  size_t min_width = 12;
  size_t max_width = 0;
};

struct TextTableOptions {
  int width = 0;                  // the terminal's columns; 0: a pipe, lines kept whole
  size_t indent = 2;              // spaces before the first column
  size_t gap = 1;                 // spaces between two columns
  size_t pipe_name_columns = 64;  // the elastic column's widest on a pipe
  // Wraps the header line (bold on a terminal); identity when unset.
  std::function<std::string(const std::string&)> header_style;
};

// |text| padded with spaces on the right to |columns| visible columns.
std::string PadToColumns(const std::string& text, size_t columns);

// The table as text, one line per row and the header first, each line
// ending in '\n' and with no trailing spaces. Rows are cells in column order.
std::string RenderTextTable(const std::vector<TextColumn>& columns,
                            const std::vector<std::vector<std::string>>& rows,
                            const TextTableOptions& options);

}  // namespace trainscope::report
