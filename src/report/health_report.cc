#include "report/health_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/rank_ranges.h"
#include "core/safe_text.h"
#include "report/json_writer.h"
#include "report/number_text.h"

namespace trainscope::report {
namespace {

using analysis::RunHealth;
using analysis::SeriesSummary;

int64_t CountFindings(const std::vector<HealthRun>& runs, int64_t* logs_with) {
  int64_t n = 0;
  for (const HealthRun& r : runs) {
    n += static_cast<int64_t>(r.health.findings.size());
    *logs_with += r.health.findings.empty() ? 0 : 1;
  }
  return n;
}

struct HealthCounts {
  int64_t files = 0;
  int64_t not_read = 0;  // files with no record, or not text
  int64_t damaged = 0;   // files read up to damage
  int64_t series = 0;    // series read
  int64_t records = 0;
  int64_t thin = 0;  // series read with fewer than kHealthMinRecords records
};

HealthCounts CountHealth(const std::vector<HealthRun>& runs) {
  HealthCounts c;
  for (const HealthRun& r : runs) {
    if (r.first_of_file) {
      ++c.files;
      c.not_read += r.not_read.empty() ? 0 : 1;
      c.damaged += r.warning.empty() ? 0 : 1;
    }
    if (!r.not_read.empty()) continue;
    ++c.series;
    c.records += r.health.records;
    c.thin += r.health.records < kHealthMinRecords ? 1 : 0;
  }
  return c;
}

// "healthy" only when every log was read to its end and every series held
// enough records to judge; a log not read is said first.
std::string Verdict(const std::vector<HealthRun>& runs) {
  int64_t logs_with = 0;
  const int64_t n = CountFindings(runs, &logs_with);
  const HealthCounts c = CountHealth(runs);
  std::string v;
  if (c.not_read > 0) {
    v = fmt::format("not read: {} of {} log(s) held no training line this tool reads", c.not_read,
                    c.files);
  }
  if (c.damaged > 0) {
    v += fmt::format("{}{} log(s) damaged, read only up to the damage", v.empty() ? "" : "; ",
                     c.damaged);
  }
  const std::string read = fmt::format("{} record(s) in {} series (runs x ranks) of {} log(s)",
                                       c.records, c.series, c.files - c.not_read);
  if (n > 0) {
    v += fmt::format("{}{} finding(s) in {} of {} series; {}", v.empty() ? "" : "; ", n, logs_with,
                     runs.size(), read);
  } else if (c.series == 0) {
    v += "; cannot conclude: nothing was read";
  } else if (!v.empty() || c.thin > 0) {
    v += fmt::format(
        "{}cannot conclude: no findings in {}{}", v.empty() ? "" : "; ", read,
        c.thin > 0 ? fmt::format(", {} series with under {} records", c.thin, kHealthMinRecords)
                   : "");
  } else {
    v = "healthy: no findings in " + read;
  }
  return v;
}

void AppendModel(const analysis::ModelThroughput& m, std::string* out) {
  *out += fmt::format(
      "  model      {} params, {} GFLOP/token ({}); peak {} TFLOP/s{}\n",
      m.params ? fmt::format("{:.3g}", *m.params) : "n/a",
      FixedOrNa(m.flops_per_token ? std::optional<double>(*m.flops_per_token / 1e9) : std::nullopt),
      m.attention_term ? "6N + 12 L h s" : "6N", FixedOrNa(m.peak_tflops),
      m.peak_source.empty() ? "" : " (" + TerminalSafe(m.peak_source) + ")");
  *out += fmt::format(
      "  model MFU  TGS median {} tokens/s/device [{}]; {} TFLOP/s per device; MFU {}{}\n",
      FixedOrNa(m.tgs, 0), m.tgs_source.empty() ? "n/a" : m.tgs_source,
      FixedOrNa(m.tflops_per_device), FixedOrNa(m.mfu_pct), m.mfu_pct ? "%" : "");
  for (const std::string& missing : m.missing) {
    *out += "  model n/a  needs " + TerminalSafe(missing) + "\n";
  }
}

void AppendNotRead(const HealthRun& run, std::string* out) {
  *out += fmt::format("\n{}  (not read)\n", TerminalSafe(run.health.path));
  *out += "  NOT READ   " + TerminalSafe(run.not_read) + "\n";
  if (run.ledger.rows_read() > 0) {
    *out += fmt::format("  lines      {} read: {} used, {} skipped\n", run.ledger.rows_read(),
                        run.ledger.rows_used(), run.ledger.rows_skipped());
  }
  for (const std::string& line : run.first_lines) {
    *out += "  first line " + TerminalSafe(line.substr(0, 120)) + "\n";
  }
}

void AppendLedger(const HealthRun& run, std::string* out) {
  if (!run.first_of_file) {
    *out += "  lines      the file's, counted with its first series\n";
    return;
  }
  const RowLedger& l = run.ledger;
  *out += fmt::format("  lines      {} read: {} used, {} skipped", l.rows_read(), l.rows_used(),
                      l.rows_skipped());
  if (!l.skipped_by_reason().empty()) {
    std::string reasons;
    for (const auto& [reason, n] : l.skipped_by_reason()) {
      reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", reason, n);
    }
    *out += " (" + reasons + ")";
  }
  *out += "\n";
}

void AppendRun(const HealthRun& run, std::string* out) {
  if (!run.not_read.empty()) {
    AppendNotRead(run, out);
    return;
  }
  const RunHealth& h = run.health;
  const std::string series = HealthSeriesName(h);
  *out += fmt::format("\n{}{}  ({}, {} records", TerminalSafe(h.path),
                      series.empty() ? "" : "  [" + series + "]", model::LogFormatName(h.format),
                      h.records);
  if (h.first_step) {
    *out += fmt::format(", {} {}-{}", h.steps_ordinal ? "records" : "steps", *h.first_step,
                        *h.last_step);
  }
  *out += ")\n";
  if (!run.warning.empty() && run.first_of_file) {
    // The first line: the hint is on stderr already.
    *out += "  warning    " + TerminalSafe(run.warning.substr(0, run.warning.find('\n'))) + "\n";
  }
  if (h.records < kHealthMinRecords) {
    *out += fmt::format("  too few    {} record(s): under {}, too few to judge\n", h.records,
                        kHealthMinRecords);
  }
  AppendLedger(run, out);
  *out += fmt::format("  step time  median {} ms, p90 {} ms", FixedOrNa(h.step_ms.median),
                      FixedOrNa(h.step_ms.p90));
  if (h.step_ms_trend_pct)
    *out += fmt::format(", trend {:+.1f}% (last third vs first)", *h.step_ms_trend_pct);
  if (h.step_ms_from_timestamps) *out += " [from line timestamps]";
  *out += "\n";
  if (h.step_ms_drift_pct || h.warmup_records > 0 || h.period_steps) {
    // Only the parts known, joined: never an empty label before a ';'.
    std::vector<std::string> parts;
    if (h.step_ms_drift_pct)
      parts.push_back(fmt::format("drift {:+.1f}% over the run (Theil-Sen)", *h.step_ms_drift_pct));
    if (h.warmup_records > 0) {
      parts.push_back(h.warmup_until_step ? fmt::format("warm-up {} record(s) to step {}",
                                                        h.warmup_records, *h.warmup_until_step)
                                          : fmt::format("warm-up {} record(s)", h.warmup_records));
    }
    if (h.period_steps) {
      parts.push_back(fmt::format("stalls every {} steps ({})", *h.period_steps, h.period_spikes));
    }
    *out += "  shape      " + fmt::format("{}", fmt::join(parts, "; ")) + "\n";
  }
  if (h.model) AppendModel(*h.model, out);
  *out += fmt::format("  throughput tokens/s median {}; TFLOP/s median {}; MFU median {}{}\n",
                      FixedOrNa(h.tokens_per_s.median, 0), FixedOrNa(h.tflops.median),
                      FixedOrNa(h.mfu_pct.median), h.mfu_pct.median ? "%" : "");
  *out += fmt::format("  loss       {} -> {} (min {})", FixedOrNa(h.loss.first, 3),
                      FixedOrNa(h.loss.last, 3), FixedOrNa(h.loss.min, 3));
  if (h.loss.nonfinite > 0) *out += fmt::format("; {} NaN/Inf", h.loss.nonfinite);
  *out += "\n";
  *out += fmt::format("  grad norm  median {}, max {}", FixedOrNa(h.grad_norm.median, 3),
                      FixedOrNa(h.grad_norm.max, 3));
  if (h.grad_norm.nonfinite > 0) *out += fmt::format("; {} NaN/Inf", h.grad_norm.nonfinite);
  *out += "\n";
  if (h.skipped_iterations > 0 || h.nan_iterations > 0) {
    *out += fmt::format("  iterations {} skipped, {} nan (as the log counts them)\n",
                        h.skipped_iterations, h.nan_iterations);
  }
  for (const analysis::Finding& f : h.findings) {
    *out += fmt::format("  [{}] {}\n      {}\n      remedy: {}\n", f.id, TerminalSafe(f.title),
                        TerminalSafe(f.evidence), TerminalSafe(f.remedy));
  }
}

void WriteSummary(JsonWriter& w, std::string_view key, const SeriesSummary& s) {
  w.Key(key).BeginObject();
  w.Field("count", s.count);
  w.Field("nonfinite", s.nonfinite);
  auto opt = [&](std::string_view k, const std::optional<double>& v) {
    w.Key(k);
    if (v) {
      w.Double(*v, 6);
    } else {
      w.Null();
    }
  };
  opt("first", s.first);
  opt("last", s.last);
  opt("min", s.min);
  opt("max", s.max);
  opt("median", s.median);
  opt("p90", s.p90);
  w.EndObject();
}

void WriteFinding(JsonWriter& w, const analysis::Finding& f) {
  w.BeginObject();
  w.Field("id", f.id);
  w.Field("title", f.title);
  w.Field("occurrences", f.occurrences);
  w.Field("evidence", f.evidence);
  w.Key("evidence_values").BeginObject();
  for (const auto& [k, v] : f.evidence_values) w.Key(k).Double(v, 6);
  w.EndObject();
  w.Field("root_cause", f.root_cause);
  w.Field("remedy", f.remedy);
  w.EndObject();
}

void WriteOpt(JsonWriter& w, std::string_view key, const std::optional<double>& v, int digits) {
  w.Key(key);
  if (v) {
    w.Double(*v, digits);
  } else {
    w.Null();
  }
}

void WriteModel(JsonWriter& w, const analysis::ModelThroughput& m) {
  w.BeginObject();
  WriteOpt(w, "params", m.params, 6);
  WriteOpt(w, "flops_per_token", m.flops_per_token, 6);
  w.Field("attention_term", m.attention_term);
  WriteOpt(w, "tokens_per_step", m.tokens_per_step, 6);
  WriteOpt(w, "devices", m.devices, 6);
  WriteOpt(w, "peak_tflops", m.peak_tflops, 6);
  w.Key("peak_source");
  m.peak_source.empty() ? w.Null() : w.String(m.peak_source);
  WriteOpt(w, "tgs", m.tgs, 6);
  w.Key("tgs_source");
  m.tgs_source.empty() ? w.Null() : w.String(m.tgs_source);
  WriteOpt(w, "tflops_per_device", m.tflops_per_device, 6);
  WriteOpt(w, "mfu_pct", m.mfu_pct, 6);
  w.Key("missing").BeginArray();
  for (const std::string& s : m.missing) w.String(s);
  w.EndArray();
  w.EndObject();
}

void WriteRun(JsonWriter& w, const HealthRun& run) {
  const RunHealth& h = run.health;
  w.BeginObject();
  w.Field("path", h.path);
  w.Field("format", std::string(model::LogFormatName(h.format)));
  w.Field("bytes", run.bytes);
  if (!run.warning.empty()) w.Field("warning", run.warning);
  w.Field("read", run.not_read.empty());
  w.Key("not_read").StringOrNull(run.not_read);
  w.Key("first_lines").BeginArray();
  for (const std::string& line : run.first_lines) w.String(line);
  w.EndArray();
  w.Field("run", static_cast<int64_t>(h.run));
  w.Field("runs_in_file", static_cast<int64_t>(h.runs_in_file));
  w.Key("rank");
  h.rank ? w.Int(*h.rank) : w.Null();
  w.Field("ranks_in_run", static_cast<int64_t>(h.ranks_in_run));
  w.Key("rank_source").StringOrNull(h.rank_source);
  w.Key("engine");
  h.engine ? w.Int(*h.engine) : w.Null();
  w.Field("engines_in_run", static_cast<int64_t>(h.engines_in_run));
  w.Key("run_start").StringOrNull(h.run_start);
  w.Key("back_from_step");
  h.back_from_step ? w.Int(*h.back_from_step) : w.Null();
  w.Field("file_ledger", run.first_of_file);
  w.Field("records", h.records);
  w.Key("first_step");
  h.first_step ? w.Int(*h.first_step) : w.Null();
  w.Key("last_step");
  h.last_step ? w.Int(*h.last_step) : w.Null();
  w.Field("steps_ordinal", h.steps_ordinal);
  w.Key("lines").BeginObject();
  w.Field("read", run.ledger.rows_read());
  w.Field("used", run.ledger.rows_used());
  w.Field("skipped", run.ledger.rows_skipped());
  w.Key("skipped_by_reason").BeginObject();
  for (const auto& [reason, n] : run.ledger.skipped_by_reason()) w.Field(reason, n);
  w.EndObject();
  w.EndObject();
  w.Field("step_ms_source", std::string(h.step_ms_from_timestamps ? "timestamps" : "log"));
  WriteSummary(w, "step_ms", h.step_ms);
  w.Key("step_ms_trend_pct");
  h.step_ms_trend_pct ? w.Double(*h.step_ms_trend_pct, 3) : w.Null();
  w.Key("record_interval_ms");
  h.record_interval_ms ? w.Double(*h.record_interval_ms, 3) : w.Null();
  WriteSummary(w, "tokens_per_s", h.tokens_per_s);
  WriteSummary(w, "tflops", h.tflops);
  WriteSummary(w, "mfu_pct", h.mfu_pct);
  WriteSummary(w, "loss", h.loss);
  WriteSummary(w, "grad_norm", h.grad_norm);
  w.Key("step_ms_drift_pct");
  h.step_ms_drift_pct ? w.Double(*h.step_ms_drift_pct, 3) : w.Null();
  w.Field("warmup_records", h.warmup_records);
  w.Key("warmup_until_step");
  h.warmup_until_step ? w.Int(*h.warmup_until_step) : w.Null();
  w.Key("period_steps");
  h.period_steps ? w.Int(*h.period_steps) : w.Null();
  w.Field("period_spikes", h.period_spikes);
  w.Key("model");
  if (h.model) {
    WriteModel(w, *h.model);
  } else {
    w.Null();
  }
  w.Field("skipped_iterations", h.skipped_iterations);
  w.Field("nan_iterations", h.nan_iterations);
  w.Key("findings").BeginArray();
  for (const analysis::Finding& f : h.findings) WriteFinding(w, f);
  w.EndArray();
  w.EndObject();
}

void AppendScaling(const analysis::ScalingTable& t, std::string* out) {
  *out += fmt::format("\nscaling    {} vs {} ({})\n",
                      t.metric.empty() ? "no common throughput" : t.metric,
                      TerminalSafe(t.baseline), "efficiency = per device over the baseline's");
  *out += fmt::format("  {:<28} {:>8} {:>5} {:>14} {:>14} {:>9} {:>11} {:>10}\n", "run", "devices",
                      "logs", "per device", "total", "speed-up", "efficiency", "step ms");
  for (const analysis::ScalingRow& r : t.rows) {
    *out += fmt::format(
        "  {:<28} {:>8} {:>5} {:>14} {:>14} {:>9} {:>11} {:>10}\n", TerminalSafe(r.name), r.devices,
        r.logs, FixedOrNa(r.per_device), FixedOrNa(r.total, 0),
        r.speedup ? fmt::format("{:.2f}x", *r.speedup) : "n/a",
        r.efficiency_pct ? fmt::format("{:.1f}%", *r.efficiency_pct) : "n/a", FixedOrNa(r.step_ms));
  }
}

std::string RankList(const std::vector<int64_t>& ranks) { return CompactRankList(ranks); }

void AppendFlight(const HealthExtras& x, std::string* out) {
  for (const std::string& e : x.flight_errors) {
    *out += "\nflight recorder  " + TerminalSafe(e.substr(0, e.find('\n'))) + "\n";
  }
  if (x.flight == nullptr) return;
  const analysis::FlightRecorderReport& f = *x.flight;
  *out += fmt::format("\nflight recorder  {} dump(s), ranks {}", f.dumps, RankList(f.ranks));
  if (f.hangs.empty()) *out += ": every process group's last collective completed on its members";
  *out += "\n";
  for (const analysis::CollectiveHang& h : f.hangs) {
    *out += fmt::format("  group {} ({}): collective #{} {}: arrived {}", TerminalSafe(h.pg_name),
                        TerminalSafe(h.pg_desc), h.seq, TerminalSafe(h.op), RankList(h.arrived));
    if (!h.arrived_states.empty()) *out += " (" + TerminalSafe(h.arrived_states.front()) + ")";
    std::vector<int64_t> missing;
    for (const analysis::MissingRank& m : h.missing) missing.push_back(m.rank);
    *out += fmt::format("; did not arrive: {}", RankList(missing));
    if (!h.no_dump.empty()) *out += fmt::format("; no dump: {}", RankList(h.no_dump));
    *out += "\n";
    for (const analysis::MissingRank& m : h.missing) {
      if (!m.last_seq) {
        *out += fmt::format("    rank {}: no collective of this group recorded\n", m.rank);
        continue;
      }
      *out += fmt::format("    rank {} last at #{} {} ({})\n", m.rank, *m.last_seq,
                          TerminalSafe(m.last_op.empty() ? "n/a" : m.last_op),
                          TerminalSafe(m.last_state.empty() ? "n/a" : m.last_state));
    }
  }
}

void WriteFlight(JsonWriter& w, const HealthExtras& x) {
  w.Key("flight_recorder").BeginObject();
  w.Key("pickles").BeginArray();
  for (const std::string& p : x.flight_pickles) w.String(p);
  w.EndArray();
  w.Key("errors").BeginArray();
  for (const std::string& e : x.flight_errors) w.String(e);
  w.EndArray();
  w.Field("dumps", x.flight != nullptr ? x.flight->dumps : 0);
  w.Key("hangs").BeginArray();
  if (x.flight != nullptr) {
    for (const analysis::CollectiveHang& h : x.flight->hangs) {
      w.BeginObject();
      w.Field("process_group", h.pg_name);
      w.Field("pg_desc", h.pg_desc);
      w.Field("collective_seq_id", h.seq);
      w.Field("op", h.op);
      w.Key("arrived").BeginArray();
      for (int64_t r : h.arrived) w.Int(r);
      w.EndArray();
      w.Key("missing").BeginArray();
      for (const analysis::MissingRank& m : h.missing) {
        w.BeginObject();
        w.Field("rank", m.rank);
        // Unknown (no collective of the group recorded, or none named) is null.
        w.Field("last_seq", m.last_seq);
        w.Key("last_op").StringOrNull(m.last_op);
        w.Key("last_state").StringOrNull(m.last_state);
        w.EndObject();
      }
      w.EndArray();
      w.Key("no_dump").BeginArray();
      for (int64_t r : h.no_dump) w.Int(r);
      w.EndArray();
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
}

void WriteScaling(JsonWriter& w, const analysis::ScalingTable& t) {
  w.Key("scaling").BeginObject();
  w.Key("metric");
  t.metric.empty() ? w.Null() : w.String(t.metric);
  w.Field("baseline", t.baseline);
  w.Key("runs").BeginArray();
  for (const analysis::ScalingRow& r : t.rows) {
    w.BeginObject();
    w.Field("name", r.name);
    w.Field("devices", r.devices);
    w.Field("logs", r.logs);
    WriteOpt(w, "per_device", r.per_device, 6);
    WriteOpt(w, "total", r.total, 6);
    WriteOpt(w, "speedup", r.speedup, 6);
    WriteOpt(w, "efficiency_pct", r.efficiency_pct, 6);
    WriteOpt(w, "step_ms", r.step_ms, 6);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string HealthSeriesName(const RunHealth& h) {
  std::string out;
  if (h.runs_in_file > 1) {
    out += fmt::format("run {} of {}", h.run, h.runs_in_file);
    if (!h.run_start.empty() && h.back_from_step) {
      out += fmt::format(" ({}: step {} after {})", h.run_start, h.first_step.value_or(0),
                         *h.back_from_step);
    }
  }
  if (h.rank) {
    out += fmt::format("{}rank {}", out.empty() ? "" : ", ", *h.rank);
    if (h.ranks_in_run > 1) out += fmt::format(" of {} ranks", h.ranks_in_run);
    if (h.rank_source == "file name") out += " (rank from the file name)";
  }
  if (h.engine) {
    out += fmt::format("{}DeepSpeed engine {}", out.empty() ? "" : ", ", *h.engine);
    if (h.engines_in_run > 1) out += fmt::format(" of {}", h.engines_in_run);
  }
  return out;
}

bool AnyLogNotRead(const std::vector<HealthRun>& runs) {
  return std::any_of(runs.begin(), runs.end(),
                     [](const HealthRun& r) { return !r.not_read.empty() || !r.warning.empty(); });
}

// The flight recorder's hung collectives after the logs' verdict.
std::string FullVerdict(const std::vector<HealthRun>& runs, const HealthExtras& extras) {
  std::string v = Verdict(runs);
  if (extras.flight != nullptr && !extras.flight->hangs.empty()) {
    if (v.starts_with("healthy: ")) v.erase(0, 9);  // not healthy: a collective hangs
    v += fmt::format("; flight recorder: {} collective(s) not reached or completed by every member",
                     extras.flight->hangs.size());
  }
  return v;
}

std::string RenderHealthText(const std::vector<HealthRun>& runs, const HealthExtras& extras) {
  std::string out = "trainscope health: " + FullVerdict(runs, extras) + "\n";
  if (extras.scaling != nullptr) AppendScaling(*extras.scaling, &out);
  AppendFlight(extras, &out);
  for (const HealthRun& run : runs) AppendRun(run, &out);
  return out;
}

std::string RenderHealthJson(const std::vector<HealthRun>& runs, std::string_view version,
                             const HealthExtras& extras) {
  JsonWriter w;
  w.BeginObject();
  w.Field("schema", std::string(kHealthJsonSchema));
  w.Field("version", std::string(version));
  int64_t logs_with = 0;
  const int64_t n = CountFindings(runs, &logs_with);
  w.Key("verdict").BeginObject();
  w.Field("text", FullVerdict(runs, extras));
  const HealthCounts c = CountHealth(runs);
  w.Field("read", !AnyLogNotRead(runs));
  w.Field("logs", c.files);
  w.Field("logs_not_read", c.not_read);
  w.Field("logs_damaged", c.damaged);
  w.Field("series", c.series);
  w.Field("records", c.records);
  w.Field("series_with_findings", logs_with);
  w.Field("findings", n);
  w.EndObject();
  if (extras.scaling != nullptr) WriteScaling(w, *extras.scaling);
  if (extras.flight != nullptr || !extras.flight_pickles.empty()) WriteFlight(w, extras);
  w.Key("runs").BeginArray();
  for (const HealthRun& run : runs) WriteRun(w, run);
  w.EndArray();
  w.EndObject();
  return w.str() + "\n";
}

}  // namespace trainscope::report
