#include "export/sqlite_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include "analysis/common/collective_types.h"
#include "export/records.h"
#include "report/json_writer.h"

namespace trainscope::exports {
namespace {

// The tables are CREATE'd from their declarations (export/records.h);
// indexes come at Finish, after the rows (faster than keeping them up to
// date row by row).
constexpr const char* kIndexes = R"sql(
CREATE INDEX kernels_rank_step ON kernels(rank, step);
CREATE INDEX kernels_name ON kernels(name);
CREATE INDEX kernels_family ON kernels(family);
CREATE INDEX kernels_fingerprint ON kernels(fingerprint);
CREATE INDEX host_ops_rank_start ON host_ops(rank, start_ns);
CREATE INDEX steps_rank_step ON steps(rank, step);
CREATE INDEX collectives_rank_step ON collectives(rank, step);
CREATE INDEX collectives_key ON collectives(key);
CREATE INDEX motifs_rank_step ON motifs(rank, step, motif);
CREATE INDEX motif_instances_rank_step ON motif_instances(rank, step, motif);
CREATE INDEX idle_gaps_rank_step ON idle_gaps(rank, step);
CREATE INDEX finding_ranks_rank ON finding_ranks(rank, finding);
)sql";

// Its columns are kFindingRowsView's (records.h).
constexpr const char* kFindingRowsViewSql = R"sql(
CREATE VIEW finding_rows AS
  SELECT f.finding, f.id, r.rank, r.step,
    CASE WHEN r.evidence_json IS NULL THEN 'job' ELSE 'rank' END AS values_of,
    CASE WHEN r.evidence_json IS NULL THEN f.title ELSE r.title END AS title,
    CASE WHEN r.evidence_json IS NULL THEN f.estimated_gain_pct ELSE r.estimated_gain_pct END
      AS estimated_gain_pct,
    CASE WHEN r.evidence_json IS NULL THEN f.occurrences ELSE r.occurrences END AS occurrences,
    CASE WHEN r.evidence_json IS NULL THEN f.evidence_json ELSE r.evidence_json END
      AS evidence_json
  FROM findings f LEFT JOIN finding_ranks r USING (finding);
)sql";

// A prepared INSERT of one record: values are bound by column name
// (Int<"start_ns">(v), checked against the declaration at compile time), a
// column left unbound is NULL; Run() inserts the row.
template <const Record& kRecord>
class Insert {
 public:
  static Result<Insert> Prepare(const SqliteDb& db) {
    TS_ASSIGN_OR_RETURN(SqliteStatement stmt, db.Prepare(InsertSql(kRecord), kRecord.name));
    return Insert(std::move(stmt));
  }

  template <ColumnName kName>
  Insert& Int(int64_t value) {
    stmt_.BindInt64(Parameter<kName>(), value);
    return *this;
  }
  template <ColumnName kName>
  Insert& Step(int32_t step) {  // kNoStep: NULL
    if (step != model::kNoStep) Int<kName>(step);
    return *this;
  }
  template <ColumnName kName>
  Insert& Real(double value) {  // NaN, Inf: NULL
    if (std::isfinite(value)) stmt_.BindDouble(Parameter<kName>(), value);
    return *this;
  }
  template <ColumnName kName>
  Insert& Text(std::string_view text) {
    stmt_.BindText(Parameter<kName>(), text);
    return *this;
  }
  template <ColumnName kName>
  Insert& TextOrNull(std::string_view text) {  // "": NULL
    if (!text.empty()) Text<kName>(text);
    return *this;
  }
  template <ColumnName kName>
  Insert& Opt(const std::optional<int64_t>& value) {
    if (value) Int<kName>(*value);
    return *this;
  }
  Status Run() {
    TS_RETURN_IF_ERROR(stmt_.Run());
    ++count_;
    return Status::Ok();
  }
  int64_t count() const { return count_; }

 private:
  explicit Insert(SqliteStatement stmt) : stmt_(std::move(stmt)) {}
  template <ColumnName kName>
  static constexpr int Parameter() {
    constexpr int kParameter = static_cast<int>(ColumnIndex(kRecord.columns, kName.view())) + 1;
    return kParameter;
  }
  SqliteStatement stmt_;
  int64_t count_ = 0;
};

std::string EvidenceJson(const std::vector<std::pair<std::string, double>>& values) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : values) {
    if (!first) out.push_back(',');
    first = false;
    report::AppendJsonEscaped(&out, key);
    out.push_back(':');
    if (std::isfinite(value))
      fmt::format_to(std::back_inserter(out), "{}", value);
    else
      out.append("null");
  }
  out.push_back('}');
  return out;
}

}  // namespace

bool IsTrainscopeDatabase(const std::string& path) {
  Result<SqliteDb> db = SqliteDb::OpenReadOnly(path);
  if (!db.ok()) return false;
  Result<SqliteStatement> stmt = db->Prepare("SELECT value FROM meta WHERE key='schema'", "meta");
  if (!stmt.ok()) return false;
  Result<bool> row = stmt->Step();
  if (!row.ok() || !*row) return false;
  const std::string_view schema = kSqliteSchema;
  return stmt->Text(0).starts_with(schema.substr(0, schema.find('/') + 1));
}

Result<std::unique_ptr<SqliteExport>> SqliteExport::Open(const std::string& path) {
  TS_ASSIGN_OR_RETURN(AtomicFileWriter writer, AtomicFileWriter::Open(path));
  if (writer.in_place()) {
    return UsageError(fmt::format(
        "--sqlite {}: a database is written to a regular file, not to a device or pipe\nhint: "
        "give a file path",
        path));
  }
  std::unique_ptr<SqliteExport> out(new SqliteExport(path, std::move(writer)));
  TS_ASSIGN_OR_RETURN(
      SqliteDb db, SqliteDb::OpenForWriting(out->writer_.temp_path(), path,
                                            fmt::format("hint: nothing was written to {}", path)));
  out->db_.emplace(std::move(db));
  // One transaction, no journal: the file is ours until the rename, and a
  // failed export is removed whole.
  TS_RETURN_IF_ERROR(
      out->db_->Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;", "begin"));
  for (const Record& table : kSqliteTables) {
    TS_RETURN_IF_ERROR(out->db_->Exec(CreateTableSql(table), table.name));
  }
  return out;
}

SqliteExport::~SqliteExport() = default;

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one insert loop per table
Status SqliteExport::AddRank(size_t index, const model::RankProfile& profile,
                             const analysis::RankResult& result, const RankTracks& tracks,
                             const analysis::FamilyRules& rules) {
  std::lock_guard<std::mutex> lock(mutex_);
  const SqliteDb& db = *db_;
  const int64_t rank = result.header.rank;
  const model::DeviceEvents& ev = profile.device_events;
  const StringPool& strings = profile.strings;
  const auto& families = rules.families();
  auto record = [&](std::string_view table, int64_t count) {
    int64_t& rows = rows_[std::string(table)];
    if (count > 0) ranges_[index].push_back({std::string(table), rows + 1, rows + count});
    rows += count;
  };

  // Motif labels by instance, from the rank's steps.
  std::map<int32_t, const std::vector<analysis::Motif>*> motifs_of_step;
  for (const auto& step : result.steps)
    motifs_of_step[step.distribution.step] = &step.distribution.motifs;
  auto motif_of = [&](const MotifInstance& i) -> const analysis::Motif* {
    auto it = motifs_of_step.find(i.step);
    if (it == motifs_of_step.end() || i.motif < 0 ||
        static_cast<size_t>(i.motif) >= it->second->size())
      return nullptr;
    return &(*it->second)[static_cast<size_t>(i.motif)];
  };
  {
    TS_ASSIGN_OR_RETURN(auto s, Insert<kKernelsTable>::Prepare(db));
    for (size_t row = 0; row < ev.size(); ++row) {
      s.Int<"rank">(rank).Step<"step">(ev.step[row]);
      if (ev.stream[row] != model::kNoStream) s.Int<"stream">(ev.stream[row]);
      if (ev.device[row] >= 0) s.Int<"device">(ev.device[row]);
      s.Text<"kind">(model::ActivityKindName(ev.kind[row]))
          .Text<"name">(strings.Get(ev.name[row]))
          .TextOrNull<"op_type">(strings.Get(ev.op_type[row]))
          .Text<"family">(families[tracks.family[row]])
          .Int<"start_ns">(ev.start_ns[row])
          .Int<"dur_ns">(ev.duration_ns[row])
          .Int<"end_ns">(ev.end_ns(row));
      const int32_t instance = tracks.instance[row];
      const analysis::Motif* motif =
          instance >= 0 ? motif_of(tracks.instances[static_cast<size_t>(instance)]) : nullptr;
      if (motif) {
        if (motif->fingerprint)
          s.Text<"fingerprint">(MotifLabel(*motif));
        else
          s.Text<"motif">(MotifLabel(*motif));
        s.Int<"motif_instance">(tracks.instances[static_cast<size_t>(instance)].index);
      }
      const model::TensorDescription& tensors = ev.tensors_of(row);
      s.TextOrNull<"input_shapes">(strings.Get(tensors.input_shapes))
          .TextOrNull<"input_dtypes">(strings.Get(tensors.input_dtypes));
      if (ev.correlation[row] != model::kNoId) s.Int<"correlation">(ev.correlation[row]);
      TS_RETURN_IF_ERROR(s.Run());
    }
    record(kKernelsTable.name, s.count());
  }
  {
    const model::HostOps& ops = profile.timeline.host_ops;
    std::vector<int64_t> launches(ops.size(), 0);
    for (size_t row = 0; row < ev.size(); ++row) {
      const int32_t l = ev.launcher[row];
      if (l >= 0 && static_cast<size_t>(l) < ops.size()) ++launches[static_cast<size_t>(l)];
    }
    TS_ASSIGN_OR_RETURN(auto s, Insert<kHostOpsTable>::Prepare(db));
    for (size_t i = 0; i < ops.size(); ++i) {
      s.Int<"rank">(rank)
          .Int<"pid">(ops.pid(i))
          .Int<"tid">(ops.tid(i))
          .Text<"name">(strings.Get(ops.name[i]))
          .TextOrNull<"category">(strings.Get(ops.category[i]))
          .Int<"start_ns">(ops.start_ns[i])
          .Int<"dur_ns">(ops.duration_ns[i])
          .Int<"depth">(ops.depth[i])
          .Int<"launches">(launches[i]);
      TS_RETURN_IF_ERROR(s.Run());
    }
    record(kHostOpsTable.name, s.count());
  }
  {
    TS_ASSIGN_OR_RETURN(auto s, Insert<kStepsTable>::Prepare(db));
    for (const analysis::RankStepResult& step : result.steps) {
      const analysis::StepDistribution& d = step.distribution;
      const analysis::KernelSummary& k = d.kernels;
      s.Int<"rank">(rank).Step<"step">(d.step).Int<"selected">(0);  // selected: set at Finish
      // Unknown, not 0, for a rank without a source of device events.
      if (k.known) {
        s.Int<"kernels">(k.count)
            .Int<"compute_kernels">(k.compute_count)
            .Int<"communication_kernels">(k.communication_count);
      }
      if (k.copies_known) s.Int<"memcpy">(k.memcpy_count).Int<"memset">(k.memset_count);
      // The busy span is a time on the device timeline: unknown without
      // kernels or when the timeline is set aside.
      if (k.count > 0 && d.timeline_set_aside.empty()) s.Int<"span_ns">(k.span_ns);
      if (k.known) s.Int<"kernel_time_ns">(k.total_time_ns);
      if (k.count > 0) {
        s.Real<"p50_ns">(k.p50_ns).Real<"p90_ns">(k.p90_ns).Real<"p99_ns">(k.p99_ns).Int<"max_ns">(
            k.max_ns);
      }
      if (d.breakdown) {
        const analysis::TimeBudget& b = d.breakdown->budget;
        s.Text<"budget_source">(d.breakdown->source)
            .Int<"window_ns">(b.total_ns)
            .Int<"busy_ns">(b.busy_ns)
            .Int<"computation_ns">(b.computation_ns)
            .Int<"communication_ns">(b.communication_ns)
            .Int<"exposed_communication_ns">(b.exposed_communication_ns)
            .Int<"memcpy_ns">(b.memcpy_ns)
            .Int<"exposed_memcpy_ns">(b.exposed_memcpy_ns)
            .Int<"memset_ns">(b.memset_ns)
            .Int<"free_ns">(b.idle_ns);
      }
      TS_RETURN_IF_ERROR(s.Run());
    }
    record(kStepsTable.name, s.count());
  }
  {
    TS_ASSIGN_OR_RETURN(auto s, Insert<kCollectivesTable>::Prepare(db));
    for (const analysis::CommInstance& op : tracks.comm.ops) {
      s.Int<"rank">(rank)
          .Step<"step">(op.step)
          .Text<"key">(op.key)
          .Text<"type">(analysis::CollectiveTypeName(op.type))
          .Int<"start_ns">(op.start_ns)
          .Int<"dur_ns">(op.duration_ns);
      if (op.bytes > 0) s.Real<"bytes">(op.bytes);
      if (op.group_size > 0) s.Int<"group_size">(op.group_size);
      if (op.transit_ns >= 0) s.Int<"transit_ns">(op.transit_ns);
      if (op.wait_ns >= 0) s.Int<"wait_ns">(op.wait_ns);
      if (op.sync_ns >= 0) s.Int<"sync_ns">(op.sync_ns);
      TS_RETURN_IF_ERROR(s.Run());
    }
    record(kCollectivesTable.name, s.count());
  }
  {
    TS_ASSIGN_OR_RETURN(auto s, Insert<kMotifsTable>::Prepare(db));
    TS_ASSIGN_OR_RETURN(auto m, Insert<kMemoryTable>::Prepare(db));
    for (const analysis::RankStepResult& step : result.steps) {
      const analysis::StepDistribution& d = step.distribution;
      for (size_t i = 0; i < d.motifs.size(); ++i) {
        const analysis::Motif& motif = d.motifs[i];
        std::string chain;
        for (const std::string& k : motif.kernels) chain += (chain.empty() ? "" : " ") + k;
        s.Int<"rank">(rank)
            .Step<"step">(d.step)
            .Int<"motif">(static_cast<int64_t>(i))
            .Text<"label">(MotifLabel(motif));
        if (motif.fingerprint) s.Text<"fingerprint">(*motif.fingerprint);
        if (motif.variant) s.Text<"variant">(*motif.variant);
        s.Int<"stream">(motif.stream)
            .Int<"length">(static_cast<int64_t>(motif.kernels.size()))
            .Text<"chain">(chain)
            .Int<"occurrences">(motif.occurrences)
            .Real<"period_ns">(motif.period_ns)
            .Int<"total_ns">(motif.total_ns)
            .Real<"share_of_step">(motif.share_of_step)
            .TextOrNull<"framework_op">(motif.framework_op)
            .TextOrNull<"source">(motif.source)
            .TextOrNull<"attribution">(motif.attribution);
        TS_RETURN_IF_ERROR(s.Run());
      }
      if (d.memory) {
        const analysis::MemoryUsage& mem = *d.memory;
        m.Int<"rank">(rank)
            .Step<"step">(d.step)
            .Opt<"peak_allocated_bytes">(mem.peak_allocated_bytes)
            .Opt<"peak_allocated_ns">(mem.peak_allocated_ns)
            .Opt<"peak_reserved_bytes">(mem.peak_reserved_bytes)
            .Opt<"gap_at_peak_bytes">(mem.gap_at_peak_bytes)
            .Opt<"gap_max_bytes">(mem.gap_max_bytes);
        TS_RETURN_IF_ERROR(m.Run());
      }
    }
    record(kMotifsTable.name, s.count());
    record(kMemoryTable.name, m.count());
  }
  {
    TS_ASSIGN_OR_RETURN(auto s, Insert<kMotifInstancesTable>::Prepare(db));
    TS_ASSIGN_OR_RETURN(auto g, Insert<kIdleGapsTable>::Prepare(db));
    TS_ASSIGN_OR_RETURN(auto p, Insert<kPseudoOverlapTable>::Prepare(db));
    for (const MotifInstance& i : tracks.instances) {
      s.Int<"rank">(rank)
          .Step<"step">(i.step)
          .Int<"motif">(i.motif)
          .Int<"instance">(i.index)
          .Int<"stream">(i.stream)
          .Int<"start_ns">(i.start_ns)
          .Int<"end_ns">(i.end_ns)
          .Int<"kernels">(i.kernels)
          .Int<"kernel_ns">(i.kernel_ns);
      TS_RETURN_IF_ERROR(s.Run());
    }
    for (const TimeWindow& w : tracks.idle_gaps) {
      g.Int<"rank">(rank).Step<"step">(w.step).Int<"start_ns">(w.start_ns).Int<"end_ns">(w.end_ns);
      TS_RETURN_IF_ERROR(g.Run());
    }
    for (const analysis::PseudoOverlapWindow& w : tracks.pseudo_overlap) {
      p.Int<"rank">(rank)
          .Step<"step">(w.step)
          .Int<"start_ns">(w.start_ns)
          .Int<"end_ns">(w.end_ns)
          .Text<"collective">(tracks.comm.ops[w.op].key);
      TS_RETURN_IF_ERROR(p.Run());
    }
    record(kMotifInstancesTable.name, s.count());
    record(kIdleGapsTable.name, g.count());
    record(kPseudoOverlapTable.name, p.count());
  }
  return Status::Ok();
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one insert loop per table
Status SqliteExport::Finish(const analysis::JobAnalysis& job, const std::set<size_t>& kept,
                            const std::string& tool_version) {
  std::lock_guard<std::mutex> lock(mutex_);
  const SqliteDb& db = *db_;
  // Ranks of other runs than the analysed one (docs/clusters.md §0) go.
  for (const auto& [index, ranges] : ranges_) {
    if (kept.contains(index)) continue;
    for (const Range& r : ranges) {
      TS_RETURN_IF_ERROR(db.Exec(
          fmt::format("DELETE FROM {} WHERE rowid BETWEEN {} AND {};", r.table, r.first, r.last),
          r.table));
    }
  }
  {
    TS_ASSIGN_OR_RETURN(auto s, Insert<kMetaTable>::Prepare(db));
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"schema", kSqliteSchema},
             {"generator", "trainscope " + tool_version},
             {"time_unit", "ns"}}) {
      s.Text<"key">(key).Text<"value">(value);
      TS_RETURN_IF_ERROR(s.Run());
    }
  }
  {
    TS_ASSIGN_OR_RETURN(auto s, Insert<kRanksTable>::Prepare(db));
    TS_ASSIGN_OR_RETURN(
        SqliteStatement sel,
        db.Prepare("UPDATE steps SET selected=1 WHERE rank=? AND step IS ?", kStepsTable.name));
    TS_ASSIGN_OR_RETURN(auto b, Insert<kRankBudgetsTable>::Prepare(db));
    for (const analysis::RankAnalysis& r : job.ranks) {
      const analysis::RankHeader& h = r.header;
      s.Int<"rank">(h.rank)
          .Text<"source">(h.source)
          .Text<"platform">(model::PlatformKey(h.platform))
          .TextOrNull<"torch_npu_version">(h.torch_npu_version)
          .TextOrNull<"cann_version">(h.cann_version)
          .TextOrNull<"profiler_level">(h.profiler_level)
          .TextOrNull<"steps_from">(h.steps_from)
          .Step<"selected_step">(r.selected_step)
          .Text<"selected_step_reason">(r.selected_step_reason);
      TS_RETURN_IF_ERROR(s.Run());
      sel.BindInt64(1, h.rank);
      if (r.selected_step != model::kNoStep) sel.BindInt64(2, r.selected_step);
      TS_RETURN_IF_ERROR(sel.Run());
      const analysis::StepTimeline& t = r.timeline;
      b.Int<"rank">(h.rank).Step<"step">(r.selected_step);
      // A set-aside timeline has no numbers (StepTimeline::set_aside): NULL,
      // as the JSON's nulls, never 0.
      if (!t.set_aside.empty()) {
        TS_RETURN_IF_ERROR(b.Run());
        continue;
      }
      b.Int<"span_ns">(t.span_ns)
          .Int<"compute_ns">(t.compute_ns)
          .Int<"comm_ns">(t.comm_ns)
          .Int<"exposed_comm_ns">(t.comm_not_overlapped_ns)
          .Int<"other_ns">(t.other_ns)
          .Int<"free_ns">(t.free_ns)
          .Int<"step_start_idle_ns">(t.step_start_idle_ns)
          .Int<"step_start_wait_collective_ns">(t.step_start_wait_collective_ns);
      TS_RETURN_IF_ERROR(b.Run());
    }
  }
  {
    TS_ASSIGN_OR_RETURN(auto f, Insert<kFindingsTable>::Prepare(db));
    TS_ASSIGN_OR_RETURN(auto fr, Insert<kFindingRanksTable>::Prepare(db));
    std::map<int32_t, int32_t> selected;
    for (const analysis::RankAnalysis& r : job.ranks) selected[r.header.rank] = r.selected_step;
    for (size_t i = 0; i < job.findings.size(); ++i) {
      const analysis::Finding& x = job.findings[i];
      f.Int<"finding">(static_cast<int64_t>(i + 1))
          .Text<"id">(x.id)
          .Text<"title">(x.title)
          .Real<"estimated_gain_pct">(analysis::ExportedGainPct(x))
          .Text<"gain_source">(analysis::GainSource(x))
          .Int<"occurrences">(x.occurrences)
          .Text<"evidence">(x.evidence)
          .Text<"evidence_json">(EvidenceJson(x.evidence_values))
          .Text<"root_cause">(x.root_cause)
          .Text<"remedy">(x.remedy)
          .Text<"gain_model">(x.gain_model);
      TS_RETURN_IF_ERROR(f.Run());
      for (const int32_t rank : x.ranks) {
        auto it = selected.find(rank);
        fr.Int<"finding">(static_cast<int64_t>(i + 1))
            .Int<"rank">(rank)
            .Step<"step">(it != selected.end() ? it->second : model::kNoStep);
        // The rank's own values; NULL for a job-wide finding (its numbers
        // are the job's, in findings).
        const auto own =
            std::find_if(x.per_rank.begin(), x.per_rank.end(),
                         [&](const analysis::RankEvidence& e) { return e.rank == rank; });
        if (own != x.per_rank.end()) {
          fr.Text<"title">(own->title)
              .Real<"estimated_gain_pct">(own->gain_withheld ? std::nan("")
                                                             : own->estimated_gain_pct)
              .Int<"occurrences">(own->occurrences)
              .Text<"evidence_json">(EvidenceJson(own->evidence_values));
        }
        TS_RETURN_IF_ERROR(fr.Run());
      }
    }
  }
  TS_RETURN_IF_ERROR(db_->Exec(kIndexes, "indexes"));
  TS_RETURN_IF_ERROR(db_->Exec(kFindingRowsViewSql, kFindingRowsView.name));
  TS_RETURN_IF_ERROR(db_->Exec("COMMIT;", "commit"));
  TS_RETURN_IF_ERROR(db_->Close());
  db_.reset();
  return writer_.Commit();
}

}  // namespace trainscope::exports
