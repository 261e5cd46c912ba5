#include "export/csv_export.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "core/atomic_write.h"
#include "core/read_file.h"
#include "export/records.h"
#include "export/trace_export.h"
#include "model/platform.h"
#include "report/steps_table.h"

namespace trainscope::exports {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kManifestHeader =
    "# trainscope --csv: the files below were written by trainscope and may be replaced by a "
    "later --csv into this directory\n";

// Builds one CSV file of a declared record (export/records.h): the header
// row is the record's column names; Row() starts a line and the setters fill
// its cells by column name (Int<"rank">(r), checked at compile time); a cell
// left unset is empty (unknown).
template <const Record& kRecord>
class CsvTable {
 public:
  CsvTable() : out_(CsvHeader(kRecord)), cells_(kRecord.columns.size()) {}
  CsvTable& Row() {
    Flush();
    in_row_ = true;
    return *this;
  }
  template <ColumnName kName>
  CsvTable& Text(std::string_view text) {
    AppendCsvField(&Cell<kName>(), text);
    return *this;
  }
  template <ColumnName kName>
  CsvTable& Int(int64_t v) {
    fmt::format_to(std::back_inserter(Cell<kName>()), "{}", v);
    return *this;
  }
  template <ColumnName kName>
  CsvTable& Step(int32_t step) {  // kNoStep: empty
    if (step != model::kNoStep) Int<kName>(step);
    return *this;
  }
  template <ColumnName kName>
  CsvTable& Us(int64_t ns) {
    AppendMicros(&Cell<kName>(), ns);
    return *this;
  }
  template <ColumnName kName>
  CsvTable& UsOf(double ns) {  // a mean: three decimals
    if (std::isfinite(ns)) fmt::format_to(std::back_inserter(Cell<kName>()), "{:.3f}", ns / 1e3);
    return *this;
  }
  template <ColumnName kName>
  CsvTable& Real(double v) {
    if (std::isfinite(v)) fmt::format_to(std::back_inserter(Cell<kName>()), "{}", v);
    return *this;
  }
  std::string Done() {
    Flush();
    return out_ + "\r\n";
  }

 private:
  template <ColumnName kName>
  std::string& Cell() {
    constexpr size_t kIndex = ColumnIndex(kRecord.columns, kName.view());
    return cells_[kIndex];
  }
  void Flush() {
    if (!in_row_) return;
    out_.append("\r\n");
    for (size_t i = 0; i < cells_.size(); ++i) {
      if (i > 0) out_.push_back(',');
      out_.append(cells_[i]);
      cells_[i].clear();
    }
    in_row_ = false;
  }
  std::string out_;
  std::vector<std::string> cells_;
  bool in_row_ = false;
};

// "key=value; ...": a finding's evidence values in one cell.
std::string EvidenceCell(const std::vector<std::pair<std::string, double>>& evidence) {
  std::string values;
  for (const auto& [key, value] : evidence) {
    values += fmt::format("{}{}={}", values.empty() ? "" : "; ", key, value);
  }
  return values;
}

std::string StepsCsv(const analysis::JobAnalysis& job) {
  CsvTable<kStepsCsvFile> t;
  for (const analysis::RankAnalysis& rank : job.ranks) {
    for (const analysis::StepDistribution& d : rank.steps) {
      t.Row()
          .Int<"rank">(rank.header.rank)
          .Step<"step">(d.step)
          .Int<"selected">(d.step == rank.selected_step ? 1 : 0);
      // Unknown, not 0, for a rank without a source of device events.
      if (d.kernels.known) {
        t.Int<"kernels">(d.kernels.count)
            .Int<"compute_kernels">(d.kernels.compute_count)
            .Int<"communication_kernels">(d.kernels.communication_count);
      }
      // The busy span is a time on the device timeline: unknown without
      // kernels or when the timeline is set aside.
      if (d.kernels.count > 0 && d.timeline_set_aside.empty()) t.Us<"span_us">(d.kernels.span_ns);
      if (d.kernels.known) t.Us<"kernel_time_us">(d.kernels.total_time_ns);
      if (d.breakdown) {
        const analysis::TimeBudget& b = d.breakdown->budget;
        t.Text<"budget_source">(d.breakdown->source)
            .Us<"computation_us">(b.computation_ns)
            .Us<"communication_us">(b.communication_ns)
            .Us<"exposed_communication_us">(b.exposed_communication_ns)
            .Us<"free_us">(b.idle_ns);
      }
    }
  }
  return t.Done();
}

std::string StepsSummaryCsv(const analysis::JobAnalysis& job) {
  const report::StepsTable table = report::BuildStepsTable(job);
  CsvTable<kStepsSummaryCsvFile> t;
  for (const report::StepTableRow& r : table.rows) {
    t.Row()
        .Int<"step">(r.step)
        .Int<"selected">(r.selected ? 1 : 0)
        .Int<"ranks">(r.ranks)
        .UsOf<"mean_span_us">(r.mean_span_ns)
        .Us<"min_span_us">(r.min_span_ns)
        .Us<"max_span_us">(r.max_span_ns)
        .Int<"slowest_rank">(r.slowest_rank)
        .Real<"mean_kernels">(r.mean_kernels)
        .UsOf<"mean_kernel_time_us">(r.mean_kernel_time_ns)
        .Int<"budget_ranks">(r.budget_ranks);
    if (r.budget_ranks > 0) {
      t.UsOf<"mean_computation_us">(r.mean_computation_ns)
          .UsOf<"mean_exposed_communication_us">(r.mean_exposed_communication_ns)
          .UsOf<"mean_free_us">(r.mean_free_ns);
    }
  }
  return t.Done();
}

std::string FamiliesCsv(const analysis::JobAnalysis& job) {
  CsvTable<kFamiliesCsvFile> t;
  for (const analysis::RankAnalysis& rank : job.ranks) {
    const analysis::StepDistribution* d = rank.selected();
    if (!d) continue;
    for (const analysis::FamilyStat& f : d->families) {
      t.Row()
          .Int<"rank">(rank.header.rank)
          .Step<"step">(d->step)
          .Text<"family">(f.name)
          .Int<"count">(f.count)
          .Us<"total_us">(f.total_ns)
          .Real<"share_count">(f.share_count)
          .Real<"share_time">(f.share_time);
    }
  }
  return t.Done();
}

std::string OperatorsCsv(const analysis::JobAnalysis& job) {
  CsvTable<kOperatorsCsvFile> t;
  for (const analysis::RankAnalysis& rank : job.ranks) {
    const analysis::StepDistribution* d = rank.selected();
    if (!d) continue;
    for (const analysis::OperatorStat& op : d->top_operators) {
      t.Row()
          .Int<"rank">(rank.header.rank)
          .Step<"step">(d->step)
          .Text<"op_type">(op.op_type)
          .Text<"family">(op.family)
          .Int<"count">(op.count)
          .Us<"total_us">(op.total_ns);
      if (op.count > 0)
        t.UsOf<"mean_us">(static_cast<double>(op.total_ns) / static_cast<double>(op.count));
      t.Us<"max_us">(op.max_ns)
          .Real<"share_time">(op.share_time)
          .Int<"type_derived">(op.type_derived ? 1 : 0);
    }
  }
  return t.Done();
}

std::string CollectivesCsv(const analysis::JobAnalysis& job) {
  CsvTable<kCollectivesCsvFile> t;
  for (const analysis::CollectiveTypeStats& c : job.cluster.collectives) {
    t.Row()
        .Text<"type">(c.type)
        .Int<"count">(c.count)
        .Int<"calls">(c.instances)
        .Int<"timed_count">(c.timed_count);
    if (c.timed_count > 0) {
      t.Us<"total_us">(c.total_ns);
      t.UsOf<"mean_us">(static_cast<double>(c.total_ns) / static_cast<double>(c.timed_count));
    }
    if (c.mean_bytes > 0) t.Real<"mean_bytes">(c.mean_bytes);
    if (c.bandwidth_known) t.Real<"algbw_gbps">(c.algbw_gbps);
    if (c.busbw_known) t.Real<"busbw_gbps">(c.busbw_gbps);
    if (c.group_size_max > 0)
      t.Int<"group_size_min">(c.group_size_min).Int<"group_size_max">(c.group_size_max);
    t.Text<"group_size_source">(analysis::GroupSizeSourceName(c.group_size_source));
    if (c.timed_count > 0) t.Int<"small_count">(c.small_count).Us<"small_us">(c.small_ns);
  }
  return t.Done();
}

std::string FindingsCsv(const analysis::JobAnalysis& job) {
  CsvTable<kFindingsCsvFile> t;
  for (size_t i = 0; i < job.findings.size(); ++i) {
    const analysis::Finding& f = job.findings[i];
    std::string ranks;
    // Appended piece by piece: `" " + std::to_string(r)` makes GCC 12 at -O3
    // warn (-Wrestrict, a false positive in libstdc++'s operator+).
    for (const int32_t r : f.ranks) {
      if (!ranks.empty()) ranks += ' ';
      ranks += std::to_string(r);
    }
    t.Row()
        .Int<"finding">(static_cast<int64_t>(i + 1))
        .Text<"id">(f.id)
        .Text<"title">(f.title)
        .Real<"estimated_gain_pct">(analysis::ExportedGainPct(f))
        .Text<"gain_source">(analysis::GainSource(f))
        .Int<"occurrences">(f.occurrences)
        .Text<"ranks">(ranks)
        .Text<"evidence">(f.evidence)
        .Text<"evidence_values">(EvidenceCell(f.evidence_values));
  }
  return t.Done();
}

// One row per finding and rank it was seen on, with the rank's own values
// (the SQLite finding_rows view): a job-wide finding's rows carry the
// job's values, values_of "job".
std::string FindingRanksCsv(const analysis::JobAnalysis& job) {
  CsvTable<kFindingRanksCsvFile> t;
  std::map<int32_t, int32_t> selected;
  for (const analysis::RankAnalysis& r : job.ranks) selected[r.header.rank] = r.selected_step;
  for (size_t i = 0; i < job.findings.size(); ++i) {
    const analysis::Finding& f = job.findings[i];
    for (const int32_t rank : f.ranks) {
      t.Row().Int<"finding">(static_cast<int64_t>(i + 1)).Text<"id">(f.id).Int<"rank">(rank);
      const auto step = selected.find(rank);
      if (step != selected.end()) t.Step<"step">(step->second);
      const auto own =
          std::find_if(f.per_rank.begin(), f.per_rank.end(),
                       [&](const analysis::RankEvidence& e) { return e.rank == rank; });
      if (own == f.per_rank.end()) {
        t.Text<"values_of">("job")
            .Text<"title">(f.title)
            .Real<"estimated_gain_pct">(analysis::ExportedGainPct(f))
            .Int<"occurrences">(f.occurrences)
            .Text<"evidence_values">(EvidenceCell(f.evidence_values));
      } else {
        t.Text<"values_of">("rank").Text<"title">(own->title);
        if (!own->gain_withheld) t.Real<"estimated_gain_pct">(own->estimated_gain_pct);
        t.Int<"occurrences">(own->occurrences)
            .Text<"evidence_values">(EvidenceCell(own->evidence_values));
      }
    }
  }
  return t.Done();
}

std::string BudgetsCsv(const analysis::JobAnalysis& job) {
  CsvTable<kBudgetsCsvFile> t;
  for (const analysis::RankAnalysis& rank : job.ranks) {
    const analysis::StepTimeline& tl = rank.timeline;
    t.Row().Int<"rank">(rank.header.rank).Step<"step">(rank.selected_step);
    // A set-aside timeline has no numbers (StepTimeline::set_aside): empty
    // cells, as the JSON's nulls, never 0.
    if (!tl.set_aside.empty()) continue;
    t.Us<"span_us">(tl.span_ns)
        .Us<"compute_us">(tl.compute_ns)
        .Us<"communication_us">(tl.comm_ns)
        .Us<"exposed_communication_us">(tl.comm_not_overlapped_ns)
        .Us<"other_us">(tl.other_ns)
        .Us<"free_us">(tl.free_ns)
        .Us<"step_start_idle_us">(tl.step_start_idle_ns);
  }
  return t.Done();
}

Status CsvError(const std::string& dir, const std::string& reason, const std::string& hint) {
  return UsageError(fmt::format("--csv {}: {}\nhint: {}", dir, reason, hint));
}

// The files an earlier --csv wrote into |dir| (its manifest), empty when none.
std::set<std::string> ManifestOf(const std::string& dir) {
  std::set<std::string> files;
  Result<std::string> text = ReadSmallFile((fs::path(dir) / kCsvManifest).string());
  if (!text.ok() || !text->starts_with(kManifestHeader)) return files;
  size_t at = 0;
  while (at < text->size()) {
    size_t end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    std::string line = text->substr(at, end - at);
    if (!line.empty() && line[0] != '#') files.insert(line);
    at = end + 1;
  }
  return files;
}

std::string FileName(const Record& file) { return fmt::format("{}.csv", file.name); }

// Every file --csv writes besides the manifest, in kCsvFiles' order.
const std::vector<std::string>& TableNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Record& file : kCsvFiles) names.push_back(FileName(file));
    return names;
  }();
  return kNames;
}

}  // namespace

void AppendCsvField(std::string* out, std::string_view field) {
  // A spreadsheet runs a cell that starts with one of these as a formula:
  // a single quote in front makes it text (OWASP, "CSV injection").
  const bool formula_like =
      !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos;
  const char* guard = formula_like ? "'" : "";
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(guard);
    out->append(field);
    return;
  }
  out->push_back('"');
  out->append(guard);
  for (const char c : field) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

std::vector<std::pair<std::string, std::string>> RenderCsvTables(const analysis::JobAnalysis& job) {
  return {{FileName(kStepsCsvFile), StepsCsv(job)},
          {FileName(kStepsSummaryCsvFile), StepsSummaryCsv(job)},
          {FileName(kFamiliesCsvFile), FamiliesCsv(job)},
          {FileName(kOperatorsCsvFile), OperatorsCsv(job)},
          {FileName(kCollectivesCsvFile), CollectivesCsv(job)},
          {FileName(kFindingsCsvFile), FindingsCsv(job)},
          {FileName(kFindingRanksCsvFile), FindingRanksCsv(job)},
          {FileName(kBudgetsCsvFile), BudgetsCsv(job)}};
}

Status CheckCsvDir(const std::string& dir, const std::vector<std::string>& inputs) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  for (const std::string& input : inputs) {
    std::error_code ec_input;
    const fs::path in = fs::weakly_canonical(fs::absolute(input, ec_input), ec_input);
    if (ec_input || in.empty()) continue;
    auto [in_end, dir_it] = std::mismatch(in.begin(), in.end(), canonical.begin(), canonical.end());
    if (in_end == in.end()) {
      return CsvError(dir,
                      fmt::format("is {} the input {}", in == canonical ? "" : "inside", input),
                      "write the tables outside the inputs: trainscope never writes into them");
    }
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return CsvError(dir, std::strerror(errno), "check the path");
    if (fs::is_symlink(dir, ec)) {
      return CsvError(
          dir,
          fmt::format("is a symlink to {} that leads nowhere", fs::read_symlink(dir, ec).string()),
          "remove the link, or give a directory (created when absent)");
    }
    std::string parent = fs::path(dir).parent_path().string();
    // push_back, not `parent = "."`: GCC 12 at -O3 warns on that assignment
    // here (-Wrestrict, a false positive in libstdc++'s string copy).
    if (parent.empty()) parent.push_back('.');
    if (::access(parent.c_str(), W_OK | X_OK) != 0) {
      return CsvError(dir, fmt::format("cannot create it in {}: {}", parent, std::strerror(errno)),
                      "create the parent directory first, or choose a directory you can write to");
    }
    return Status::Ok();
  }
  if (!S_ISDIR(st.st_mode)) {
    return CsvError(dir, "exists and is not a directory",
                    "give a directory (created when absent) for the CSV files");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return CsvError(dir, fmt::format("cannot write in it: {}", std::strerror(errno)),
                    "choose a directory you can write to");
  }
  const std::set<std::string> ours = ManifestOf(dir);
  const fs::path manifest = fs::path(dir) / kCsvManifest;
  if (ours.empty() && fs::symlink_status(manifest, ec).type() != fs::file_type::not_found) {
    return CsvError(dir,
                    fmt::format("{} exists and trainscope did not write it", manifest.string()),
                    "choose a new or empty directory, or remove the file yourself if it may go");
  }
  std::vector<std::string> names = TableNames();
  names.emplace_back(kCsvManifest);
  for (const std::string& name : names) {
    const fs::path file = fs::path(dir) / name;
    const fs::file_type type = fs::symlink_status(file, ec).type();
    if (type == fs::file_type::symlink) {
      return CsvError(dir,
                      fmt::format("{} is a symlink (to {}); trainscope writes no output through "
                                  "a link it did not create",
                                  file.string(), fs::read_symlink(file, ec).string()),
                      "remove the link, or choose a new or empty directory");
    }
    if (type == fs::file_type::not_found || name == kCsvManifest) continue;
    if (!ours.contains(name)) {
      return CsvError(dir,
                      fmt::format("{} exists and trainscope did not write it (not in {})",
                                  file.string(), kCsvManifest),
                      "choose a new or empty directory, or remove the file yourself if it may go");
    }
  }
  return Status::Ok();
}

Status WriteCsvTables(const std::string& dir, const analysis::JobAnalysis& job) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) {
      return IoError(
          fmt::format("--csv {}: cannot create the directory: {}\nhint: nothing was "
                      "written",
                      dir, ec.message()));
    }
  }
  // The manifest first: a table written before a failure is still known
  // as ours to the next run.
  std::string manifest(kManifestHeader);
  for (const std::string& name : TableNames()) manifest += name + "\n";
  TS_RETURN_IF_ERROR(WriteFileAtomically((fs::path(dir) / kCsvManifest).string(), manifest));
  for (const auto& [name, content] : RenderCsvTables(job)) {
    TS_RETURN_IF_ERROR(WriteFileAtomically((fs::path(dir) / name).string(), content));
  }
  return Status::Ok();
}

}  // namespace trainscope::exports
