// The records trainscope exports, each declared once: every SQLite table
// (`--sqlite`) and every CSV file (`--csv`) is a Record, a list of columns
// with name, type, unit and meaning. From these declarations come the
// CREATE TABLE statements and the INSERT statements of sqlite_export.cc
// (values are bound by column name, checked at compile time), the header
// rows of csv_export.cc, and the column tables of docs/exports.md
// (RecordsMarkdown; ExportRecords.DocsListEveryDeclaredColumn compares the
// page with them).
//
// Units (docs/exports.md, "Units and names"): SQLite times are int64 ns,
// CSV times µs with three decimals ("us"); a share is a fraction in [0, 1],
// a *_pct a percentage in [0, 100]; "" for an id, a name or a flag.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace trainscope::exports {

enum class ColumnType { kInteger, kReal, kText };

struct Column {
  std::string_view name;
  ColumnType type;
  std::string_view unit;         // ns, us, bytes, count, fraction, pct, GB/s; "" for none
  std::string_view constraint;   // SQLite column constraint ("NOT NULL"), "" for none
  std::string_view description;  // one line for docs/exports.md
};

// Where a record's rows are in the analysis JSON (`analyze --json`,
// docs/schema/trainscope.analysis.schema.json) and which JSON field each
// column is, so that one test (ExportRecordsJson) checks both carry the
// same value after the units' conversion, and that the schema declares the
// field. A column needs no entry when its JSON field has its name, a time
// column's unit suffix (_ns, _us) read as the JSON's _us.
struct JsonField {
  std::string_view column;
  // The field's path in the row ("kernels.count"); "../rank": the enclosing
  // row's; "#0" / "#1": the row's 0- / 1-based position in its array ("../#1":
  // the enclosing row's); "" when the JSON has no such field (|why| says why).
  std::string_view json;
  std::string_view why = {};
};

struct JsonView {
  // The rows: dotted fields, "[]" after an array's name ("ranks[].steps[]");
  // a field without it is one object per enclosing row.
  std::string_view rows;
  std::span<const std::string_view> keys;  // the columns that identify a row
  std::span<const JsonField> fields;       // columns not named by the rule above
  // Rows whose |elsewhere_column| is |elsewhere_value| ("NULL": unknown)
  // are not among these JSON rows; |elsewhere_why| says where they are.
  std::string_view elsewhere_column = {};
  std::string_view elsewhere_value = {};
  std::string_view elsewhere_why = {};
};

struct Record {
  std::string_view name;         // the table, or the CSV file without ".csv"
  std::string_view description;  // what one row is
  std::span<const Column> columns;
  const JsonView* json = nullptr;  // null: the analysis JSON has no such rows
};

void NoSuchColumn();  // never defined: reached only by a misspelt column name

// The 0-based index of the column |name|; a compile error when the record
// has no such column.
consteval size_t ColumnIndex(std::span<const Column> columns, std::string_view name) {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  NoSuchColumn();  // not constexpr: the call is a compile-time error
  return columns.size();
}

// A column name as a template argument: Bind<"start_ns">(v).
template <size_t N>
struct ColumnName {
  char text[N] = {};
  consteval ColumnName(const char (&name)[N]) {  // implicit: Bind<"name">
    for (size_t i = 0; i < N; ++i) text[i] = name[i];
  }
  constexpr std::string_view view() const { return {text, N - 1}; }
};

namespace columns {

using enum ColumnType;

// ---- SQLite (times in int64 ns) ----

inline constexpr Column kMeta[] = {
    {"key", kText, "", "PRIMARY KEY", "`schema`, `generator` or `time_unit`"},
    {"value", kText, "", "",
     "`trainscope.sqlite/N`, `trainscope VERSION`, `ns` (every time in the database)"},
};

inline constexpr Column kRanks[] = {
    {"rank", kInteger, "", "", "the rank"},
    {"source", kText, "", "", "the rank's directory or trace file, as found"},
    {"platform", kText, "", "", "ascend, cuda, rocm, gpu, mtia or unknown"},
    {"torch_npu_version", kText, "", "", "NULL when the profile does not say"},
    {"cann_version", kText, "", "", "NULL when the profile does not say"},
    {"profiler_level", kText, "", "", "NULL when the profile does not say"},
    {"steps_from", kText, "", "", "where the step numbers came from; NULL when none"},
    {"selected_step", kInteger, "", "", "the job's step on this rank"},
    {"selected_step_reason", kText, "", "", "why that step was chosen"},
};

inline constexpr Column kKernels[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "the step it ran in; NULL outside steps"},
    {"stream", kInteger, "", "", "the device stream; NULL when the export has none"},
    {"device", kInteger, "", "", "the device; NULL when unknown"},
    {"kind", kText, "", "NOT NULL", "compute, communication, memcpy or memset"},
    {"name", kText, "", "NOT NULL", "the kernel name, as in the profile"},
    {"op_type", kText, "", "", "the operator type; NULL when the export gives none"},
    {"family", kText, "", "", "the family (data/families.tsv)"},
    {"start_ns", kInteger, "ns", "NOT NULL", "start time"},
    {"dur_ns", kInteger, "ns", "NOT NULL", "duration"},
    {"end_ns", kInteger, "ns", "NOT NULL", "start + duration"},
    {"fingerprint", kText, "", "", "id/variant of the fingerprint instance it is in"},
    {"motif", kText, "", "", "label of the mined chain instance it is in"},
    {"motif_instance", kInteger, "", "", "the instance's number in its step"},
    {"input_shapes", kText, "", "", "as in the profile; NULL when absent"},
    {"input_dtypes", kText, "", "", "as in the profile; NULL when absent"},
    {"correlation", kInteger, "", "", "the launch's correlation id; NULL when none"},
};

inline constexpr Column kHostOps[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"pid", kInteger, "", "", "host process"},
    {"tid", kInteger, "", "", "host thread"},
    {"name", kText, "", "", "the op's name"},
    {"category", kText, "", "", "the trace's category; NULL when none"},
    {"start_ns", kInteger, "ns", "NOT NULL", "start time"},
    {"dur_ns", kInteger, "ns", "NOT NULL", "duration"},
    {"depth", kInteger, "", "", "nesting depth on its thread"},
    {"launches", kInteger, "count", "", "device events it launched"},
};

inline constexpr Column kSteps[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "NULL for the whole capture of a profile without step numbers"},
    {"selected", kInteger, "", "NOT NULL DEFAULT 0", "1 for the job's selected step"},
    {"kernels", kInteger, "count", "", "compute and communication kernels"},
    {"compute_kernels", kInteger, "count", "", "compute kernels"},
    {"communication_kernels", kInteger, "count", "", "communication kernels"},
    {"memcpy", kInteger, "count", "", "copies; NULL where the source does not record copies"},
    {"memset", kInteger, "count", "", "memsets; NULL where the source does not record copies"},
    {"span_ns", kInteger, "ns", "", "first kernel start to last end; NULL without kernels"},
    {"kernel_time_ns", kInteger, "ns", "", "sum of kernel durations"},
    {"p50_ns", kReal, "ns", "", "median kernel duration"},
    {"p90_ns", kReal, "ns", "", "90th percentile kernel duration"},
    {"p99_ns", kReal, "ns", "", "99th percentile kernel duration"},
    {"max_ns", kInteger, "ns", "", "longest kernel"},
    {"budget_source", kText, "", "", "where the interval-union budget came from"},
    {"window_ns", kInteger, "ns", "", "the budget's window"},
    {"busy_ns", kInteger, "ns", "", "union of all device activity"},
    {"computation_ns", kInteger, "ns", "", "union of compute"},
    {"communication_ns", kInteger, "ns", "", "union of communication"},
    {"exposed_communication_ns", kInteger, "ns", "", "communication under no compute"},
    {"memcpy_ns", kInteger, "ns", "", "union of copies"},
    {"exposed_memcpy_ns", kInteger, "ns", "", "copies under no compute"},
    {"memset_ns", kInteger, "ns", "", "union of memsets"},
    {"free_ns", kInteger, "ns", "", "window with no device activity"},
};

inline constexpr Column kCollectives[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "the step"},
    {"key", kText, "", "", "the same on every rank for one instance"},
    {"type", kText, "", "", "all-reduce, all-gather, ..."},
    {"start_ns", kInteger, "ns", "", "start time"},
    {"dur_ns", kInteger, "ns", "", "duration"},
    {"bytes", kReal, "bytes", "", "the message S (docs/clusters.md §1); NULL unknown"},
    {"group_size", kInteger, "count", "", "the group's; NULL when the rank's export does not say"},
    {"transit_ns", kInteger, "ns", "", "communication.json; NULL unknown"},
    {"wait_ns", kInteger, "ns", "", "communication.json; NULL unknown"},
    {"sync_ns", kInteger, "ns", "", "communication.json; NULL unknown"},
};

inline constexpr Column kMotifs[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "the step"},
    {"motif", kInteger, "", "NOT NULL", "index in the step"},
    {"label", kText, "", "", "fingerprint id/variant or the mined chain's label"},
    {"fingerprint", kText, "", "", "the fingerprint id; NULL for a mined chain"},
    {"variant", kText, "", "", "the fingerprint's variant; NULL when none"},
    {"stream", kInteger, "", "", "the device stream"},
    {"length", kInteger, "count", "", "kernels in the chain"},
    {"chain", kText, "", "", "the chain's op types"},
    {"occurrences", kInteger, "count", "", "instances in the step"},
    {"period_ns", kReal, "ns", "", "mean time between instances"},
    {"total_ns", kInteger, "ns", "", "kernel time of all instances"},
    {"share_of_step", kReal, "fraction", "", "total_ns over the step's kernel time"},
    {"framework_op", kText, "", "", "the framework op it belongs to; NULL when unknown"},
    {"source", kText, "", "", "the source line; NULL when unknown"},
    {"attribution", kText, "", "", "how framework_op was found; NULL when unknown"},
};

inline constexpr Column kMotifInstances[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "the step"},
    {"motif", kInteger, "", "NOT NULL", "`motifs.motif`"},
    {"instance", kInteger, "", "NOT NULL", "the instance's number"},
    {"stream", kInteger, "", "", "the device stream"},
    {"start_ns", kInteger, "ns", "", "first kernel start"},
    {"end_ns", kInteger, "ns", "", "latest kernel end"},
    {"kernels", kInteger, "count", "", "kernels in the instance"},
    {"kernel_ns", kInteger, "ns", "", "their summed duration"},
};

inline constexpr Column kIdleGaps[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "the step"},
    {"start_ns", kInteger, "ns", "", "gap start"},
    {"end_ns", kInteger, "ns", "", "gap end"},
};

inline constexpr Column kPseudoOverlap[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "the step"},
    {"start_ns", kInteger, "ns", "", "window start"},
    {"end_ns", kInteger, "ns", "", "window end"},
    {"collective", kText, "", "", "the all-gather's `collectives.key`"},
};

inline constexpr Column kFindings[] = {
    {"finding", kInteger, "", "PRIMARY KEY", "rank in the portrait, 1 = largest gain"},
    {"id", kText, "", "NOT NULL", "the finding id (docs/findings.md)"},
    {"title", kText, "", "", "the worst rank's title"},
    {"estimated_gain_pct", kReal, "pct", "", "step-time saving; NULL when withheld"},
    {"gain_source", kText, "", "", "replay (its own replay across the ranks) or estimate"},
    {"occurrences", kInteger, "count", "", "instances per step, largest per-rank count"},
    {"evidence", kText, "", "", "the evidence sentence"},
    {"evidence_json", kText, "", "", "the evidence values, a JSON object"},
    {"root_cause", kText, "", "", "why it happens"},
    {"remedy", kText, "", "", "what to change"},
    {"gain_model", kText, "", "", "how the gain was estimated"},
};

inline constexpr Column kFindingRanks[] = {
    {"finding", kInteger, "", "NOT NULL", "`findings.finding`"},
    {"rank", kInteger, "", "NOT NULL", "a rank it was seen on"},
    {"step", kInteger, "", "", "the rank's selected step"},
    {"title", kText, "", "", "the rank's own title; NULL for a job-wide finding"},
    {"estimated_gain_pct", kReal, "pct", "", "the rank's own gain; NULL job-wide or withheld"},
    {"occurrences", kInteger, "count", "", "the rank's own count; NULL job-wide"},
    {"evidence_json", kText, "", "", "the rank's own evidence values; NULL job-wide"},
};

// The view finding_rows: its columns come from its query (sqlite_export.cc,
// kFindingRowsView); ExportRecords.FindingRowsViewHasTheDeclaredColumns
// checks they are these.
inline constexpr Column kFindingRows[] = {
    {"finding", kInteger, "", "", "`findings.finding`"},
    {"id", kText, "", "", "the finding id"},
    {"rank", kInteger, "", "", "NULL for a finding with no rank"},
    {"step", kInteger, "", "", "the rank's selected step"},
    {"values_of", kText, "", "", "`rank`: the rank's own values; `job`: a job-wide finding's"},
    {"title", kText, "", "", "the rank's title, or the finding's"},
    {"estimated_gain_pct", kReal, "pct", "", "the rank's gain, or the finding's"},
    {"occurrences", kInteger, "count", "", "the rank's count, or the finding's"},
    {"evidence_json", kText, "", "", "the rank's evidence values, or the finding's"},
};

inline constexpr Column kRankBudgets[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "the selected step"},
    {"span_ns", kInteger, "ns", "", "the step's span"},
    {"compute_ns", kInteger, "ns", "", "computation"},
    {"comm_ns", kInteger, "ns", "", "communication"},
    {"exposed_comm_ns", kInteger, "ns", "", "communication under no compute"},
    {"other_ns", kInteger, "ns", "", "copies, memsets"},
    {"free_ns", kInteger, "ns", "", "no device activity"},
    {"step_start_idle_ns", kInteger, "ns", "", "idle before the first kernel"},
    {"step_start_wait_collective_ns", kInteger, "ns", "", "first collective's wait at start"},
};

inline constexpr Column kMemory[] = {
    {"rank", kInteger, "", "NOT NULL", "the rank"},
    {"step", kInteger, "", "", "the step"},
    {"peak_allocated_bytes", kInteger, "bytes", "", "peak allocated; NULL unknown"},
    {"peak_allocated_ns", kInteger, "ns", "", "when it was reached; NULL unknown"},
    {"peak_reserved_bytes", kInteger, "bytes", "", "peak reserved; NULL unknown"},
    {"gap_at_peak_bytes", kInteger, "bytes", "", "reserved minus allocated at the peak"},
    {"gap_max_bytes", kInteger, "bytes", "", "largest reserved minus allocated"},
};

// ---- CSV (times in µs, three decimals) ----

inline constexpr Column kStepsCsv[] = {
    {"rank", kInteger, "", "", "the rank"},
    {"step", kInteger, "", "", "empty for a profile without step numbers"},
    {"selected", kInteger, "", "", "1 for the job's selected step"},
    {"kernels", kInteger, "count", "", "compute and communication kernels"},
    {"compute_kernels", kInteger, "count", "", "compute kernels"},
    {"communication_kernels", kInteger, "count", "", "communication kernels"},
    {"span_us", kReal, "us", "", "first kernel start to last end; empty without kernels"},
    {"kernel_time_us", kReal, "us", "", "sum of kernel durations"},
    {"budget_source", kText, "", "", "where the interval-union budget came from"},
    {"computation_us", kReal, "us", "", "union of compute"},
    {"communication_us", kReal, "us", "", "union of communication"},
    {"exposed_communication_us", kReal, "us", "", "communication under no compute"},
    {"free_us", kReal, "us", "", "window with no device activity"},
};

inline constexpr Column kStepsSummaryCsv[] = {
    {"step", kInteger, "", "", "the step"},
    {"selected", kInteger, "", "", "1 for the job's selected step"},
    {"ranks", kInteger, "count", "", "ranks that have the step"},
    {"mean_span_us", kReal, "us", "", "mean span over those ranks"},
    {"min_span_us", kReal, "us", "", "shortest span"},
    {"max_span_us", kReal, "us", "", "longest span"},
    {"slowest_rank", kInteger, "", "", "the rank with the longest span"},
    {"mean_kernels", kReal, "count", "", "mean kernels"},
    {"mean_kernel_time_us", kReal, "us", "", "mean kernel time"},
    {"budget_ranks", kInteger, "count", "", "ranks with a budget"},
    {"mean_computation_us", kReal, "us", "", "mean computation; empty without budgets"},
    {"mean_exposed_communication_us", kReal, "us", "", "mean exposed communication"},
    {"mean_free_us", kReal, "us", "", "mean free time"},
};

inline constexpr Column kFamiliesCsv[] = {
    {"rank", kInteger, "", "", "the rank"},
    {"step", kInteger, "", "", "the selected step"},
    {"family", kText, "", "", "the family (data/families.tsv)"},
    {"count", kInteger, "count", "", "kernels"},
    {"total_us", kReal, "us", "", "their summed duration"},
    {"share_count", kReal, "fraction", "", "of the step's kernels"},
    {"share_time", kReal, "fraction", "", "of the step's kernel time"},
};

inline constexpr Column kOperatorsCsv[] = {
    {"rank", kInteger, "", "", "the rank"},
    {"step", kInteger, "", "", "the selected step"},
    {"op_type", kText, "", "", "the operator type"},
    {"family", kText, "", "", "its family"},
    {"count", kInteger, "count", "", "kernels"},
    {"total_us", kReal, "us", "", "their summed duration"},
    {"mean_us", kReal, "us", "", "mean duration"},
    {"max_us", kReal, "us", "", "longest"},
    {"share_time", kReal, "fraction", "", "of the step's kernel time"},
    {"type_derived", kInteger, "", "", "1: op_type is derived from the kernel names"},
};

inline constexpr Column kCollectivesCsv[] = {
    {"type", kText, "", "", "the collective type"},
    {"count", kInteger, "count", "", "calls on all ranks, all steps"},
    {"calls", kInteger, "count", "", "instances matched across ranks"},
    {"timed_count", kInteger, "count", "", "calls off a kept timeline (set-aside: untimed)"},
    {"total_us", kReal, "us", "", "summed duration of the timed calls; empty none"},
    {"mean_us", kReal, "us", "", "per timed rank-call; empty none"},
    {"mean_bytes", kReal, "bytes", "", "message S per call; empty unknown"},
    {"algbw_gbps", kReal, "GB/s", "", "algorithm bandwidth per call; empty unknown"},
    {"busbw_gbps", kReal, "GB/s", "", "bus bandwidth per call; empty unknown"},
    {"group_size_min", kInteger, "count", "", "smallest group; empty unknown"},
    {"group_size_max", kInteger, "count", "", "largest group; empty unknown"},
    {"group_size_source", kText, "", "", "recorded, parallel_group_info, ... or unknown"},
    {"small_count", kInteger, "count", "", "small timed collectives; empty none timed"},
    {"small_us", kReal, "us", "", "their summed duration; empty none timed"},
};

inline constexpr Column kFindingsCsv[] = {
    {"finding", kInteger, "", "", "rank in the portrait, 1 = largest gain"},
    {"id", kText, "", "", "the finding id"},
    {"title", kText, "", "", "the worst rank's title"},
    {"estimated_gain_pct", kReal, "pct", "", "step-time saving; empty when withheld"},
    {"gain_source", kText, "", "", "replay (its own replay across the ranks) or estimate"},
    {"occurrences", kInteger, "count", "", "instances per step"},
    {"ranks", kText, "", "", "space-separated"},
    {"evidence", kText, "", "", "the evidence sentence"},
    {"evidence_values", kText, "", "", "`key=value; ...`"},
};

inline constexpr Column kFindingRanksCsv[] = {
    {"finding", kInteger, "", "", "`findings.csv` finding"},
    {"id", kText, "", "", "the finding id"},
    {"rank", kInteger, "", "", "a rank it was seen on"},
    {"step", kInteger, "", "", "the rank's selected step"},
    {"values_of", kText, "", "", "`rank` or `job`"},
    {"title", kText, "", "", "the rank's title, or the finding's"},
    {"estimated_gain_pct", kReal, "pct", "", "the rank's gain, or the finding's"},
    {"occurrences", kInteger, "count", "", "the rank's count, or the finding's"},
    {"evidence_values", kText, "", "", "`key=value; ...`"},
};

inline constexpr Column kBudgetsCsv[] = {
    {"rank", kInteger, "", "", "the rank"},
    {"step", kInteger, "", "", "the selected step"},
    {"span_us", kReal, "us", "", "the step's span"},
    {"compute_us", kReal, "us", "", "computation"},
    {"communication_us", kReal, "us", "", "communication"},
    {"exposed_communication_us", kReal, "us", "", "communication under no compute"},
    {"other_us", kReal, "us", "", "copies, memsets"},
    {"free_us", kReal, "us", "", "no device activity"},
    {"step_start_idle_us", kReal, "us", "", "idle before the first kernel"},
};

}  // namespace columns

// The analysis JSON's view of the records (JsonView).
namespace json_views {

inline constexpr std::string_view kRankKey[] = {"rank"};
inline constexpr std::string_view kRankStepKeys[] = {"rank", "step"};
inline constexpr std::string_view kFindingKey[] = {"finding"};
inline constexpr std::string_view kFindingRankKeys[] = {"finding", "rank"};

inline constexpr JsonField kRanks[] = {
    {"platform", "capture.platform"},         {"torch_npu_version", "capture.torch_npu_version"},
    {"cann_version", "capture.cann_version"}, {"profiler_level", "capture.profiler_level"},
    {"steps_from", "capture.steps_from"},
};
inline constexpr JsonView kRanksView{"ranks[]", kRankKey, kRanks};

inline constexpr std::string_view kSelectedWhy = "1 where step is the rank's selected_step";

inline constexpr JsonField kSteps[] = {
    {"rank", "../rank"},
    {"selected", "", kSelectedWhy},
    {"kernels", "kernels.count"},
    {"compute_kernels", "kernels.compute_count"},
    {"communication_kernels", "kernels.communication_count"},
    {"memcpy", "kernels.memcpy_count"},
    {"memset", "kernels.memset_count"},
    {"span_ns", "kernels.span_us"},
    {"kernel_time_ns", "kernels.total_time_us"},
    {"p50_ns", "kernels.p50_us"},
    {"p90_ns", "kernels.p90_us"},
    {"p99_ns", "kernels.p99_us"},
    {"max_ns", "kernels.max_us"},
    {"budget_source", "breakdown.source"},
    {"window_ns", "breakdown.total_us"},
    {"busy_ns", "breakdown.busy_us"},
    {"computation_ns", "breakdown.computation_us"},
    {"communication_ns", "breakdown.communication_us"},
    {"exposed_communication_ns", "breakdown.exposed_communication_us"},
    {"memcpy_ns", "breakdown.memcpy_us"},
    {"exposed_memcpy_ns", "breakdown.exposed_memcpy_us"},
    {"memset_ns", "breakdown.memset_us"},
    {"free_ns", "breakdown.idle_us"},
};
inline constexpr JsonView kStepsView{"ranks[].steps[]", kRankStepKeys, kSteps};

inline constexpr std::string_view kMotifKeys[] = {"rank", "step", "motif"};
inline constexpr JsonField kMotifs[] = {
    {"rank", "../../rank"},
    {"step", "../step"},
    {"motif", "#0"},
    {"label", "", "the text's label; the JSON has fingerprint, variant and kernels"},
    {"length", "", "the length of the JSON's kernels array"},
    {"chain", "", "the JSON's kernels array, joined"},
};
inline constexpr JsonView kMotifsView{"ranks[].steps[].motifs[]", kMotifKeys, kMotifs};

inline constexpr JsonField kFindings[] = {
    {"finding", "#1"},
    {"evidence_json", "evidence_values"},
};
inline constexpr JsonView kFindingsView{"findings[]", kFindingKey, kFindings};

inline constexpr JsonField kFindingRanks[] = {
    {"finding", "../#1"},
    {"step", "", "the rank's selected_step (ranks[])"},
    {"evidence_json", "evidence_values"},
};
inline constexpr std::string_view kJobWideWhy =
    "a job-wide finding's rank: its values are the finding's (findings[]), per_rank has none";
inline constexpr JsonView kFindingRanksView{
    "findings[].per_rank[]", kFindingRankKeys, kFindingRanks, "evidence_json", "NULL", kJobWideWhy};

inline constexpr JsonField kFindingRows[] = {
    {"finding", "../#1"},
    {"id", "../id"},
    {"step", "", "the rank's selected_step (ranks[])"},
    {"values_of", "", "`rank` for every row the JSON's per_rank has"},
    {"evidence_json", "evidence_values"},
};
inline constexpr JsonView kFindingRowsView{
    "findings[].per_rank[]", kFindingRankKeys, kFindingRows, "values_of", "job", kJobWideWhy};

inline constexpr JsonField kRankBudgets[] = {
    {"rank", "../rank"},
    {"compute_ns", "lanes.compute_us"},
    {"comm_ns", "lanes.comm_us"},
    {"exposed_comm_ns", "lanes.comm_not_overlapped_us"},
    {"other_ns", "lanes.other_us"},
    {"free_ns", "lanes.free_us"},
    {"step_start_idle_ns", "step_start_idle.idle_us"},
    {"step_start_wait_collective_ns", "step_start_idle.collective_us"},
};
inline constexpr JsonView kRankBudgetsView{"ranks[].timeline", kRankStepKeys, kRankBudgets};

inline constexpr JsonField kMemory[] = {
    {"rank", "../../rank"},
    {"step", "../step"},
    {"peak_allocated_ns", "peak_allocated_at_us"},
};
inline constexpr JsonView kMemoryView{"ranks[].steps[].memory", kRankStepKeys, kMemory};

inline constexpr JsonField kStepsCsv[] = {
    {"rank", "../rank"},
    {"selected", "", kSelectedWhy},
    {"kernels", "kernels.count"},
    {"compute_kernels", "kernels.compute_count"},
    {"communication_kernels", "kernels.communication_count"},
    {"span_us", "kernels.span_us"},
    {"kernel_time_us", "kernels.total_time_us"},
    {"budget_source", "breakdown.source"},
    {"computation_us", "breakdown.computation_us"},
    {"communication_us", "breakdown.communication_us"},
    {"exposed_communication_us", "breakdown.exposed_communication_us"},
    {"free_us", "breakdown.idle_us"},
};
inline constexpr JsonView kStepsCsvView{"ranks[].steps[]", kRankStepKeys, kStepsCsv};

inline constexpr std::string_view kStepKey[] = {"step"};
inline constexpr JsonView kStepsSummaryCsvView{"steps_table.rows[]", kStepKey, {}};

inline constexpr std::string_view kFamilyKeys[] = {"rank", "step", "family"};
inline constexpr JsonField kFamiliesCsv[] = {
    {"rank", "../../rank"},
    {"step", "../step"},
    {"family", "name"},
};
inline constexpr JsonView kFamiliesCsvView{"ranks[].steps[].families[]", kFamilyKeys, kFamiliesCsv};

inline constexpr std::string_view kOperatorKeys[] = {"rank", "step", "op_type"};
inline constexpr JsonField kOperatorsCsv[] = {
    {"rank", "../../rank"},
    {"step", "../step"},
    {"op_type", "type"},
};
inline constexpr JsonView kOperatorsCsvView{"ranks[].steps[].top_operators[]", kOperatorKeys,
                                            kOperatorsCsv};

inline constexpr std::string_view kTypeKey[] = {"type"};
inline constexpr JsonView kCollectivesCsvView{"cluster.collectives[]", kTypeKey, {}};

inline constexpr JsonField kFindingsCsv[] = {
    {"finding", "#1"},
};
inline constexpr JsonView kFindingsCsvView{"findings[]", kFindingKey, kFindingsCsv};

inline constexpr JsonField kFindingRanksCsv[] = {
    {"finding", "../#1"},
    {"id", "../id"},
    {"step", "", "the rank's selected_step (ranks[])"},
    {"values_of", "", "`rank` for every row the JSON's per_rank has"},
};
inline constexpr JsonView kFindingRanksCsvView{
    "findings[].per_rank[]", kFindingRankKeys, kFindingRanksCsv, "values_of", "job", kJobWideWhy};

inline constexpr JsonField kBudgetsCsv[] = {
    {"rank", "../rank"},
    {"compute_us", "lanes.compute_us"},
    {"communication_us", "lanes.comm_us"},
    {"exposed_communication_us", "lanes.comm_not_overlapped_us"},
    {"other_us", "lanes.other_us"},
    {"free_us", "lanes.free_us"},
    {"step_start_idle_us", "step_start_idle.idle_us"},
};
inline constexpr JsonView kBudgetsCsvView{"ranks[].timeline", kRankStepKeys, kBudgetsCsv};

}  // namespace json_views

// SQLite tables, in CREATE order.
inline constexpr Record kMetaTable{"meta", "The database's schema and generator", columns::kMeta};
inline constexpr Record kRanksTable{"ranks", "One row per rank", columns::kRanks,
                                    &json_views::kRanksView};
inline constexpr Record kKernelsTable{
    "kernels", "Every device event (kernel, collective, memcpy, memset) of every step",
    columns::kKernels};
inline constexpr Record kHostOpsTable{"host_ops", "The trace's host ops", columns::kHostOps};
inline constexpr Record kStepsTable{"steps", "Per rank per step; the budget is the interval union",
                                    columns::kSteps, &json_views::kStepsView};
inline constexpr Record kCollectivesTable{"collectives", "Every collective of every step",
                                          columns::kCollectives};
inline constexpr Record kMotifsTable{"motifs", "Per rank per step, fingerprints and mined chains",
                                     columns::kMotifs, &json_views::kMotifsView};
inline constexpr Record kMotifInstancesTable{"motif_instances", "Every instance of a motif",
                                             columns::kMotifInstances};
inline constexpr Record kIdleGapsTable{
    "idle_gaps", "Device idle gaps of at least 1 µs, as the trace's idle track",
    columns::kIdleGaps};
inline constexpr Record kPseudoOverlapTable{"pseudo_overlap",
                                            "Compute idle while an all-gather it waits for runs",
                                            columns::kPseudoOverlap};
inline constexpr Record kFindingsTable{"findings", "The portrait, ranked", columns::kFindings,
                                       &json_views::kFindingsView};
inline constexpr Record kFindingRanksTable{
    "finding_ranks", "A finding's ranks with each rank's own values (the JSON's per_rank)",
    columns::kFindingRanks, &json_views::kFindingRanksView};
inline constexpr Record kRankBudgetsTable{"rank_budgets",
                                          "The selected step's timeline per rank; its times NULL "
                                          "when the timeline is set aside",
                                          columns::kRankBudgets, &json_views::kRankBudgetsView};
inline constexpr Record kMemoryTable{"memory", "Per rank per step with memory data",
                                     columns::kMemory, &json_views::kMemoryView};
inline constexpr Record kFindingRowsView{
    "finding_rows", "A view: one row per finding and rank, each rank its own numbers",
    columns::kFindingRows, &json_views::kFindingRowsView};

inline constexpr Record kSqliteTables[] = {
    kMetaTable,        kRanksTable,         kKernelsTable,  kHostOpsTable,
    kStepsTable,       kCollectivesTable,   kMotifsTable,   kMotifInstancesTable,
    kIdleGapsTable,    kPseudoOverlapTable, kFindingsTable, kFindingRanksTable,
    kRankBudgetsTable, kMemoryTable,
};

// CSV files, in the order they are written.
inline constexpr Record kStepsCsvFile{"steps", "Per rank per step", columns::kStepsCsv,
                                      &json_views::kStepsCsvView};
inline constexpr Record kStepsSummaryCsvFile{
    "steps_summary", "Per step across ranks (the `--steps` table)", columns::kStepsSummaryCsv,
    &json_views::kStepsSummaryCsvView};
inline constexpr Record kFamiliesCsvFile{"families", "Per rank, selected step",
                                         columns::kFamiliesCsv, &json_views::kFamiliesCsvView};
inline constexpr Record kOperatorsCsvFile{"operators",
                                          "Per rank, selected step, the report's top operators",
                                          columns::kOperatorsCsv, &json_views::kOperatorsCsvView};
inline constexpr Record kCollectivesCsvFile{
    "collectives", "Per collective type over the job (docs/clusters.md §1)",
    columns::kCollectivesCsv, &json_views::kCollectivesCsvView};
inline constexpr Record kFindingsCsvFile{"findings", "The portrait, ranked", columns::kFindingsCsv,
                                         &json_views::kFindingsCsvView};
inline constexpr Record kFindingRanksCsvFile{
    "finding_ranks", "One row per finding and rank, as SQLite's `finding_rows`",
    columns::kFindingRanksCsv, &json_views::kFindingRanksCsvView};
inline constexpr Record kBudgetsCsvFile{"budgets",
                                        "Per rank, selected step; its times empty when the "
                                        "timeline is set aside",
                                        columns::kBudgetsCsv, &json_views::kBudgetsCsvView};

inline constexpr Record kCsvFiles[] = {
    kStepsCsvFile,       kStepsSummaryCsvFile, kFamiliesCsvFile,     kOperatorsCsvFile,
    kCollectivesCsvFile, kFindingsCsvFile,     kFindingRanksCsvFile, kBudgetsCsvFile,
};

// "CREATE TABLE name(col TYPE constraint, ...);"
std::string CreateTableSql(const Record& record);
// "INSERT INTO name VALUES(?,...)", one parameter per column in order.
std::string InsertSql(const Record& record);
// The header row's fields, comma-separated (no line end).
std::string CsvHeader(const Record& record);
// The column tables of docs/exports.md: per record a "### `name`" heading
// (`name.csv` for CSV), its description and a table of column, type, unit
// and meaning.
std::string RecordsMarkdown(std::span<const Record> records, bool csv);

}  // namespace trainscope::exports
