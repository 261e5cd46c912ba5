#include "export/sqlite_export.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include "analysis/common/collective_types.h"
#include "report/json_writer.h"

namespace trainscope::exports {
namespace {

// The schema: one statement per table; indexes come at Finish, after the
// rows (faster than keeping them up to date row by row).
constexpr const char* kTables = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE ranks(rank INTEGER, source TEXT, platform TEXT, torch_npu_version TEXT,
  cann_version TEXT, profiler_level TEXT, steps_from TEXT, selected_step INTEGER,
  selected_step_reason TEXT);
CREATE TABLE kernels(rank INTEGER NOT NULL, step INTEGER, stream INTEGER, device INTEGER,
  kind TEXT NOT NULL, name TEXT NOT NULL, op_type TEXT, family TEXT, start_ns INTEGER NOT NULL,
  dur_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, fingerprint TEXT, motif TEXT,
  motif_instance INTEGER, input_shapes TEXT, input_dtypes TEXT, correlation INTEGER);
CREATE TABLE host_ops(rank INTEGER NOT NULL, pid INTEGER, tid INTEGER, name TEXT, category TEXT,
  start_ns INTEGER NOT NULL, dur_ns INTEGER NOT NULL, depth INTEGER, launches INTEGER);
CREATE TABLE steps(rank INTEGER NOT NULL, step INTEGER, selected INTEGER NOT NULL DEFAULT 0,
  kernels INTEGER, compute_kernels INTEGER, communication_kernels INTEGER,
  memcpy INTEGER, memset INTEGER, span_ns INTEGER, kernel_time_ns INTEGER,
  p50_ns REAL, p90_ns REAL, p99_ns REAL, max_ns INTEGER,
  budget_source TEXT, window_ns INTEGER, busy_ns INTEGER, computation_ns INTEGER,
  communication_ns INTEGER, exposed_communication_ns INTEGER, memcpy_ns INTEGER,
  exposed_memcpy_ns INTEGER, memset_ns INTEGER, free_ns INTEGER);
CREATE TABLE collectives(rank INTEGER NOT NULL, step INTEGER, key TEXT, type TEXT,
  start_ns INTEGER, dur_ns INTEGER, bytes REAL, group_size INTEGER, transit_ns INTEGER,
  wait_ns INTEGER, sync_ns INTEGER);
CREATE TABLE motifs(rank INTEGER NOT NULL, step INTEGER, motif INTEGER NOT NULL, label TEXT,
  fingerprint TEXT, variant TEXT, stream INTEGER, length INTEGER, chain TEXT,
  occurrences INTEGER, period_ns REAL, total_ns INTEGER, share_of_step REAL,
  framework_op TEXT, source TEXT, attribution TEXT);
CREATE TABLE motif_instances(rank INTEGER NOT NULL, step INTEGER, motif INTEGER NOT NULL,
  instance INTEGER NOT NULL, stream INTEGER, start_ns INTEGER, end_ns INTEGER,
  kernels INTEGER, kernel_ns INTEGER);
CREATE TABLE idle_gaps(rank INTEGER NOT NULL, step INTEGER, start_ns INTEGER, end_ns INTEGER);
CREATE TABLE pseudo_overlap(rank INTEGER NOT NULL, step INTEGER, start_ns INTEGER,
  end_ns INTEGER, collective TEXT);
CREATE TABLE findings(finding INTEGER PRIMARY KEY, id TEXT NOT NULL, title TEXT,
  estimated_gain_pct REAL, occurrences INTEGER, evidence TEXT, evidence_json TEXT,
  root_cause TEXT, remedy TEXT, gain_model TEXT);
CREATE TABLE finding_ranks(finding INTEGER NOT NULL, rank INTEGER NOT NULL, step INTEGER,
  title TEXT, estimated_gain_pct REAL, occurrences INTEGER, evidence_json TEXT);
CREATE TABLE rank_budgets(rank INTEGER NOT NULL, step INTEGER, span_ns INTEGER,
  compute_ns INTEGER, comm_ns INTEGER, exposed_comm_ns INTEGER, other_ns INTEGER,
  free_ns INTEGER, step_start_idle_ns INTEGER, step_start_wait_collective_ns INTEGER);
CREATE TABLE memory(rank INTEGER NOT NULL, step INTEGER, peak_allocated_bytes INTEGER,
  peak_allocated_ns INTEGER, peak_reserved_bytes INTEGER, gap_at_peak_bytes INTEGER,
  gap_max_bytes INTEGER);
)sql";

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

// A prepared statement; Bind* by 1-based position, Step() runs and resets.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return stmt_ != nullptr; }

  Stmt& Int(int64_t value) {
    sqlite3_bind_int64(stmt_, ++next_, value);
    return *this;
  }
  Stmt& Step(int32_t step) {  // kNoStep: NULL
    return step == model::kNoStep ? Null() : Int(step);
  }
  Stmt& Real(double value) {
    if (!std::isfinite(value)) return Null();
    sqlite3_bind_double(stmt_, ++next_, value);
    return *this;
  }
  Stmt& Text(std::string_view text) {
    sqlite3_bind_text(stmt_, ++next_, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& TextOrNull(std::string_view text) { return text.empty() ? Null() : Text(text); }
  Stmt& Opt(const std::optional<int64_t>& value) { return value ? Int(*value) : Null(); }
  Stmt& Null() {
    sqlite3_bind_null(stmt_, ++next_);
    return *this;
  }
  bool Run() {
    const int rc = sqlite3_step(stmt_);
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    next_ = 0;
    if (rc == SQLITE_DONE) ++count_;
    return rc == SQLITE_DONE;
  }
  int64_t count() const { return count_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int next_ = 0;
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
  sqlite3* db = nullptr;
  std::string uri = "file:";  // as formats/ascend_db/sqlite_db.cc's ReadOnlyUri
  for (const char c : path) {
    if (c == '?' || c == '#' || c == '%')
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    else
      uri += c;
  }
  uri += "?mode=ro&immutable=1";
  bool ours = false;
  if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) ==
      SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema'", -1, &stmt, nullptr) ==
            SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      const std::string_view schema = kSqliteSchema;
      ours = text && std::string_view(text).starts_with(schema.substr(0, schema.find('/') + 1));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close_v2(db);
  return ours;
}

Status SqliteExport::Error(const char* what) const {
  return IoError(fmt::format("{}: SQLite export: {}: {}\nhint: nothing was written to {}", path_,
                             what, db_ ? sqlite3_errmsg(db_) : "cannot open", path_));
}

Status SqliteExport::Exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) == SQLITE_OK) return Status::Ok();
  const std::string text = message ? message : "error";
  sqlite3_free(message);
  return IoError(
      fmt::format("{}: SQLite export: {}\nhint: nothing was written to {}", path_, text, path_));
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
  if (sqlite3_open_v2(out->writer_.temp_path().c_str(), &out->db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK)
    return out->Error("cannot open the temporary database");
  // One transaction, no journal: the file is ours until the rename, and a
  // failed export is removed whole.
  TS_RETURN_IF_ERROR(out->Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"));
  TS_RETURN_IF_ERROR(out->Exec(kTables));
  return out;
}

SqliteExport::~SqliteExport() {
  if (db_) sqlite3_close_v2(db_);
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one insert loop per table
Status SqliteExport::AddRank(size_t index, const model::RankProfile& profile,
                             const analysis::RankResult& result, const RankTracks& tracks,
                             const analysis::FamilyRules& rules) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t rank = result.header.rank;
  const model::DeviceEvents& ev = profile.device_events;
  const StringPool& strings = profile.strings;
  const auto& families = rules.families();
  auto record = [&](const char* table, const Stmt& s) {
    int64_t& rows = rows_[table];
    if (s.count() > 0) ranges_[index].push_back({table, rows + 1, rows + s.count()});
    rows += s.count();
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
    Stmt s(db_, "INSERT INTO kernels VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s.ok()) return Error("kernels");
    for (size_t row = 0; row < ev.size(); ++row) {
      s.Int(rank).Step(ev.step[row]);
      if (ev.stream[row] == model::kNoStream)
        s.Null();
      else
        s.Int(ev.stream[row]);
      if (ev.device[row] < 0)
        s.Null();
      else
        s.Int(ev.device[row]);
      s.Text(model::ActivityKindName(ev.kind[row]))
          .Text(strings.Get(ev.name[row]))
          .TextOrNull(strings.Get(ev.op_type[row]))
          .Text(families[tracks.family[row]])
          .Int(ev.start_ns[row])
          .Int(ev.duration_ns[row])
          .Int(ev.end_ns(row));
      const int32_t instance = tracks.instance[row];
      const analysis::Motif* motif =
          instance >= 0 ? motif_of(tracks.instances[static_cast<size_t>(instance)]) : nullptr;
      if (motif && motif->fingerprint)
        s.Text(MotifLabel(*motif));
      else
        s.Null();
      if (motif && !motif->fingerprint)
        s.Text(MotifLabel(*motif));
      else
        s.Null();
      if (motif)
        s.Int(tracks.instances[static_cast<size_t>(instance)].index);
      else
        s.Null();
      s.TextOrNull(strings.Get(ev.input_shapes[row])).TextOrNull(strings.Get(ev.input_dtypes[row]));
      if (ev.correlation[row] == model::kNoId)
        s.Null();
      else
        s.Int(ev.correlation[row]);
      if (!s.Run()) return Error("kernels");
    }
    record("kernels", s);
  }
  {
    const model::HostOps& ops = profile.timeline.host_ops;
    std::vector<int64_t> launches(ops.size(), 0);
    for (size_t row = 0; row < ev.size(); ++row) {
      const int32_t l = ev.launcher[row];
      if (l >= 0 && static_cast<size_t>(l) < ops.size()) ++launches[static_cast<size_t>(l)];
    }
    Stmt s(db_, "INSERT INTO host_ops VALUES(?,?,?,?,?,?,?,?,?)");
    if (!s.ok()) return Error("host_ops");
    for (size_t i = 0; i < ops.size(); ++i) {
      s.Int(rank)
          .Int(ops.pid(i))
          .Int(ops.tid(i))
          .Text(strings.Get(ops.name[i]))
          .TextOrNull(strings.Get(ops.category[i]))
          .Int(ops.start_ns[i])
          .Int(ops.duration_ns[i])
          .Int(ops.depth[i])
          .Int(launches[i]);
      if (!s.Run()) return Error("host_ops");
    }
    record("host_ops", s);
  }
  {
    Stmt s(db_, "INSERT INTO steps VALUES(?,?,0,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!s.ok()) return Error("steps");
    for (const analysis::RankStepResult& step : result.steps) {
      const analysis::StepDistribution& d = step.distribution;
      const analysis::KernelSummary& k = d.kernels;
      s.Int(rank).Step(d.step);
      // Unknown, not 0, for a rank without a source of device events.
      if (k.known)
        s.Int(k.count).Int(k.compute_count).Int(k.communication_count);
      else
        s.Null().Null().Null();
      if (k.copies_known)
        s.Int(k.memcpy_count).Int(k.memset_count);
      else
        s.Null().Null();
      // The busy span is a time on the device timeline: unknown without
      // kernels or when the timeline is set aside.
      if (k.count > 0 && d.timeline_set_aside.empty())
        s.Int(k.span_ns);
      else
        s.Null();
      if (k.known)
        s.Int(k.total_time_ns);
      else
        s.Null();
      if (k.count > 0)
        s.Real(k.p50_ns).Real(k.p90_ns).Real(k.p99_ns).Int(k.max_ns);
      else
        s.Null().Null().Null().Null();
      if (d.breakdown) {
        const analysis::TimeBudget& b = d.breakdown->budget;
        s.Text(d.breakdown->source)
            .Int(b.total_ns)
            .Int(b.busy_ns)
            .Int(b.computation_ns)
            .Int(b.communication_ns)
            .Int(b.exposed_communication_ns)
            .Int(b.memcpy_ns)
            .Int(b.exposed_memcpy_ns)
            .Int(b.memset_ns)
            .Int(b.idle_ns);
      } else {
        for (int c = 0; c < 10; ++c) s.Null();
      }
      if (!s.Run()) return Error("steps");
    }
    record("steps", s);
  }
  {
    Stmt s(db_, "INSERT INTO collectives VALUES(?,?,?,?,?,?,?,?,?,?,?)");
    if (!s.ok()) return Error("collectives");
    for (const analysis::CommInstance& op : tracks.comm.ops) {
      s.Int(rank)
          .Step(op.step)
          .Text(op.key)
          .Text(analysis::CollectiveTypeName(op.type))
          .Int(op.start_ns)
          .Int(op.duration_ns);
      if (op.bytes > 0)
        s.Real(op.bytes);
      else
        s.Null();
      if (op.group_size > 0)
        s.Int(op.group_size);
      else
        s.Null();
      for (const int64_t v : {op.transit_ns, op.wait_ns, op.sync_ns}) {
        if (v >= 0)
          s.Int(v);
        else
          s.Null();
      }
      if (!s.Run()) return Error("collectives");
    }
    record("collectives", s);
  }
  {
    Stmt s(db_, "INSERT INTO motifs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    Stmt m(db_, "INSERT INTO memory VALUES(?,?,?,?,?,?,?)");
    if (!s.ok() || !m.ok()) return Error("motifs");
    for (const analysis::RankStepResult& step : result.steps) {
      const analysis::StepDistribution& d = step.distribution;
      for (size_t i = 0; i < d.motifs.size(); ++i) {
        const analysis::Motif& motif = d.motifs[i];
        std::string chain;
        for (const std::string& k : motif.kernels) chain += (chain.empty() ? "" : " ") + k;
        s.Int(rank).Step(d.step).Int(static_cast<int64_t>(i)).Text(MotifLabel(motif));
        if (motif.fingerprint)
          s.Text(*motif.fingerprint);
        else
          s.Null();
        if (motif.variant)
          s.Text(*motif.variant);
        else
          s.Null();
        s.Int(motif.stream)
            .Int(static_cast<int64_t>(motif.kernels.size()))
            .Text(chain)
            .Int(motif.occurrences)
            .Real(motif.period_ns)
            .Int(motif.total_ns)
            .Real(motif.share_of_step)
            .TextOrNull(motif.framework_op)
            .TextOrNull(motif.source)
            .TextOrNull(motif.attribution);
        if (!s.Run()) return Error("motifs");
      }
      if (d.memory) {
        const analysis::MemoryUsage& mem = *d.memory;
        m.Int(rank)
            .Step(d.step)
            .Opt(mem.peak_allocated_bytes)
            .Opt(mem.peak_allocated_ns)
            .Opt(mem.peak_reserved_bytes)
            .Opt(mem.gap_at_peak_bytes)
            .Opt(mem.gap_max_bytes);
        if (!m.Run()) return Error("memory");
      }
    }
    record("motifs", s);
    record("memory", m);
  }
  {
    Stmt s(db_, "INSERT INTO motif_instances VALUES(?,?,?,?,?,?,?,?,?)");
    Stmt g(db_, "INSERT INTO idle_gaps VALUES(?,?,?,?)");
    Stmt p(db_, "INSERT INTO pseudo_overlap VALUES(?,?,?,?,?)");
    if (!s.ok() || !g.ok() || !p.ok()) return Error("motif_instances");
    for (const MotifInstance& i : tracks.instances) {
      s.Int(rank)
          .Step(i.step)
          .Int(i.motif)
          .Int(i.index)
          .Int(i.stream)
          .Int(i.start_ns)
          .Int(i.end_ns)
          .Int(i.kernels)
          .Int(i.kernel_ns);
      if (!s.Run()) return Error("motif_instances");
    }
    for (const TimeWindow& w : tracks.idle_gaps) {
      g.Int(rank).Step(w.step).Int(w.start_ns).Int(w.end_ns);
      if (!g.Run()) return Error("idle_gaps");
    }
    for (const analysis::PseudoOverlapWindow& w : tracks.pseudo_overlap) {
      p.Int(rank).Step(w.step).Int(w.start_ns).Int(w.end_ns).Text(tracks.comm.ops[w.op].key);
      if (!p.Run()) return Error("pseudo_overlap");
    }
    record("motif_instances", s);
    record("idle_gaps", g);
    record("pseudo_overlap", p);
  }
  return Status::Ok();
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): one insert loop per table
Status SqliteExport::Finish(const analysis::JobAnalysis& job, const std::set<size_t>& kept,
                            const std::string& tool_version) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Ranks of other runs than the analysed one (docs/clusters.md §0) go.
  for (const auto& [index, ranges] : ranges_) {
    if (kept.contains(index)) continue;
    for (const Range& r : ranges) {
      const std::string sql =
          fmt::format("DELETE FROM {} WHERE rowid BETWEEN {} AND {};", r.table, r.first, r.last);
      TS_RETURN_IF_ERROR(Exec(sql.c_str()));
    }
  }
  {
    Stmt s(db_, "INSERT INTO meta VALUES(?,?)");
    if (!s.ok()) return Error("meta");
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"schema", kSqliteSchema},
             {"generator", "trainscope " + tool_version},
             {"time_unit", "ns"}}) {
      s.Text(key).Text(value);
      if (!s.Run()) return Error("meta");
    }
  }
  {
    Stmt s(db_, "INSERT INTO ranks VALUES(?,?,?,?,?,?,?,?,?)");
    Stmt sel(db_, "UPDATE steps SET selected=1 WHERE rank=? AND step IS ?");
    Stmt b(db_, "INSERT INTO rank_budgets VALUES(?,?,?,?,?,?,?,?,?,?)");
    if (!s.ok() || !sel.ok() || !b.ok()) return Error("ranks");
    for (const analysis::RankAnalysis& r : job.ranks) {
      const analysis::RankHeader& h = r.header;
      s.Int(h.rank)
          .Text(h.source)
          .Text(model::PlatformKey(h.platform))
          .TextOrNull(h.torch_npu_version)
          .TextOrNull(h.cann_version)
          .TextOrNull(h.profiler_level)
          .TextOrNull(h.steps_from)
          .Step(r.selected_step)
          .Text(r.selected_step_reason);
      if (!s.Run()) return Error("ranks");
      sel.Int(h.rank).Step(r.selected_step);
      if (!sel.Run()) return Error("steps");
      const analysis::StepTimeline& t = r.timeline;
      b.Int(h.rank)
          .Step(r.selected_step)
          .Int(t.span_ns)
          .Int(t.compute_ns)
          .Int(t.comm_ns)
          .Int(t.comm_not_overlapped_ns)
          .Int(t.other_ns)
          .Int(t.free_ns)
          .Int(t.step_start_idle_ns)
          .Int(t.step_start_wait_collective_ns);
      if (!b.Run()) return Error("rank_budgets");
    }
  }
  {
    Stmt f(db_, "INSERT INTO findings VALUES(?,?,?,?,?,?,?,?,?,?)");
    Stmt fr(db_, "INSERT INTO finding_ranks VALUES(?,?,?,?,?,?,?)");
    if (!f.ok() || !fr.ok()) return Error("findings");
    std::map<int32_t, int32_t> selected;
    for (const analysis::RankAnalysis& r : job.ranks) selected[r.header.rank] = r.selected_step;
    for (size_t i = 0; i < job.findings.size(); ++i) {
      const analysis::Finding& x = job.findings[i];
      f.Int(static_cast<int64_t>(i + 1))
          .Text(x.id)
          .Text(x.title)
          .Real(analysis::ExportedGainPct(x))
          .Int(x.occurrences)
          .Text(x.evidence)
          .Text(EvidenceJson(x.evidence_values))
          .Text(x.root_cause)
          .Text(x.remedy)
          .Text(x.gain_model);
      if (!f.Run()) return Error("findings");
      for (const int32_t rank : x.ranks) {
        auto it = selected.find(rank);
        fr.Int(static_cast<int64_t>(i + 1))
            .Int(rank)
            .Step(it != selected.end() ? it->second : model::kNoStep);
        // The rank's own values; NULL for a job-wide finding (its numbers
        // are the job's, in findings).
        const auto own =
            std::find_if(x.per_rank.begin(), x.per_rank.end(),
                         [&](const analysis::RankEvidence& e) { return e.rank == rank; });
        if (own == x.per_rank.end()) {
          fr.Null().Null().Null().Null();
        } else {
          fr.Text(own->title)
              .Real(own->gain_withheld ? std::nan("") : own->estimated_gain_pct)
              .Int(own->occurrences)
              .Text(EvidenceJson(own->evidence_values));
        }
        if (!fr.Run()) return Error("finding_ranks");
      }
    }
  }
  TS_RETURN_IF_ERROR(Exec(kIndexes));
  TS_RETURN_IF_ERROR(Exec("COMMIT;"));
  if (sqlite3_close_v2(db_) != SQLITE_OK) return Error("cannot close");
  db_ = nullptr;
  return writer_.Commit();
}

}  // namespace trainscope::exports
