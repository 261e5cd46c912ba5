// analysis.db: the communication tables (CommAnalyzerTime,
// CommAnalyzerBandwidth, CommAnalyzerMatrix: the db export's
// communication.json and communication_matrix.json) and StepTraceTime (its
// step_trace_time.csv), checked against the rank database's
// OVERLAP_ANALYSIS sums.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "core/numbers.h"
#include "formats/ascend_db/ascend_db_reader.h"
#include "formats/ascend_db/db_tables.h"

namespace trainscope::formats {
namespace ascend_db {
namespace {

// analysis.db's communication tables, the db export's communication.json
// (CommAnalyzerTime + CommAnalyzerBandwidth) and communication_matrix.json
// (CommAnalyzerMatrix). Times ms, sizes MB, bandwidths GB/s, as the JSON.
// A value that cannot be a measurement (negative, not finite) is NaN:
// unknown, counted in one note per table.
class CommValues {
 public:
  CommValues(const SqliteStatement* stmt, std::string table)
      : stmt_(stmt), table_(std::move(table)) {}
  double Get(int column, std::string_view key) {
    const std::optional<double> v = stmt_->Double(column);
    if (!v) return 0;  // not reported
    if (!std::isfinite(*v) || *v < 0) {
      if (unknown_++ == 0) first_ = fmt::format("{} = {}", key, stmt_->Text(column));
      return std::numeric_limits<double>::quiet_NaN();
    }
    return *v;
  }
  void Report(const std::string& path, model::CommunicationData* data) const {
    if (unknown_ > 0) {
      data->notes.push_back(
          fmt::format("{}:{}: {} values not a measurement, read as unknown "
                      "(first: {})",
                      path, table_, unknown_, first_));
    }
  }

 private:
  const SqliteStatement* stmt_;
  std::string table_;
  int64_t unknown_ = 0;
  std::string first_;
};

// "step50" -> 50, else -1 (as communication.json's keys).
int32_t CommStep(std::string_view text) {
  text = TrimField(text);
  if (!text.starts_with("step")) return -1;
  const std::optional<int64_t> n = ParseInt64(text.substr(4));
  return n && *n >= 0 && *n <= INT32_MAX ? static_cast<int32_t>(*n) : -1;
}

double CommRatio(double part, double transit) {
  const double whole = part + transit;
  return whole > 0 ? part / whole : 0;
}

// (op name, group) -> the op's place in CommunicationData::ops.
using CommOpIndex = std::map<std::pair<std::string, std::string>, size_t>;

// CommAnalyzerTime: one row per op.
Result<CommOpIndex> ReadCommAnalyzerTime(const SqliteDb& db, model::RankProfile* profile) {
  static constexpr DbColumn kTime[] = {{"hccl_op_name", true},
                                       {"group_name", false},
                                       {"start_timestamp", false},
                                       {"elapse_time", false},
                                       {"transit_time", false},
                                       {"wait_time", false},
                                       {"synchronization_time", false},
                                       {"idle_time", false},
                                       {"step", false},
                                       {"type", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "CommAnalyzerTime", "c", kTime));
  model::CommunicationData& data = profile->communication;
  RowLedger ledger(db.path() + ":CommAnalyzerTime");
  CommValues values(&stmt, "CommAnalyzerTime");
  CommOpIndex index;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t /*line*/) {
    model::CommOpRecord op;
    op.name = std::string(stmt.Text(0));
    op.group_hash = std::string(stmt.Text(1));
    op.start_us = values.Get(2, "start_timestamp");
    op.elapse_ms = values.Get(3, "elapse_time");
    op.transit_ms = values.Get(4, "transit_time");
    op.wait_ms = values.Get(5, "wait_time");
    op.sync_ms = values.Get(6, "synchronization_time");
    op.idle_ms = values.Get(7, "idle_time");
    op.step = CommStep(stmt.Text(8));
    op.p2p = stmt.Text(9) == "p2p";
    op.wait_ratio = CommRatio(op.wait_ms, op.transit_ms);
    op.sync_ratio = CommRatio(op.sync_ms, op.transit_ms);
    index.emplace(std::make_pair(op.name, op.group_hash), data.ops.size());
    data.ops.push_back(std::move(op));
    ledger.Use();
  }));
  values.Report(db.path(), &data);
  profile->ledgers.push_back(std::move(ledger));
  data.ops_present = true;
  return index;
}

// CommAnalyzerBandwidth: per op and transport, one row per packet-size
// bucket, the totals repeated; onto the ops of |index|.
Status ReadCommAnalyzerBandwidth(const SqliteDb& db, const CommOpIndex& index,
                                 model::RankProfile* profile) {
  static constexpr DbColumn kBandwidth[] = {{"hccl_op_name", true},       {"group_name", false},
                                            {"transport_type", true},     {"transit_size", false},
                                            {"transit_time", false},      {"bandwidth", false},
                                            {"large_packet_ratio", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                      SelectFrom(db, "CommAnalyzerBandwidth", "b", kBandwidth));
  model::CommunicationData& data = profile->communication;
  RowLedger ledger(db.path() + ":CommAnalyzerBandwidth");
  CommValues values(&stmt, "CommAnalyzerBandwidth");
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t /*line*/) {
    auto it = index.find({std::string(stmt.Text(0)), std::string(stmt.Text(1))});
    model::CommTransportBandwidth b;
    b.transport = std::string(stmt.Text(2));
    b.size_mb = values.Get(3, "transit_size");
    b.time_ms = values.Get(4, "transit_time");
    b.bandwidth_gbps = values.Get(5, "bandwidth");
    b.large_packet_ratio = values.Get(6, "large_packet_ratio");
    if (b.size_mb > 0 && !(b.time_ms > 0) && b.bandwidth_gbps != 0) {
      b.bandwidth_gbps = std::numeric_limits<double>::quiet_NaN();  // size over no time
    }
    // Rows of one (op, transport) repeat its totals per packet-size bucket;
    // transports that moved nothing are left out, as from the JSON.
    const bool keep = it != index.end() && b.size_mb != 0;
    if (keep) {
      std::vector<model::CommTransportBandwidth>& kept = data.ops[it->second].bandwidth;
      if (std::none_of(kept.begin(), kept.end(), [&](const model::CommTransportBandwidth& x) {
            return x.transport == b.transport;
          })) {
        kept.push_back(std::move(b));
      }
    }
    ledger.Use();  // every row is the op's detail (repeats and empty transports included)
  }));
  values.Report(db.path(), &data);
  profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

// CommAnalyzerMatrix: "<type>-<statistic>" per link, as communication_matrix.json.
Status ReadCommAnalyzerMatrix(const SqliteDb& db, model::RankProfile* profile) {
  static constexpr DbColumn kMatrix[] = {
      {"hccl_op_name", true},  {"group_name", false},     {"src_rank", true},
      {"dst_rank", true},      {"transport_type", false}, {"transit_size", false},
      {"transit_time", false}, {"bandwidth", false},      {"step", false},
      {"type", false},         {"op_name", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "CommAnalyzerMatrix", "m", kMatrix));
  model::CommunicationData& data = profile->communication;
  RowLedger ledger(db.path() + ":CommAnalyzerMatrix");
  CommValues values(&stmt, "CommAnalyzerMatrix");
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> src = stmt.Int64(2);
    const std::optional<int64_t> dst = stmt.Int64(3);
    if (!src || !dst || *src < 0 || *dst < 0 || *src > INT32_MAX || *dst > INT32_MAX) {
      ledger.Skip(RowIssue::kUnparsableValue, !src ? "src_rank" : "dst_rank", line,
                  fmt::format("{} -> {}", stmt.Text(2), stmt.Text(3)));
      return;
    }
    model::CommLinkRecord link;
    const std::string_view key = stmt.Text(0);
    const size_t dash = key.rfind('-');
    link.op_type = std::string(key.substr(0, dash));
    link.statistic = dash == std::string_view::npos ? "" : std::string(key.substr(dash + 1));
    link.group_hash = std::string(stmt.Text(1));
    link.src = static_cast<int32_t>(*src);
    link.dst = static_cast<int32_t>(*dst);
    link.transport = std::string(stmt.Text(4));
    link.size_mb = values.Get(5, "transit_size");
    link.time_ms = values.Get(6, "transit_time");
    link.bandwidth_gbps = values.Get(7, "bandwidth");
    if (link.size_mb > 0 && !(link.time_ms > 0) && link.bandwidth_gbps != 0) {
      link.bandwidth_gbps = std::numeric_limits<double>::quiet_NaN();
    }
    link.step = CommStep(stmt.Text(8));
    link.p2p = stmt.Text(9) == "p2p";
    link.op_name = std::string(stmt.Text(10));
    data.links.push_back(std::move(link));
    ledger.Use();
  }));
  values.Report(db.path(), &data);
  profile->ledgers.push_back(std::move(ledger));
  data.matrix_present = true;
  return Status::Ok();
}

// analysis.db's StepTraceTime row against OVERLAP_ANALYSIS's sums of the
// same step: a quantity off by more than kOverlapToleranceNs is a warning
// (one of the two tables is incomplete).
constexpr int64_t kOverlapToleranceNs = 1000;

void CheckAgainstOverlap(const std::vector<model::StepTraceRow>& derived, const std::string& path,
                         model::RankProfile* profile) {
  for (const model::StepTraceRow& from_segments : derived) {
    const model::StepTraceRow* table = profile->StepTraceOf(from_segments.step);
    if (table == nullptr) {
      profile->warnings.push_back(fmt::format(
          "{}:StepTraceTime has no row for step {}, which the OVERLAP_ANALYSIS table of the rank's "
          "database covers",
          path, from_segments.step));
      continue;
    }
    const std::pair<std::string_view, int64_t model::StepTraceTimes::*> kFields[] = {
        {"computing", &model::StepTraceTimes::computing_ns},
        {"communication", &model::StepTraceTimes::communication_ns},
        {"communication_not_overlapped", &model::StepTraceTimes::communication_not_overlapped_ns},
        {"free", &model::StepTraceTimes::free_ns}};
    for (const auto& [name, field] : kFields) {
      const int64_t a = table->*field;
      const int64_t b = from_segments.*field;
      if (std::abs(a - b) <= kOverlapToleranceNs) continue;
      profile->warnings.push_back(fmt::format(
          "{}:StepTraceTime step {}: {} {:.3f} µs differs from the sum of the OVERLAP_ANALYSIS "
          "segments of the rank's database, {:.3f} µs (tolerance {} µs): one of the two tables is "
          "incomplete; the time budget is compared with StepTraceTime",
          path, from_segments.step, name, static_cast<double>(a) / 1e3,
          static_cast<double>(b) / 1e3, kOverlapToleranceNs / 1000));
    }
  }
}

// One StepTraceTime row (step "step50" or 50; times REAL µs) into |row|,
// or the skip reason on |ledger|.
bool ReadStepTraceRow(const SqliteStatement& stmt, int64_t line, RowLedger* ledger,
                      model::StepTraceRow* row) {
  static constexpr std::string_view kKeys[] = {"computing",  "communication_not_overlapped",
                                               "overlapped", "communication",
                                               "free",       "stage",
                                               "bubble",     "preparing"};
  std::string_view step_text = TrimField(stmt.Text(0));
  if (step_text.starts_with("step")) step_text.remove_prefix(4);
  const std::optional<int64_t> step = ParseInt64(step_text);
  if (!step || *step < 0 || *step > INT32_MAX) {
    ledger->Skip(RowIssue::kUnparsableValue, "step", line, std::string(stmt.Text(0)));
    return false;
  }
  row->step = static_cast<int32_t>(*step);
  // Times are REAL µs: read through SQLite's decimal rendering, never as
  // a double, like the CSV's cells.
  int64_t* const fields[] = {&row->computing_ns,  &row->communication_not_overlapped_ns,
                             &row->overlapped_ns, &row->communication_ns,
                             &row->free_ns,       &row->stage_ns,
                             &row->bubble_ns,     nullptr};
  int64_t preparing = 0;
  for (int i = 0; i < 8; ++i) {
    if (stmt.IsNull(i + 1)) continue;
    const std::optional<int64_t> ns = ParseMicrosToNanos(stmt.Text(i + 1));
    if (!ns) {
      ledger->Skip(RowIssue::kUnparsableValue, kKeys[i], line, std::string(stmt.Text(i + 1)));
      return false;
    }
    if (!InTimeRange(*ns)) {
      ledger->Skip(RowIssue::kValueOutOfRange, kKeys[i], line, std::string(stmt.Text(i + 1)));
      return false;
    }
    *(fields[i] != nullptr ? fields[i] : &preparing) = *ns;
  }
  if (!stmt.IsNull(8)) row->preparing_ns = preparing;
  if (const std::optional<int64_t> device = stmt.Int64(9);  // CANN 8.3+
      device && *device >= 0 && *device <= INT32_MAX) {
    row->device_id = static_cast<int32_t>(*device);
  }
  return true;
}

// StepTraceTime (the step_trace_time.csv of the db export): its rows
// replace the ones OVERLAP_ANALYSIS gave (kept if the table fails or has
// none), and are checked against them.
Status ReadStepTraceTime(const SqliteDb& db, model::RankProfile* profile) {
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("StepTraceTime"));
  if (!present) {
    if (profile->step_trace.empty()) {
      profile->missing_files.push_back(
          "analysis.db: StepTraceTime table (the profiler's own step accounting)");
    }
    return Status::Ok();  // the OVERLAP_ANALYSIS rows, if any, stand
  }
  std::vector<model::StepTraceRow> rows;
  static constexpr DbColumn kColumns[] = {
      {"step", true},       {"computing", true},     {"communication_not_overlapped", true},
      {"overlapped", true}, {"communication", true}, {"free", true},
      {"stage", false},     {"bubble", false},       {"preparing", false},
      {"deviceId", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "StepTraceTime", "s", kColumns));
  RowLedger ledger(db.path() + ":StepTraceTime");
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    model::StepTraceRow row;
    if (!ReadStepTraceRow(stmt, line, &ledger, &row)) return;
    rows.push_back(row);
    ledger.Use();
  }));
  profile->ledgers.push_back(std::move(ledger));
  if (!rows.empty()) {
    std::vector<model::StepTraceRow> derived;
    derived.swap(profile->step_trace);
    profile->step_trace = std::move(rows);
    CheckAgainstOverlap(derived, db.path(), profile);
  }
  return Status::Ok();
}

// CommAnalyzerTime (+ CommAnalyzerBandwidth) and CommAnalyzerMatrix, each
// noted when absent; the tables' notes become the rank's warnings.
Status ReadCommAnalyzerTables(const SqliteDb& db, model::RankProfile* profile) {
  TS_ASSIGN_OR_RETURN(bool has_time, db.HasTable("CommAnalyzerTime"));
  if (has_time) {
    TS_ASSIGN_OR_RETURN(const CommOpIndex index, ReadCommAnalyzerTime(db, profile));
    TS_ASSIGN_OR_RETURN(bool has_bandwidth, db.HasTable("CommAnalyzerBandwidth"));
    if (has_bandwidth) TS_RETURN_IF_ERROR(ReadCommAnalyzerBandwidth(db, index, profile));
  } else {
    profile->missing_files.push_back(
        "analysis.db: CommAnalyzerTime table (Level1+ only; per-op transit/wait/synchronization "
        "times for the cluster analysis)");
  }
  TS_ASSIGN_OR_RETURN(bool has_matrix, db.HasTable("CommAnalyzerMatrix"));
  if (has_matrix) {
    TS_RETURN_IF_ERROR(ReadCommAnalyzerMatrix(db, profile));
  } else {
    profile->missing_files.push_back(
        "analysis.db: CommAnalyzerMatrix table (Level1+ only; per-link bandwidths for slow-link "
        "detection)");
  }
  for (std::string& note : profile->communication.notes) {
    profile->warnings.push_back(std::move(note));
  }
  profile->communication.notes.clear();
  return Status::Ok();
}

}  // namespace
}  // namespace ascend_db

Status ReadAnalysisDb(const std::string& path, model::RankProfile* profile) {
  TS_ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::OpenReadOnly(path));
  ascend_db::WarnAboutWal(path, profile);
  TS_RETURN_IF_ERROR(ascend_db::ReadCommAnalyzerTables(db, profile));
  return ascend_db::ReadStepTraceTime(db, profile);
}

}  // namespace trainscope::formats
