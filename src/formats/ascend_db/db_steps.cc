// The step tables of the rank database: STEP_TIME (the steps' device
// ranges, which place every row in its step) and OVERLAP_ANALYSIS (CANN's
// overlap lanes, summed per step as the step times).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include "core/numbers.h"
#include "formats/ascend_db/db_readers.h"

namespace trainscope::formats::ascend_db {

Result<std::vector<StepRange>> ReadStepTime(const SqliteDb& db, model::RankProfile* profile) {
  std::vector<StepRange> steps;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("STEP_TIME"));
  if (!present) {
    NoteMissingTable(db, "STEP_TIME table (step ranges; without it the capture is one step)",
                     profile);
    return steps;
  }
  static constexpr DbColumn kColumns[] = {{"id", true}, {"startNs", true}, {"endNs", true}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "STEP_TIME", "s", kColumns));
  RowLedger ledger(db.path() + ":STEP_TIME");
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> id = stmt.Int64(0);
    const std::optional<int64_t> start = stmt.Int64(1);
    const std::optional<int64_t> end = stmt.Int64(2);
    if (!id || *id < 0 || *id > INT32_MAX) {
      ledger.Skip(RowIssue::kUnparsableValue, "id", line, std::string(stmt.Text(0)));
    } else if (!start || !end) {
      ledger.Skip(RowIssue::kMissingValue, !start ? "startNs" : "endNs", line, "");
    } else if (!InTimeRange(*start) || !InTimeRange(*end) || *end < *start) {
      ledger.Skip(RowIssue::kValueOutOfRange, "step range", line,
                  fmt::format("{}..{}", *start, *end));
    } else {
      steps.push_back({static_cast<int32_t>(*id), *start, *end, *end});
      ledger.Use();
    }
  }));
  profile->ledgers.push_back(std::move(ledger));
  std::stable_sort(steps.begin(), steps.end(),
                   [](const StepRange& a, const StepRange& b) { return a.start_ns < b.start_ns; });
  int64_t reach = std::numeric_limits<int64_t>::min();
  for (StepRange& range : steps) {
    reach = std::max(reach, range.end_ns);
    range.reach_ns = reach;
  }
  return steps;
}

// OVERLAP_ANALYSIS: CANN's Overlap Analysis of the device timeline (type 0
// Computing, 1 Communication, 2 Communication(Not Overlapped), 3 Free), as
// trace_view.json's "Overlap Analysis" lanes: the segments into
// timeline.overlap, and per STEP_TIME step their sums as a step_trace row
// (Computing, Communication, Not Overlapped, Free; Overlapped =
// Communication - Not Overlapped; Stage = Computing + Not Overlapped +
// Free, as CANN's StepTraceTime). ReadAnalysisDb prefers analysis.db's
// StepTraceTime and checks it against these rows.
Status ReadOverlapAnalysis(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("OVERLAP_ANALYSIS"));
  if (!present) return Status::Ok();
  static constexpr DbColumn kColumns[] = {{"startNs", true}, {"endNs", true}, {"type", true}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "OVERLAP_ANALYSIS", "o", kColumns));
  RowLedger ledger(db.path() + ":OVERLAP_ANALYSIS");
  std::map<int32_t, std::array<int64_t, 4>> sums;  // step -> per type
  model::OverlapSegment segment;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    if (!ReadSpan(stmt, 0, 1, &ledger, line, &segment.start_ns, &segment.duration_ns)) return;
    const std::optional<int64_t> type = stmt.Int64(2);
    if (!type || *type < 0 || *type > 3) {
      ledger.Skip(RowIssue::kUnknownOverlapSegment, line, std::string(stmt.Text(2)));
      return;
    }
    segment.kind = static_cast<model::OverlapKind>(*type);
    ctx.profile->timeline.overlap.push_back(segment);
    const int32_t step = StepOf(*ctx.steps, segment.start_ns);
    if (step != model::kNoStep) {
      auto [it, inserted] = sums.try_emplace(step, std::array<int64_t, 4>{0, 0, 0, 0});
      AddSaturating(it->second[static_cast<size_t>(*type)], segment.duration_ns);
    }
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  for (const auto& [step, sum] : sums) {
    model::StepTraceRow row;
    row.step = step;
    row.computing_ns = sum[0];
    row.communication_ns = sum[1];
    row.communication_not_overlapped_ns = sum[2];
    row.free_ns = sum[3];
    row.overlapped_ns = std::max<int64_t>(0, sum[1] - sum[2]);
    row.stage_ns = row.overlap_step_ns();
    ctx.profile->step_trace.push_back(row);
  }
  return Status::Ok();
}

}  // namespace trainscope::formats::ascend_db
