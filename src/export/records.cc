#include "export/records.h"

#include <fmt/format.h>

#include <iterator>

namespace trainscope::exports {
namespace {

std::string_view SqlType(ColumnType type) {
  switch (type) {
    case ColumnType::kInteger:
      return "INTEGER";
    case ColumnType::kReal:
      return "REAL";
    case ColumnType::kText:
      return "TEXT";
  }
  return "TEXT";
}

std::string_view DocType(ColumnType type, bool csv) {
  switch (type) {
    case ColumnType::kInteger:
      return "integer";
    case ColumnType::kReal:
      return csv ? "decimal" : "real";
    case ColumnType::kText:
      return "text";
  }
  return "text";
}

}  // namespace

std::string CreateTableSql(const Record& record) {
  std::string sql = fmt::format("CREATE TABLE {}(", record.name);
  for (size_t i = 0; i < record.columns.size(); ++i) {
    const Column& c = record.columns[i];
    if (i > 0) sql.append(", ");
    sql.append(c.name);
    sql.push_back(' ');
    sql.append(SqlType(c.type));
    if (!c.constraint.empty()) {
      sql.push_back(' ');
      sql.append(c.constraint);
    }
  }
  sql.append(");");
  return sql;
}

std::string InsertSql(const Record& record) {
  std::string sql = fmt::format("INSERT INTO {} VALUES(", record.name);
  for (size_t i = 0; i < record.columns.size(); ++i) sql.append(i == 0 ? "?" : ",?");
  sql.push_back(')');
  return sql;
}

std::string CsvHeader(const Record& record) {
  std::string header;
  for (const Column& c : record.columns) {
    if (!header.empty()) header.push_back(',');
    header.append(c.name);
  }
  return header;
}

std::string RecordsMarkdown(std::span<const Record> records, bool csv) {
  std::string out;
  for (const Record& record : records) {
    fmt::format_to(std::back_inserter(out), "### `{}{}`\n\n{}.\n\n", record.name, csv ? ".csv" : "",
                   record.description);
    out.append("| column | type | unit | meaning |\n|---|---|---|---|\n");
    for (const Column& c : record.columns) {
      std::string type(DocType(c.type, csv));
      if (!c.constraint.empty()) fmt::format_to(std::back_inserter(type), " ({})", c.constraint);
      const std::string unit = c.unit.empty() ? std::string() : fmt::format("`{}`", c.unit);
      fmt::format_to(std::back_inserter(out), "| `{}` | {} | {} | {} |\n", c.name, type, unit,
                     c.description);
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace trainscope::exports
