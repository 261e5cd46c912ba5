#include "golden/export_test_util.h"

#include <simdjson.h>
#include <sqlite3.h>

#include "test_paths.h"

namespace trainscope::testing {

std::map<std::pair<int64_t, int64_t>, int64_t> KernelsPerStep(const std::string& json) {
  std::map<std::pair<int64_t, int64_t>, int64_t> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS) return out;
  simdjson::dom::array ranks;
  if (doc["ranks"].get(ranks) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element rank : ranks) {
    int64_t number = -1;
    if (rank["rank"].get(number) != simdjson::SUCCESS) continue;
    simdjson::dom::array steps;
    if (rank["steps"].get(steps) != simdjson::SUCCESS) continue;
    for (simdjson::dom::element step : steps) {
      int64_t s = -1;
      if (step["step"].get(s) != simdjson::SUCCESS) s = -1;
      int64_t count = -1;
      if (step["kernels"]["count"].get(count) != simdjson::SUCCESS) count = -1;
      out[{number, s}] = count;
    }
  }
  return out;
}

int64_t SqliteCount(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t value = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      value = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close_v2(db);
  return value;
}

std::vector<std::vector<std::string>> SqliteRows(const std::string& path, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        std::vector<std::string>& row = rows.emplace_back();
        for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
          const unsigned char* text = sqlite3_column_text(stmt, c);
          row.emplace_back(text == nullptr ? "NULL" : reinterpret_cast<const char*>(text));
        }
      }
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close_v2(db);
  return rows;
}

std::vector<std::vector<std::string>> ReadExportCsv(const std::string& path) {
  const std::string text = ReadFileBytes(path);
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      fields.push_back(field);
      field.clear();
      lines.push_back(fields);
      fields.clear();
      ++i;
    } else {
      field.push_back(c);
    }
  }
  return lines;
}

int64_t Occurrences(const std::string& text, const std::string& part) {
  int64_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace trainscope::testing
