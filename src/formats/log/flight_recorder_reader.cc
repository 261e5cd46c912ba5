#include "formats/log/flight_recorder_reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>

#include "core/mapped_file.h"

namespace trainscope::formats {
namespace {

// "[0, 1, 2, 3]" (ranks_str) -> the numbers.
std::vector<int64_t> ParseRanks(std::string_view text) {
  std::vector<int64_t> out;
  int64_t v = 0;
  bool in = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      v = v * 10 + (c - '0');
      in = true;
    } else if (in) {
      out.push_back(v);
      v = 0;
      in = false;
    }
  }
  if (in) out.push_back(v);
  return out;
}

int64_t LastNumber(std::string_view name) {
  const size_t end = name.find_last_of("0123456789");
  if (end == std::string_view::npos) return -1;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1])) != 0) --begin;
  if (end - begin >= 9) return -1;
  return std::stoll(std::string(name.substr(begin, end - begin + 1)));
}

// Both helpers take the lookup's result, not an element: a missing key
// (or a lookup on a non-object) is an error value, and converting that to
// an element throws simdjson_error, which fuzzing found on a dump whose
// entry lacked "collective_seq_id".
// A missing, mistyped or unreadable number is unknown (nullopt), never 0.
std::optional<int64_t> IntOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  simdjson::dom::element e;
  if (field.get(e) != simdjson::SUCCESS) return std::nullopt;
  int64_t v = 0;
  if (e.get(v) == simdjson::SUCCESS) return v;
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) {  // the pickle-era string seq ids
    int64_t out = 0;
    if (s.empty() || s.size() > 18) return std::nullopt;
    for (char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      out = out * 10 + (c - '0');
    }
    return out;
  }
  return std::nullopt;
}

std::string StringOf(simdjson::dom::element e) {
  std::string_view s;
  return e.get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

std::string StringOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  simdjson::dom::element e;
  return field.get(e) == simdjson::SUCCESS ? StringOf(e) : std::string();
}

std::optional<double> DoubleOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  simdjson::dom::element e;
  if (field.get(e) != simdjson::SUCCESS) return std::nullopt;
  double v = 0;
  if (e.get(v) == simdjson::SUCCESS) return v;
  int64_t i = 0;
  if (e.get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  return std::nullopt;
}

// "input_sizes": [[2048, 5120], [16]]: one shape per tensor.
std::vector<std::vector<int64_t>> ShapesOf(
    simdjson::simdjson_result<simdjson::dom::element> field) {
  std::vector<std::vector<int64_t>> out;
  simdjson::dom::array shapes;
  if (field.get(shapes) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element shape : shapes) {
    std::vector<int64_t> dims;
    simdjson::dom::array arr;
    if (shape.get(arr) == simdjson::SUCCESS) {
      for (simdjson::dom::element d : arr) {
        int64_t v = 0;
        if (d.get(v) == simdjson::SUCCESS) dims.push_back(v);
      }
    }
    out.push_back(std::move(dims));
  }
  return out;
}

std::vector<std::string> StringsOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  std::vector<std::string> out;
  simdjson::dom::array arr;
  if (field.get(arr) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element e : arr) out.push_back(StringOf(e));
  return out;
}

// A pg_status id: -1 (never) is unknown.
std::optional<int64_t> SeqOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  std::optional<int64_t> v = IntOf(field);
  if (v && *v < 0) return std::nullopt;
  return v;
}

}  // namespace

Result<model::FlightRecorderDump> ParseFlightRecorderJson(std::string_view json,
                                                          const std::string& name) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const simdjson::padded_string padded(json);
  if (auto err = parser.parse(padded).get(doc); err != simdjson::SUCCESS) {
    return InvalidInput(
        fmt::format("{}: not JSON ({})\nhint: a flight-recorder dump in JSON is "
                    "what torch._C._distributed_c10d._dump_nccl_trace_json() "
                    "returns",
                    name, simdjson::error_message(err)));
  }
  simdjson::dom::object root;
  if (doc.get(root) != simdjson::SUCCESS || root["pg_config"].error() != simdjson::SUCCESS) {
    return InvalidInput(fmt::format("{}: no pg_config: not a flight-recorder dump", name));
  }
  model::FlightRecorderDump d;
  d.path = name;
  d.rank = LastNumber(std::filesystem::path(name).filename().string());
  simdjson::dom::object config;
  if (root["pg_config"].get(config) == simdjson::SUCCESS) {
    for (auto [key, value] : config) {
      d.pg_ranks[std::string(key)] = ParseRanks(StringOf(value["ranks"]));
      const std::string desc = StringOf(value["desc"]);
      if (!desc.empty()) d.pg_descs[std::string(key)] = desc;
    }
  }
  d.version = StringOf(root["version"]);
  simdjson::dom::object status;
  if (root["pg_status"].get(status) == simdjson::SUCCESS) {
    for (auto [key, value] : status) {
      model::FlightRecorderPgStatus st;
      st.last_enqueued = SeqOf(value["last_enqueued_collective"]);
      st.last_started = SeqOf(value["last_started_collective"]);
      st.last_completed = SeqOf(value["last_completed_collective"]);
      d.pg_status[std::string(key)] = st;
    }
  }
  simdjson::dom::array entries;
  if (root["entries"].get(entries) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : entries) {
      model::FlightRecorderEntry fe;
      simdjson::dom::array pg;
      if (e["process_group"].get(pg) == simdjson::SUCCESS) {
        size_t i = 0;
        for (simdjson::dom::element part : pg) {
          (i++ == 0 ? fe.pg_name : fe.pg_desc) = StringOf(part);
        }
      }
      fe.collective_seq_id = IntOf(e["collective_seq_id"]);
      fe.record_id = IntOf(e["record_id"]);
      fe.profiling_name = StringOf(e["profiling_name"]);
      fe.state = StringOf(e["state"]);
      bool p2p = false;
      if (e["is_p2p"].get(p2p) == simdjson::SUCCESS) fe.is_p2p = p2p;
      fe.pg_id = IntOf(e["pg_id"]);
      fe.p2p_seq_id = IntOf(e["p2p_seq_id"]);
      fe.input_sizes = ShapesOf(e["input_sizes"]);
      fe.output_sizes = ShapesOf(e["output_sizes"]);
      fe.input_dtypes = StringsOf(e["input_dtypes"]);
      fe.output_dtypes = StringsOf(e["output_dtypes"]);
      fe.time_created_ns = IntOf(e["time_created_ns"]);
      fe.timeout_ms = IntOf(e["timeout_ms"]);
      fe.duration_ms = DoubleOf(e["duration_ms"]);
      d.entries.push_back(std::move(fe));
    }
  }
  return d;
}

FlightRecorderScan ScanFlightRecorderDumps(const std::vector<std::string>& dirs) {
  FlightRecorderScan scan;
  std::set<std::string> seen;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::string file = entry.path().filename().string();
      if (file.find("nccl_trace") == std::string::npos &&
          file.find("fr_trace") == std::string::npos &&
          file.find("flight_recorder") == std::string::npos) {
        continue;
      }
      if (!entry.is_regular_file(ec) || !seen.insert(entry.path().string()).second) continue;
      Result<MappedFile> mapped = MappedFile::Open(entry.path().string());
      if (!mapped.ok()) {
        scan.errors.push_back(mapped.status().message());
        continue;
      }
      const std::string_view bytes = mapped->data();
      if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x80) {
        scan.pickles.push_back(entry.path().string());  // pickle protocol 2+
        continue;
      }
      Result<model::FlightRecorderDump> d = ParseFlightRecorderJson(bytes, entry.path().string());
      if (!d.ok()) {
        scan.errors.push_back(d.status().message());
        continue;
      }
      scan.dumps.push_back(std::move(*d));
    }
  }
  std::sort(scan.dumps.begin(), scan.dumps.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  std::sort(scan.pickles.begin(), scan.pickles.end());
  return scan;
}

}  // namespace trainscope::formats
