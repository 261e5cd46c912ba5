// Reading back what the exports wrote, for the export tests: a JSON
// report's per-step kernel counts and an SQLite count.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainscope::testing {

// (rank, step) -> kernels.count of every step of every rank of a JSON
// report (step -1 for a null step); empty when it does not parse.
std::map<std::pair<int64_t, int64_t>, int64_t> KernelsPerStep(const std::string& json);

// The single integer |sql| returns from the database at |path|; -1 on error.
int64_t SqliteCount(const std::string& path, const std::string& sql);

// Every row |sql| returns, each column as text ("NULL" for NULL); empty on
// error.
std::vector<std::vector<std::string>> SqliteRows(const std::string& path, const std::string& sql);

// The lines of a CSV file as the CSV export writes it (RFC 4180: quoted
// fields, doubled quotes, CRLF), the header first; each line its fields.
std::vector<std::vector<std::string>> ReadExportCsv(const std::string& path);

// How many times |part| occurs in |text|.
int64_t Occurrences(const std::string& text, const std::string& part);

}  // namespace trainscope::testing
