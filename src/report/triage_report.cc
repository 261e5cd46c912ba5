#include "report/triage_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "core/rank_ranges.h"
#include "report/html_report.h"
#include "report/html_style.h"
#include "report/html_writer.h"
#include "report/json_writer.h"

namespace trainscope::report {
namespace {

// A rank list for text and HTML: ranges, and "all 1,024 ranks but 7" when
// the group is the whole job (core/rank_ranges); the JSON keeps every rank.
std::string TriageRankSet(const std::vector<int64_t>& ranks, size_t world) {
  return world > 0 ? CompactRankSet(ranks, world) : CompactRankList(ranks);
}

std::string Shape(const std::vector<std::vector<int64_t>>& sizes) {
  std::vector<std::string> parts;
  parts.reserve(sizes.size());
  for (const std::vector<int64_t>& s : sizes) {
    std::vector<std::string> dims;
    dims.reserve(s.size());
    for (int64_t d : s) dims.push_back(std::to_string(d));
    parts.push_back(fmt::format("{}", fmt::join(dims, "x")));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string OrNa(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "n/a"; }

std::string Where(const std::string& path, int64_t line) {
  if (path.empty()) return "";
  return line > 0 ? fmt::format("{}:{}", path, line) : path;
}

void Ranks(JsonWriter& w, std::string_view key, const std::vector<int64_t>& ranks) {
  w.Key(key).BeginArray();
  for (int64_t r : ranks) w.Int(r);
  w.EndArray();
}

void TextJobs(const analysis::TriageReport& r, std::string* out) {
  if (r.jobs.size() <= 1) return;
  *out += fmt::format("\n{} jobs' dumps found, triaged apart (never merged):\n", r.jobs.size());
  for (const analysis::TriageJob& j : r.jobs) {
    *out += fmt::format("  {}: {} ({} dumps){}\n", j.label, analysis::TriageRankPhrase(j.ranks),
                        j.paths.size(),
                        j.why.empty() ? std::string() : fmt::format("; apart because {}", j.why));
  }
}

void TextStuckOne(const analysis::TriageReport& r, const analysis::StuckCollective& s,
                  std::string* out) {
  *out += fmt::format("  [{}{}] PG {}{}{} {} seq {}", s.source,
                      r.jobs.size() > 1 ? fmt::format(", job {}", s.job + 1) : std::string(),
                      s.pg_name, s.pg_desc.empty() ? "" : " ", s.pg_desc,
                      s.op.empty() ? "n/a" : s.op, OrNa(s.seq));
  if (s.pg_id) *out += fmt::format(" (pg_id {})", *s.pg_id);
  if (!s.sizes.empty()) *out += fmt::format(" sizes {}", Shape(s.sizes));
  if (!s.dtypes.empty()) *out += fmt::format(" {}", fmt::join(s.dtypes, ","));
  if (s.numel_in) *out += fmt::format(" NumelIn {}", *s.numel_in);
  if (s.timeout_ms) *out += fmt::format(" timeout {} ms", *s.timeout_ms);
  *out += '\n';
  const bool watchdog = s.source == "watchdog";
  const std::pair<const char*, const std::vector<int64_t>*> lists[] = {
      {"members", &s.members},
      {"never reached it", &s.missing},
      {"empty dumps", &s.empty_dumps},
      {"no dump", &s.no_dump},
      {watchdog ? "timed out in it" : "inside it", &s.inside},
      {watchdog ? "no timeout line" : "recorded nothing of it", &s.unknown}};
  const size_t world = analysis::TriageWorldOf(s.members);
  for (const auto& [label, ranks] : lists) {
    if (!ranks->empty()) *out += fmt::format("    {}: {}\n", label, TriageRankSet(*ranks, world));
  }
  for (const std::string& p : s.unmatched_p2p) *out += fmt::format("    unmatched: {}\n", p);
}

void TextErrors(const analysis::TriageReport& r, std::string* out) {
  if (r.first_error) {
    const analysis::TriageError& e = *r.first_error;
    *out += fmt::format("\nfirst error ({}): {} {} at {}{}\n  {}\n", r.first_error_clock, e.node,
                        model::FailureKindName(e.kind), Where(e.path, e.line),
                        e.clock.empty() ? std::string() : fmt::format(" ({})", e.clock), e.text);
  }
  if (r.links) {
    *out += fmt::format("\nlinks ({}): {} {}\n", r.links->fault, r.links->cycle ? "cycle" : "chain",
                        r.links->chain);
    *out += fmt::format("  root cause: {}\n", fmt::join(r.links->root_causes, ", "));
    for (const analysis::LinkEdge& e : r.links->edges) {
      *out +=
          fmt::format("  {} waited for {}: {} ({})\n", e.from, e.to, e.why, Where(e.path, e.line));
    }
  }
  if (r.errors.empty()) return;
  *out += "\nfirst error per rank / device, earliest first:\n";
  for (const analysis::TriageError& e : r.errors) {
    *out += fmt::format("  {:<22} {:<18} {:<28} {}\n", e.node, model::FailureKindName(e.kind),
                        e.clock.empty() ? "-" : e.clock, Where(e.path, e.line));
  }
}

void TextRanks(const analysis::TriageReport& r, std::string* out) {
  if (!r.endings.empty()) {
    *out += "\nhow it ended:\n";
    for (const analysis::RankEnding& e : r.endings) {
      *out +=
          fmt::format("  {:<22} {}{}{}\n", e.node, e.how,
                      e.detail.empty() ? std::string() : fmt::format(" ({})", e.detail),
                      e.path.empty() ? std::string() : fmt::format("  {}", Where(e.path, e.line)));
    }
  }
  if (r.ranks.empty()) return;
  *out += "\nper rank:\n";
  for (const analysis::TriageRankEvidence& e : r.ranks) {
    *out += fmt::format("  {:<22} state {:<16} last completed {:<8} last step {:<8} {}\n", e.node,
                        e.state.empty() ? "n/a" : e.state, OrNa(e.last_completed),
                        OrNa(e.last_step), e.last_line.substr(0, 120));
  }
}

// Training logs: how far the ranks got, and who stopped first.
void TextTraining(const analysis::TriageReport& r, std::string* out) {
  if (r.last_steps.empty() || !r.furthest_step) return;
  std::vector<int64_t> ranked;
  for (const analysis::TrainingStep& s : r.last_steps) {
    if (s.rank) ranked.push_back(*s.rank);
  }
  *out += fmt::format(
      "\ntraining logs ({} file(s){}): furthest step {}\n", r.training_logs,
      ranked.empty() ? std::string() : fmt::format(", {}", analysis::TriageRankPhrase(ranked)),
      *r.furthest_step);
  for (const analysis::TrainingStep& s : r.last_steps) {
    const bool behind = s.rank && std::binary_search(r.behind.begin(), r.behind.end(), *s.rank);
    if (s.rank && !behind) continue;  // the ranks at the furthest step are said above
    *out += fmt::format("  {:<22} last step {}{}{}  {}\n",
                        s.rank ? fmt::format("rank {}", *s.rank) : std::string("(no rank)"), s.step,
                        s.ordinal ? " (record number)" : "", behind ? " (behind)" : "",
                        Where(s.path, s.line));
  }
}

}  // namespace

std::string RenderTriageText(const analysis::TriageReport& r, const TriageInputsSummary& in) {
  std::string out;
  out += fmt::format("verdict: {}\n", r.verdict);
  out +=
      fmt::format("read: {} flight-recorder dump(s), {} log(s), {} training log(s) of {} file(s)\n",
                  r.dumps, r.logs, r.training_logs, in.files_seen);
  TextJobs(r, &out);
  if (!r.stuck.empty()) {
    out += "\nstuck collectives:\n";
    for (const analysis::StuckCollective& s : r.stuck) TextStuckOne(r, s, &out);
    if (r.groups_waiting > 0) {
      out += fmt::format("  ({} more group(s) wait with every member inside)\n", r.groups_waiting);
    }
  }
  TextErrors(r, &out);
  TextTraining(r, &out);
  TextRanks(r, &out);
  if (!r.next_steps.empty()) {
    out += "\nnext:\n";
    for (const std::string& s : r.next_steps) out += fmt::format("  - {}\n", s);
  }
  if (!in.not_read.empty()) {
    out += fmt::format("\n{} file(s) not read:\n", in.not_read.size());
    for (const model::NotRead& n : in.not_read) out += fmt::format("  {}: {}\n", n.path, n.reason);
  }
  return out;
}

std::string RenderTriageJson(const analysis::TriageReport& r, const TriageInputsSummary& in,
                             std::string_view version) {
  JsonWriter w;
  w.BeginObject();
  w.Field("schema", std::string(kTriageJsonSchema));
  w.Field("tool_version", std::string(version));
  w.Field("verdict_kind", r.verdict_kind);
  w.Field("verdict", r.verdict);
  w.Key("culprits").BeginArray();
  for (const std::string& c : r.culprits) w.String(c);
  w.EndArray();
  w.Key("inputs").BeginObject();
  w.Field("files_seen", in.files_seen);
  w.Field("dumps", r.dumps);
  w.Field("logs", r.logs);
  w.Field("training_logs", r.training_logs);
  w.Key("not_read").BeginArray();
  for (const model::NotRead& n : in.not_read) {
    w.BeginObject().Field("path", n.path).Field("reason", n.reason).EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("jobs").BeginArray();
  for (const analysis::TriageJob& j : r.jobs) {
    w.BeginObject().Field("label", j.label);
    Ranks(w, "ranks", j.ranks);
    w.Field("dumps", static_cast<int64_t>(j.paths.size()));
    w.Key("why_apart").StringOrNull(j.why);
    w.EndObject();
  }
  w.EndArray();
  w.Key("stuck").BeginArray();
  for (const analysis::StuckCollective& s : r.stuck) {
    w.BeginObject();
    w.Field("source", s.source);
    w.Field("job", static_cast<int64_t>(s.job + 1));
    w.Field("pg_name", s.pg_name);
    w.Key("pg_desc").StringOrNull(s.pg_desc);
    w.Field("pg_id", s.pg_id);
    w.Key("op").StringOrNull(s.op);
    w.Field("seq", s.seq);
    w.Field("p2p", s.p2p);
    w.Key("input_sizes").BeginArray();
    for (const std::vector<int64_t>& shape : s.sizes) {
      w.BeginArray();
      for (int64_t d : shape) w.Int(d);
      w.EndArray();
    }
    w.EndArray();
    w.Key("input_dtypes").BeginArray();
    for (const std::string& d : s.dtypes) w.String(d);
    w.EndArray();
    w.Field("numel_in", s.numel_in);
    w.Field("numel_out", s.numel_out);
    w.Field("timeout_ms", s.timeout_ms);
    w.Field("time_created_ns", s.time_created_ns);
    Ranks(w, "members", s.members);
    Ranks(w, "missing", s.missing);
    Ranks(w, "empty_dumps", s.empty_dumps);
    Ranks(w, "no_dump", s.no_dump);
    Ranks(w, "inside", s.inside);
    Ranks(w, "unknown", s.unknown);
    w.Key("unmatched_p2p").BeginArray();
    for (const std::string& p : s.unmatched_p2p) w.String(p);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Field("groups_waiting", r.groups_waiting);
  auto error = [&](const analysis::TriageError& e) {
    w.BeginObject();
    w.Field("node", e.node);
    w.Field("rank", e.rank);
    w.Field("kind", std::string(model::FailureKindName(e.kind)));
    w.Field("path", e.path);
    w.Field("line", e.line);
    w.Key("clock").StringOrNull(e.clock);
    w.Field("time_ns", e.time_ns);
    w.Field("text", e.text);
    w.EndObject();
  };
  w.Key("first_error");
  if (r.first_error) {
    error(*r.first_error);
  } else {
    w.Null();
  }
  w.Key("first_error_order").StringOrNull(r.first_error_clock);
  w.Key("errors").BeginArray();
  for (const analysis::TriageError& e : r.errors) error(e);
  w.EndArray();
  w.Key("links");
  if (r.links) {
    w.BeginObject();
    w.Field("fault", r.links->fault);
    w.Field("chain", r.links->chain);
    w.Field("cycle", r.links->cycle);
    w.Key("root_causes").BeginArray();
    for (const std::string& n : r.links->root_causes) w.String(n);
    w.EndArray();
    w.Key("edges").BeginArray();
    for (const analysis::LinkEdge& e : r.links->edges) {
      w.BeginObject().Field("from", e.from).Field("to", e.to).Field("why", e.why);
      w.Field("path", e.path).Field("line", e.line).EndObject();
    }
    w.EndArray();
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("endings").BeginArray();
  for (const analysis::RankEnding& e : r.endings) {
    w.BeginObject().Field("node", e.node).Field("rank", e.rank).Field("how", e.how);
    w.Key("detail").StringOrNull(e.detail);
    w.Key("path").StringOrNull(e.path);
    w.Field("line", e.line > 0 ? std::optional<int64_t>(e.line) : std::nullopt);
    w.EndObject();
  }
  w.EndArray();
  w.Key("ranks").BeginArray();
  for (const analysis::TriageRankEvidence& e : r.ranks) {
    w.BeginObject().Field("node", e.node).Field("rank", e.rank);
    w.Key("state").StringOrNull(e.state);
    w.Field("last_completed", e.last_completed);
    w.Field("last_enqueued", e.last_enqueued);
    w.Key("last_line").StringOrNull(e.last_line);
    w.Key("where").StringOrNull(e.path);
    w.Field("last_event_ns", e.last_event_ns);
    w.Field("first_error_ns", e.first_error_ns);
    w.Field("last_step", e.last_step);
    w.Field("last_step_ns", e.last_step_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("training").BeginObject();
  w.Field("furthest_step", r.furthest_step);
  Ranks(w, "behind", r.behind);
  w.Key("last_steps").BeginArray();
  for (const analysis::TrainingStep& s : r.last_steps) {
    w.BeginObject().Field("rank", s.rank).Field("step", s.step).Field("step_is_ordinal", s.ordinal);
    w.Field("time_ns", s.time_ns).Field("path", s.path).Field("line", s.line).EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("next_steps").BeginArray();
  for (const std::string& s : r.next_steps) w.String(s);
  w.EndArray();
  w.EndObject();
  std::string out = w.str();
  out += '\n';
  return out;
}

std::string RenderTriageHtml(const analysis::TriageReport& r, const TriageInputsSummary& in,
                             std::string_view version) {
  HtmlWriter out;
  out.Raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
  out.Raw(kHtmlGeneratorMeta);
  out.Format(" {}\">", std::string(version));
  out.Raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
  out.Raw("<title>trainscope triage</title><style>");
  out.Raw(kReportStyle);
  out.Raw(
      ".tl{position:relative;height:14px;background:#eee;min-width:240px}"
      ".tl span{position:absolute;top:0;height:14px;width:4px}"
      ".tl .ev{background:#678}.tl .err{background:#c33}"
      "</style></head><body>\n<header><h1>trainscope triage</h1>");
  out.Format("<p>{} &middot; trainscope {}</p></header>\n<main>\n", r.verdict,
             std::string(version));
  // The timeline: each node's last event and first error on one clock.
  std::optional<int64_t> lo, hi;
  for (const analysis::TriageRankEvidence& e : r.ranks) {
    for (const std::optional<int64_t>& t : {e.last_event_ns, e.first_error_ns}) {
      if (!t) continue;
      lo = std::min(lo.value_or(*t), *t);
      hi = std::max(hi.value_or(*t), *t);
    }
  }
  out.Raw("<section><h2>Per rank: last events and first errors</h2>");
  if (lo) {
    out.Format("<p>{} ms from the first mark to the last (grey: last event; red: first error).</p>",
               fmt::format("{:.3f}", static_cast<double>(*hi - *lo) / 1e6));
  } else {
    out.Raw("<p>No clock in the inputs: the table shows the order only.</p>");
  }
  out.Raw(
      "<table><tr><th>rank / device</th><th>state</th><th>last completed</th><th>last "
      "step</th><th>timeline</th><th>last line</th></tr>\n");
  const double span = lo && *hi > *lo ? static_cast<double>(*hi - *lo) : 1.0;
  for (const analysis::TriageRankEvidence& e : r.ranks) {
    out.Format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><div class=\"tl\">", e.node,
               e.state.empty() ? "n/a" : e.state, OrNa(e.last_completed), OrNa(e.last_step));
    if (lo && e.last_event_ns) {
      out.Format("<span class=\"ev\" style=\"left:{}%\"></span>",
                 fmt::format("{:.2f}", 98.0 * static_cast<double>(*e.last_event_ns - *lo) / span));
    }
    if (lo && e.first_error_ns) {
      out.Format("<span class=\"err\" style=\"left:{}%\"></span>",
                 fmt::format("{:.2f}", 98.0 * static_cast<double>(*e.first_error_ns - *lo) / span));
    }
    out.Format("</div></td><td><code>{}</code></td></tr>\n", e.last_line.substr(0, 160));
  }
  out.Raw("</table></section>\n");
  if (!r.stuck.empty()) {
    out.Raw(
        "<section><h2>Stuck collectives</h2><table><tr><th>source</th><th>PG</th><th>op</th>"
        "<th>seq</th><th>sizes</th><th>never reached it</th><th>inside</th></tr>\n");
    for (const analysis::StuckCollective& s : r.stuck) {
      out.Format(
          "<tr><td>{}</td><td>{} "
          "{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          s.source, s.pg_name, s.pg_desc, s.op.empty() ? "n/a" : s.op, OrNa(s.seq), Shape(s.sizes),
          TriageRankSet(s.missing, analysis::TriageWorldOf(s.members)),
          TriageRankSet(s.inside, analysis::TriageWorldOf(s.members)));
    }
    out.Raw("</table></section>\n");
  }
  if (r.links) {
    out.Format("<section><h2>Links</h2><p>{} {}: <code>{}</code>; root cause {}</p></section>\n",
               r.links->fault, r.links->cycle ? "cycle" : "chain", r.links->chain,
               fmt::format("{}", fmt::join(r.links->root_causes, ", ")));
  }
  if (!r.errors.empty()) {
    out.Raw(
        "<section><h2>First errors, earliest first</h2><table><tr><th>node</th><th>kind</th>"
        "<th>clock</th><th>where</th><th>line</th></tr>\n");
    for (const analysis::TriageError& e : r.errors) {
      out.Format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
                 e.node, std::string(model::FailureKindName(e.kind)),
                 e.clock.empty() ? "-" : e.clock, Where(e.path, e.line), e.text.substr(0, 200));
    }
    out.Raw("</table></section>\n");
  }
  if (!r.next_steps.empty()) {
    out.Raw("<section><h2>Next</h2><ul>");
    for (const std::string& s : r.next_steps) out.Format("<li>{}</li>", s);
    out.Raw("</ul></section>\n");
  }
  if (!in.not_read.empty()) {
    out.Raw("<section><h2>Files not read</h2><ul>");
    for (const model::NotRead& n : in.not_read) out.Format("<li>{}: {}</li>", n.path, n.reason);
    out.Raw("</ul></section>\n");
  }
  out.Raw("</main></body></html>\n");
  return std::move(out).Finish().markup();
}

}  // namespace trainscope::report
