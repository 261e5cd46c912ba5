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
#include "export/trace_export.h"
#include "model/platform.h"
#include "report/steps_table.h"

namespace trainscope::exports {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kManifestHeader =
    "# trainscope --csv: the files below were written by trainscope and may be replaced by a "
    "later --csv into this directory\n";

// Builds one CSV table: Row() starts a line, the Add* append its fields.
class Table {
 public:
  explicit Table(std::initializer_list<std::string_view> header) {
    for (std::string_view h : header) Text(h);
  }
  Table& Row() {
    out_.append("\r\n");
    first_ = true;
    return *this;
  }
  Table& Text(std::string_view text) {
    Sep();
    AppendCsvField(&out_, text);
    return *this;
  }
  Table& Int(int64_t v) {
    Sep();
    fmt::format_to(std::back_inserter(out_), "{}", v);
    return *this;
  }
  Table& Us(int64_t ns) {
    Sep();
    AppendMicros(&out_, ns);
    return *this;
  }
  Table& UsOf(double ns) {  // a mean: three decimals
    Sep();
    if (std::isfinite(ns)) fmt::format_to(std::back_inserter(out_), "{:.3f}", ns / 1e3);
    return *this;
  }
  Table& Real(double v) {
    Sep();
    if (std::isfinite(v)) fmt::format_to(std::back_inserter(out_), "{}", v);
    return *this;
  }
  Table& Empty() {
    Sep();
    return *this;
  }
  std::string Done() { return out_ + "\r\n"; }

 private:
  void Sep() {
    if (!first_) out_.push_back(',');
    first_ = false;
  }
  std::string out_;
  bool first_ = true;
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
  Table t({"rank", "step", "selected", "kernels", "compute_kernels", "communication_kernels",
           "span_us", "kernel_time_us", "budget_source", "computation_us", "communication_us",
           "exposed_communication_us", "free_us"});
  for (const analysis::RankAnalysis& rank : job.ranks) {
    for (const analysis::StepDistribution& d : rank.steps) {
      t.Row().Int(rank.header.rank);
      if (d.step == model::kNoStep)
        t.Empty();
      else
        t.Int(d.step);
      t.Int(d.step == rank.selected_step ? 1 : 0);
      // Unknown, not 0, for a rank without a source of device events.
      if (d.kernels.known)
        t.Int(d.kernels.count).Int(d.kernels.compute_count).Int(d.kernels.communication_count);
      else
        t.Empty().Empty().Empty();
      // The busy span is a time on the device timeline: unknown without
      // kernels or when the timeline is set aside.
      if (d.kernels.count > 0 && d.timeline_set_aside.empty())
        t.Us(d.kernels.span_ns);
      else
        t.Empty();
      if (d.kernels.known)
        t.Us(d.kernels.total_time_ns);
      else
        t.Empty();
      if (d.breakdown) {
        const analysis::TimeBudget& b = d.breakdown->budget;
        t.Text(d.breakdown->source)
            .Us(b.computation_ns)
            .Us(b.communication_ns)
            .Us(b.exposed_communication_ns)
            .Us(b.idle_ns);
      } else {
        t.Empty().Empty().Empty().Empty().Empty();
      }
    }
  }
  return t.Done();
}

std::string StepsSummaryCsv(const analysis::JobAnalysis& job) {
  const report::StepsTable table = report::BuildStepsTable(job);
  Table t({"step", "selected", "ranks", "mean_span_us", "min_span_us", "max_span_us",
           "slowest_rank", "mean_kernels", "mean_kernel_time_us", "budget_ranks",
           "mean_computation_us", "mean_exposed_communication_us", "mean_free_us"});
  for (const report::StepTableRow& r : table.rows) {
    t.Row()
        .Int(r.step)
        .Int(r.selected ? 1 : 0)
        .Int(r.ranks)
        .UsOf(r.mean_span_ns)
        .Us(r.min_span_ns)
        .Us(r.max_span_ns)
        .Int(r.slowest_rank)
        .Real(r.mean_kernels)
        .UsOf(r.mean_kernel_time_ns)
        .Int(r.budget_ranks);
    if (r.budget_ranks > 0)
      t.UsOf(r.mean_computation_ns).UsOf(r.mean_exposed_communication_ns).UsOf(r.mean_free_ns);
    else
      t.Empty().Empty().Empty();
  }
  return t.Done();
}

std::string FamiliesCsv(const analysis::JobAnalysis& job) {
  Table t({"rank", "step", "family", "count", "total_us", "share_count", "share_time"});
  for (const analysis::RankAnalysis& rank : job.ranks) {
    const analysis::StepDistribution* d = rank.selected();
    if (!d) continue;
    for (const analysis::FamilyStat& f : d->families) {
      t.Row().Int(rank.header.rank);
      if (d->step == model::kNoStep)
        t.Empty();
      else
        t.Int(d->step);
      t.Text(f.name).Int(f.count).Us(f.total_ns).Real(f.share_count).Real(f.share_time);
    }
  }
  return t.Done();
}

std::string OperatorsCsv(const analysis::JobAnalysis& job) {
  Table t({"rank", "step", "op_type", "family", "count", "total_us", "mean_us", "max_us",
           "share_time", "type_derived"});
  for (const analysis::RankAnalysis& rank : job.ranks) {
    const analysis::StepDistribution* d = rank.selected();
    if (!d) continue;
    for (const analysis::OperatorStat& op : d->top_operators) {
      t.Row().Int(rank.header.rank);
      if (d->step == model::kNoStep)
        t.Empty();
      else
        t.Int(d->step);
      t.Text(op.op_type).Text(op.family).Int(op.count).Us(op.total_ns);
      if (op.count > 0)
        t.UsOf(static_cast<double>(op.total_ns) / static_cast<double>(op.count));
      else
        t.Empty();
      t.Us(op.max_ns).Real(op.share_time).Int(op.type_derived ? 1 : 0);
    }
  }
  return t.Done();
}

std::string CollectivesCsv(const analysis::JobAnalysis& job) {
  Table t({"type", "count", "calls", "total_us", "mean_us", "mean_bytes", "algbw_gbps",
           "busbw_gbps", "group_size_min", "group_size_max", "group_size_source", "small_count",
           "small_us"});
  for (const analysis::CollectiveTypeStats& c : job.cluster.collectives) {
    t.Row().Text(c.type).Int(c.count).Int(c.instances).Us(c.total_ns);
    if (c.count > 0)
      t.UsOf(static_cast<double>(c.total_ns) / static_cast<double>(c.count));
    else
      t.Empty();
    if (c.mean_bytes > 0)
      t.Real(c.mean_bytes);
    else
      t.Empty();
    if (c.bandwidth_known)
      t.Real(c.algbw_gbps);
    else
      t.Empty();
    if (c.busbw_known)
      t.Real(c.busbw_gbps);
    else
      t.Empty();
    if (c.group_size_max > 0)
      t.Int(c.group_size_min).Int(c.group_size_max);
    else
      t.Empty().Empty();
    t.Text(analysis::GroupSizeSourceName(c.group_size_source));
    t.Int(c.small_count).Us(c.small_ns);
  }
  return t.Done();
}

std::string FindingsCsv(const analysis::JobAnalysis& job) {
  Table t({"finding", "id", "title", "estimated_gain_pct", "occurrences", "ranks", "evidence",
           "evidence_values"});
  for (size_t i = 0; i < job.findings.size(); ++i) {
    const analysis::Finding& f = job.findings[i];
    std::string ranks;
    // Appended piece by piece: `" " + std::to_string(r)` makes GCC 12 at -O3
    // warn (-Wrestrict, a false positive in libstdc++'s operator+).
    for (const int32_t r : f.ranks) {
      if (!ranks.empty()) ranks += ' ';
      ranks += std::to_string(r);
    }
    const std::string values = EvidenceCell(f.evidence_values);
    t.Row()
        .Int(static_cast<int64_t>(i + 1))
        .Text(f.id)
        .Text(f.title)
        .Real(analysis::ExportedGainPct(f))
        .Int(f.occurrences)
        .Text(ranks)
        .Text(f.evidence)
        .Text(values);
  }
  return t.Done();
}

// One row per finding and rank it was seen on, with the rank's own values
// (the SQLite finding_rows view): a job-wide finding's rows carry the
// job's values, values_of "job".
std::string FindingRanksCsv(const analysis::JobAnalysis& job) {
  Table t({"finding", "id", "rank", "step", "values_of", "title", "estimated_gain_pct",
           "occurrences", "evidence_values"});
  std::map<int32_t, int32_t> selected;
  for (const analysis::RankAnalysis& r : job.ranks) selected[r.header.rank] = r.selected_step;
  for (size_t i = 0; i < job.findings.size(); ++i) {
    const analysis::Finding& f = job.findings[i];
    for (const int32_t rank : f.ranks) {
      t.Row().Int(static_cast<int64_t>(i + 1)).Text(f.id).Int(rank);
      const auto step = selected.find(rank);
      if (step == selected.end() || step->second == model::kNoStep)
        t.Empty();
      else
        t.Int(step->second);
      const auto own =
          std::find_if(f.per_rank.begin(), f.per_rank.end(),
                       [&](const analysis::RankEvidence& e) { return e.rank == rank; });
      if (own == f.per_rank.end()) {
        t.Text("job").Text(f.title).Real(analysis::ExportedGainPct(f)).Int(f.occurrences);
        t.Text(EvidenceCell(f.evidence_values));
      } else {
        t.Text("rank").Text(own->title);
        if (own->gain_withheld)
          t.Empty();
        else
          t.Real(own->estimated_gain_pct);
        t.Int(own->occurrences).Text(EvidenceCell(own->evidence_values));
      }
    }
  }
  return t.Done();
}

std::string BudgetsCsv(const analysis::JobAnalysis& job) {
  Table t({"rank", "step", "span_us", "compute_us", "communication_us", "exposed_communication_us",
           "other_us", "free_us", "step_start_idle_us"});
  for (const analysis::RankAnalysis& rank : job.ranks) {
    const analysis::StepTimeline& tl = rank.timeline;
    t.Row().Int(rank.header.rank);
    if (rank.selected_step == model::kNoStep)
      t.Empty();
    else
      t.Int(rank.selected_step);
    t.Us(tl.span_ns)
        .Us(tl.compute_ns)
        .Us(tl.comm_ns)
        .Us(tl.comm_not_overlapped_ns)
        .Us(tl.other_ns)
        .Us(tl.free_ns)
        .Us(tl.step_start_idle_ns);
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

const std::vector<std::string>& TableNames() {
  static const std::vector<std::string> kNames = {
      "steps.csv",       "steps_summary.csv", "families.csv",      "operators.csv",
      "collectives.csv", "findings.csv",      "finding_ranks.csv", "budgets.csv"};
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
  return {{"steps.csv", StepsCsv(job)},
          {"steps_summary.csv", StepsSummaryCsv(job)},
          {"families.csv", FamiliesCsv(job)},
          {"operators.csv", OperatorsCsv(job)},
          {"collectives.csv", CollectivesCsv(job)},
          {"findings.csv", FindingsCsv(job)},
          {"finding_ranks.csv", FindingRanksCsv(job)},
          {"budgets.csv", BudgetsCsv(job)}};
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
