#include "analysis/triage/triage.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "analysis/health/log_series.h"
#include "core/rank_ranges.h"

namespace trainscope::analysis {
namespace {

using model::FailureKind;
using model::FlightRecorderDump;
using model::FlightRecorderEntry;

std::string RankNode(int64_t rank) { return fmt::format("rank {}", rank); }

void SortUnique(std::vector<int64_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

// ---- Jobs: dumps of different jobs are kept apart, never merged ----------

struct JobDumps {
  std::vector<const FlightRecorderDump*> dumps;
  std::map<std::string, std::vector<int64_t>> pg_ranks;
  std::map<std::string, std::string> pg_descs;
  std::set<int64_t> ranks;
  std::string version;
  std::string why;
};

// Why |d| cannot belong to |job| ("" when it can).
std::string Conflict(const JobDumps& job, const FlightRecorderDump& d) {
  if (job.ranks.count(d.rank) != 0) return fmt::format("rank {} dumped twice", d.rank);
  if (!job.version.empty() && !d.version.empty() && job.version != d.version) {
    return fmt::format("dump version {} against {}", d.version, job.version);
  }
  for (const auto& [pg, ranks] : d.pg_ranks) {
    const auto it = job.pg_ranks.find(pg);
    if (it != job.pg_ranks.end() && !ranks.empty() && !it->second.empty() && it->second != ranks) {
      return fmt::format("process group {} has other ranks", pg);
    }
    const auto desc = d.pg_descs.find(pg);
    const auto jdesc = job.pg_descs.find(pg);
    if (desc != d.pg_descs.end() && jdesc != job.pg_descs.end() && desc->second != jdesc->second) {
      return fmt::format("process group {} is {} there, {} here", pg, jdesc->second, desc->second);
    }
  }
  return {};
}

std::vector<JobDumps> SplitJobs(const std::vector<FlightRecorderDump>& dumps) {
  std::vector<const FlightRecorderDump*> order;
  order.reserve(dumps.size());
  for (const FlightRecorderDump& d : dumps) order.push_back(&d);
  std::sort(order.begin(), order.end(),
            [](const auto* a, const auto* b) { return a->path < b->path; });
  std::vector<JobDumps> jobs;
  for (const FlightRecorderDump* d : order) {
    JobDumps* home = nullptr;
    std::string why;
    for (JobDumps& j : jobs) {
      const std::string c = Conflict(j, *d);
      if (c.empty()) {
        home = &j;
        break;
      }
      if (why.empty()) why = c;
    }
    if (home == nullptr) {
      jobs.emplace_back();
      home = &jobs.back();
      home->why = why;
    }
    home->dumps.push_back(d);
    home->ranks.insert(d->rank);
    if (home->version.empty()) home->version = d->version;
    for (const auto& [pg, ranks] : d->pg_ranks) {
      if (!ranks.empty()) home->pg_ranks[pg] = ranks;
      if (home->pg_ranks.find(pg) == home->pg_ranks.end()) home->pg_ranks[pg] = ranks;
    }
    for (const auto& [pg, desc] : d->pg_descs) home->pg_descs[pg] = desc;
  }
  // The reason two jobs differ holds both ways.
  std::string reason;
  for (const JobDumps& j : jobs) {
    if (reason.empty()) reason = j.why;
  }
  for (JobDumps& j : jobs) {
    if (j.why.empty() && jobs.size() > 1) j.why = reason;
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobDumps& a, const JobDumps& b) {
    return a.dumps.size() > b.dumps.size();
  });
  return jobs;
}

// ---- Flight recorder: the stuck collective of each process group ---------

std::optional<int64_t> SeqOf(const FlightRecorderEntry& e, bool p2p) {
  return p2p ? e.p2p_seq_id : e.collective_seq_id;
}

struct Track {
  std::optional<int64_t> enqueued, completed;
  bool data = false;
};

// One rank's view of one group's collectives (p2p = false) or p2p ops.
Track TrackOf(const FlightRecorderDump& d, const std::vector<const FlightRecorderEntry*>& entries,
              bool p2p) {
  Track t;
  bool other_kind = false;
  std::optional<int64_t> pg_id;
  for (const FlightRecorderEntry* e : entries) {
    if (e->pg_id) pg_id = e->pg_id;
    if (e->is_p2p != p2p) {
      other_kind = true;
      continue;
    }
    const std::optional<int64_t> s = SeqOf(*e, p2p);
    if (!s) continue;
    t.data = true;
    t.enqueued = std::max(t.enqueued.value_or(*s), *s);
    if (e->state == "completed") t.completed = std::max(t.completed.value_or(*s), *s);
  }
  // pg_status counts the group's work as one sequence: used only when the
  // group ran one kind of work on this rank.
  if (pg_id && !other_kind && (t.data || !p2p)) {
    const auto it = d.pg_status.find(std::to_string(*pg_id));
    if (it != d.pg_status.end() && t.data) {
      const model::FlightRecorderPgStatus& st = it->second;
      if (st.last_enqueued)
        t.enqueued = std::max(t.enqueued.value_or(*st.last_enqueued), *st.last_enqueued);
      if (st.last_completed) {
        t.completed = std::max(t.completed.value_or(*st.last_completed), *st.last_completed);
      }
    }
  }
  return t;
}

std::string Dims(const std::vector<int64_t>& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

// "nccl:send 0->1" -> (0, 1, send); "nccl:recv 1<-0" -> (1, 0, recv): local ranks.
struct P2pName {
  bool ok = false, send = false;
  int64_t self = 0, peer = 0;
};

P2pName ParseP2p(const std::string& name) {
  P2pName p;
  const size_t arrow_send = name.find("->");
  const size_t arrow_recv = name.find("<-");
  const size_t space = name.rfind(' ');
  if (space == std::string::npos) return p;
  const size_t arrow = arrow_send != std::string::npos ? arrow_send : arrow_recv;
  if (arrow == std::string::npos || arrow < space) return p;
  auto number = [](std::string_view t, int64_t* v) {
    if (t.empty() || t.size() > 9) return false;
    *v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return false;
      *v = *v * 10 + (c - '0');
    }
    return true;
  };
  const std::string_view n(name);
  if (!number(n.substr(space + 1, arrow - space - 1), &p.self) ||
      !number(n.substr(arrow + 2), &p.peer)) {
    return p;
  }
  p.send = arrow_send != std::string::npos;
  p.ok = true;
  return p;
}

struct GroupView {
  std::string name, desc;
  std::vector<int64_t> members;
  std::map<int64_t, const FlightRecorderDump*> dump_of;
  std::map<int64_t, std::vector<const FlightRecorderEntry*>> entries_of;
};

void FillEntryFacts(const FlightRecorderEntry& e, StuckCollective* s) {
  s->op = *e.profiling_name;
  s->pg_id = e.pg_id;
  s->sizes = *e.input_sizes;
  s->dtypes = *e.input_dtypes;
  s->timeout_ms = e.timeout_ms;
  if (s->pg_desc.empty()) s->pg_desc = *e.pg_desc;
}

// The stuck entry as the ranks inside recorded it (the lowest rank's).
void FillStuckEntry(const GroupView& g, StuckCollective* s) {
  for (int64_t r : s->inside) {
    const auto e = g.entries_of.find(r);
    if (e == g.entries_of.end()) continue;
    for (const FlightRecorderEntry* entry : e->second) {
      if (entry->is_p2p || entry->collective_seq_id != s->seq) continue;
      if (s->op.empty()) FillEntryFacts(*entry, s);
      if (entry->time_created_ns &&
          (!s->time_created_ns || *entry->time_created_ns < *s->time_created_ns)) {
        s->time_created_ns = entry->time_created_ns;
      }
    }
  }
}

std::optional<StuckCollective> JudgeCollectives(const GroupView& g, size_t job, bool* waiting) {
  StuckCollective s;
  s.job = job;
  s.source = "flight recorder";
  s.pg_name = g.name;
  s.pg_desc = g.desc;
  s.members = g.members;
  std::map<int64_t, Track> tracks;
  bool any_completed = false;
  for (int64_t r : g.members) {
    const auto d = g.dump_of.find(r);
    if (d == g.dump_of.end()) {
      s.no_dump.push_back(r);
      continue;
    }
    if (d->second->entries.empty()) {
      s.missing.push_back(r);
      s.empty_dumps.push_back(r);
      continue;
    }
    const auto e = g.entries_of.find(r);
    Track t = TrackOf(
        *d->second, e == g.entries_of.end() ? std::vector<const FlightRecorderEntry*>{} : e->second,
        /*p2p=*/false);
    if (!t.data) {
      s.unknown.push_back(r);
      continue;
    }
    any_completed = any_completed || t.completed.has_value();
    tracks[r] = t;
  }
  if (tracks.empty()) return std::nullopt;
  int64_t stuck = 0;
  if (any_completed) {
    int64_t furthest = -1;
    for (const auto& [r, t] : tracks) furthest = std::max(furthest, t.completed.value_or(-1));
    stuck = furthest + 1;
  } else {
    for (const auto& [r, t] : tracks) stuck = std::max(stuck, *t.enqueued);
  }
  for (const auto& [r, t] : tracks) {
    if (*t.enqueued < stuck) {
      s.missing.push_back(r);
    } else if (t.completed.value_or(-1) < stuck) {
      s.inside.push_back(r);
    }
  }
  SortUnique(&s.missing);
  if (s.inside.empty()) return std::nullopt;
  if (s.missing.empty() && s.no_dump.empty()) {
    *waiting = true;
    return std::nullopt;
  }
  s.seq = stuck;
  FillStuckEntry(g, &s);
  return s;
}

// Why |peer| does not answer |name| posted by local rank name.self: "" when
// it has an open matching op; nullopt when it says nothing (its buffer
// holds nothing of the group).
std::optional<std::string> PeerAnswer(const GroupView& g, int64_t peer, const P2pName& name) {
  const auto pd = g.dump_of.find(peer);
  if (pd == g.dump_of.end()) return std::string("left no dump");
  if (pd->second->entries.empty()) return std::string("its dump is empty");
  const auto pe = g.entries_of.find(peer);
  if (pe == g.entries_of.end()) return std::nullopt;
  for (const FlightRecorderEntry* other : pe->second) {
    const P2pName on = ParseP2p(*other->profiling_name);
    if (other->is_p2p && on.ok && on.send != name.send && on.peer == name.self &&
        other->state != "completed") {
      return std::string();
    }
  }
  return fmt::format("never posted the matching {}", name.send ? "recv" : "send");
}

// Rank |r|'s first open p2p op whose peer does not answer it, added to |s|.
void UnmatchedOf(const GroupView& g, int64_t r, StuckCollective* s) {
  const auto e = g.entries_of.find(r);
  const auto d = g.dump_of.find(r);
  if (e == g.entries_of.end() || d == g.dump_of.end()) return;
  const Track t = TrackOf(*d->second, e->second, /*p2p=*/true);
  for (const FlightRecorderEntry* entry : e->second) {
    if (!entry->is_p2p || entry->state == "completed" || !entry->p2p_seq_id) continue;
    if (t.completed && *entry->p2p_seq_id <= *t.completed) continue;
    const P2pName name = ParseP2p(*entry->profiling_name);
    if (!name.ok || name.peer < 0 || name.peer >= static_cast<int64_t>(g.members.size())) continue;
    const int64_t peer = g.members[static_cast<size_t>(name.peer)];
    const std::optional<std::string> why = PeerAnswer(g, peer, name);
    if (!why || why->empty()) return;
    s->unmatched_p2p.push_back(fmt::format("rank {} {} {} rank {}: rank {} {}", r,
                                           name.send ? "send" : "recv", name.send ? "->" : "<-",
                                           peer, peer, *why));
    s->inside.push_back(r);
    const auto pd = g.dump_of.find(peer);
    if (pd == g.dump_of.end()) {
      s->no_dump.push_back(peer);
    } else {
      s->missing.push_back(peer);
      if (pd->second->entries.empty()) s->empty_dumps.push_back(peer);
    }
    if (s->op.empty()) {
      FillEntryFacts(*entry, s);
      s->seq = entry->p2p_seq_id;
    }
    if (entry->time_created_ns &&
        (!s->time_created_ns || *entry->time_created_ns < *s->time_created_ns)) {
      s->time_created_ns = entry->time_created_ns;
    }
    return;
  }
}

// P2P: an op posted and not completed whose peer never posted its match.
std::optional<StuckCollective> JudgeP2p(const GroupView& g, size_t job) {
  StuckCollective s;
  s.job = job;
  s.source = "flight recorder";
  s.pg_name = g.name;
  s.pg_desc = g.desc;
  s.members = g.members;
  s.p2p = true;
  for (int64_t r : g.members) UnmatchedOf(g, r, &s);
  if (s.unmatched_p2p.empty()) return std::nullopt;
  SortUnique(&s.inside);
  SortUnique(&s.missing);
  SortUnique(&s.empty_dumps);
  SortUnique(&s.no_dump);
  return s;
}

bool EarlierCreated(const StuckCollective& a, const StuckCollective& b) {
  if (a.p2p != b.p2p) return !a.p2p;
  if (a.time_created_ns.has_value() != b.time_created_ns.has_value()) {
    return a.time_created_ns.has_value();
  }
  if (a.time_created_ns && *a.time_created_ns != *b.time_created_ns) {
    return *a.time_created_ns < *b.time_created_ns;
  }
  if (a.job != b.job) return a.job < b.job;
  return a.pg_name < b.pg_name;
}

void AnalyzeJob(const JobDumps& job, size_t index, TriageReport* out,
                std::map<int64_t, TriageRankEvidence>* evidence) {
  std::map<std::string, GroupView> groups;
  for (const auto& [pg, ranks] : job.pg_ranks) {
    GroupView& g = groups[pg];
    g.name = pg;
    g.members = ranks;
    const auto desc = job.pg_descs.find(pg);
    if (desc != job.pg_descs.end()) g.desc = desc->second;
  }
  for (const FlightRecorderDump* d : job.dumps) {
    for (const FlightRecorderEntry& e : d->entries) {
      GroupView& g = groups[*e.pg_name];
      if (g.name.empty()) g.name = *e.pg_name;
      g.entries_of[d->rank].push_back(&e);
      if (g.desc.empty()) g.desc = *e.pg_desc;
    }
  }
  for (auto& [pg, g] : groups) {
    if (g.members.empty()) g.members.assign(job.ranks.begin(), job.ranks.end());
    for (const FlightRecorderDump* d : job.dumps) {
      if (std::find(g.members.begin(), g.members.end(), d->rank) != g.members.end()) {
        g.dump_of[d->rank] = d;
      }
    }
    bool waiting = false;
    if (std::optional<StuckCollective> s = JudgeCollectives(g, index, &waiting)) {
      out->stuck.push_back(std::move(*s));
    } else if (waiting) {
      ++out->groups_waiting;
    }
    if (std::optional<StuckCollective> s = JudgeP2p(g, index)) out->stuck.push_back(std::move(*s));
  }
  // Each dump's rank: its last entry.
  for (const FlightRecorderDump* d : job.dumps) {
    TriageRankEvidence& ev = (*evidence)[d->rank];
    ev.node = RankNode(d->rank);
    ev.rank = d->rank;
    ev.path = d->path;
    if (d->entries.empty()) {
      ev.state = "empty-dump";
      ev.last_line = "no entry recorded";
      continue;
    }
    const FlightRecorderEntry& last = d->entries.back();
    ev.last_line = fmt::format(
        "{} {} seq {} {}", last.pg_desc->empty() ? *last.pg_name : *last.pg_desc,
        *last.profiling_name,
        SeqOf(last, last.is_p2p) ? std::to_string(*SeqOf(last, last.is_p2p)) : std::string("n/a"),
        *last.state);
    for (const FlightRecorderEntry& e : d->entries) {
      if (e.time_created_ns)
        ev.last_event_ns = std::max(ev.last_event_ns.value_or(0), *e.time_created_ns);
    }
  }
}

// ---- Logs: nodes, errors, links ------------------------------------------

// The node a log speaks for when it names no rank per line.
struct LogNode {
  std::string label;
  std::optional<int64_t> rank, rank_num;
};

using IdentityKey = std::pair<std::string, int64_t>;  // worker, pid

LogNode NodeOfLog(const model::FailureLog& log,
                  const std::map<IdentityKey, model::HcclIdentity>& identities) {
  LogNode n;
  std::optional<int64_t> device;
  if (log.format == "device log") device = log.device;
  if (log.pid) {
    const auto it = identities.find({log.worker, *log.pid});
    if (it != identities.end()) {
      n.rank = it->second.rank;
      n.rank_num = it->second.rank_num;
      if (!device) device = it->second.device;
    }
  }
  if (!device) device = log.device;
  std::string where = log.worker;
  if (device) {
    if (!where.empty()) where += ' ';
    where += fmt::format("device-{}", *device);
  }
  if (where.empty() && n.rank) where = RankNode(*n.rank);
  if (where.empty()) where = log.path;
  n.label = where;
  return n;
}

std::string EventNode(const model::FailureLog& log, const model::FailureEvent& e,
                      const LogNode& node) {
  if (log.format == "c10d log" || log.format == "error.json") {
    if (e.rank) return RankNode(*e.rank);
    return node.label == log.path ? std::string("job") : node.label;
  }
  return node.label;
}

struct LinkEdges {
  std::vector<LinkEdge> edges;
  bool notify = false, sdma = false, socket = false;
};

// Who waited for whom: LINK_ERROR_INFO rows and task exceptions naming a peer.
LinkEdges BuildEdges(const std::vector<model::FailureLog>& logs,
                     const std::map<IdentityKey, model::HcclIdentity>& identities) {
  std::map<int64_t, std::string> node_of_rank;
  for (const model::FailureLog& log : logs) {
    if (log.format != "plog") continue;
    const LogNode n = NodeOfLog(log, identities);
    if (n.rank) node_of_rank.try_emplace(*n.rank, n.label);
  }
  LinkEdges out;
  std::set<std::pair<std::string, std::string>> seen;
  auto add = [&](const LogNode& from, std::optional<int64_t> to_rank, const std::string& why,
                 const std::string& path, int64_t line) {
    if (!to_rank || (from.rank_num && *to_rank >= *from.rank_num)) return;  // no such peer
    const auto it = node_of_rank.find(*to_rank);
    const std::string to =
        it != node_of_rank.end() ? it->second : fmt::format("rank {} (no logs)", *to_rank);
    if (to == from.label || !seen.insert({from.label, to}).second) return;
    out.edges.push_back({from.label, to, why, path, line});
  };
  for (const model::FailureLog& log : logs) {
    if (log.format != "plog" && log.format != "device log") continue;
    const LogNode n = NodeOfLog(log, identities);
    for (const model::LinkRecord& r : log.links) {
      out.socket = true;
      add(n, r.dest_rank,
          fmt::format("{} ({})", r.status.empty() ? "link error" : r.status, r.role), log.path,
          r.line);
    }
    for (const model::FailureEvent& e : log.events) {
      if (e.kind == FailureKind::kLinkError || !e.remote_rank) continue;  // rows added above
      out.notify = out.notify || e.kind == FailureKind::kNotifyTimeout;
      out.sdma = out.sdma || e.kind == FailureKind::kSdmaError;
      out.socket = out.socket || e.kind == FailureKind::kConnectTimeout;
      add(n, e.remote_rank, std::string(model::FailureKindName(e.kind)), log.path, e.line);
    }
  }
  return out;
}

using NextNodes = std::map<std::string, std::vector<std::string>>;

// A cycle reached from |start| along each node's first edge (empty: none).
std::vector<std::string> CycleFrom(const std::string& start, const NextNodes& next) {
  std::vector<std::string> path{start};
  std::string at = start;
  for (auto it = next.find(at); it != next.end(); it = next.find(at)) {
    at = it->second.front();
    const auto loop = std::find(path.begin(), path.end(), at);
    if (loop != path.end()) return {loop, path.end()};
    path.push_back(at);
  }
  return {};
}

// The chain from |start| along each node's first edge.
std::vector<std::string> ChainFrom(const std::string& start, const NextNodes& next, size_t limit) {
  std::vector<std::string> path{start};
  for (auto it = next.find(start); it != next.end() && path.size() <= limit;
       it = next.find(path.back())) {
    path.push_back(it->second.front());
  }
  return path;
}

void AnalyzeLinks(const std::vector<model::FailureLog>& logs,
                  const std::map<IdentityKey, model::HcclIdentity>& identities,
                  const std::map<std::string, std::optional<int64_t>>& first_error_ns,
                  TriageReport* out) {
  LinkEdges built = BuildEdges(logs, identities);
  if (built.edges.empty()) return;
  LinkAnalysis links;
  links.edges = std::move(built.edges);
  NextNodes next;
  std::map<std::string, int> incoming;
  std::set<std::string> nodes;
  for (const LinkEdge& e : links.edges) {
    next[e.from].push_back(e.to);
    ++incoming[e.to];
    nodes.insert(e.from);
    nodes.insert(e.to);
  }
  auto earlier = [&](const std::string& a, const std::string& b) {
    const int64_t none = std::numeric_limits<int64_t>::max();
    const auto ia = first_error_ns.find(a);
    const auto ib = first_error_ns.find(b);
    const int64_t ta = ia == first_error_ns.end() ? none : ia->second.value_or(none);
    const int64_t tb = ib == first_error_ns.end() ? none : ib->second.value_or(none);
    if (ta != tb) return ta < tb;
    return a < b;
  };
  std::vector<std::string> starts(nodes.begin(), nodes.end());
  std::sort(starts.begin(), starts.end(), earlier);
  for (const std::string& start : starts) {
    std::vector<std::string> cycle = CycleFrom(start, next);
    if (cycle.empty()) continue;
    // The cycle begins at its node with the earliest error.
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end(), earlier), cycle.end());
    links.cycle = true;
    links.root_causes = cycle;
    cycle.push_back(cycle.front());
    links.chain = fmt::format("{}", fmt::join(cycle, " -> "));
    break;
  }
  if (!links.cycle) {
    // Chains from nodes nobody waits for: each end is a root cause (the last
    // node with logs when the end left none); the longest is shown.
    std::vector<std::string> best;
    std::set<std::string> roots;
    for (const std::string& start : starts) {
      if (incoming[start] != 0) continue;
      const std::vector<std::string> chain = ChainFrom(start, next, nodes.size());
      const bool no_logs = chain.back().find("(no logs)") != std::string::npos;
      roots.insert(no_logs && chain.size() > 1 ? chain[chain.size() - 2] : chain.back());
      if (chain.size() > best.size()) best = chain;
    }
    if (best.empty()) best.push_back(starts.front());
    links.chain = fmt::format("{}", fmt::join(best, " -> "));
    links.root_causes.assign(roots.begin(), roots.end());
  }
  if (built.notify) {
    links.fault = "notify-timeout";
  } else if (built.sdma) {
    links.fault = "sdma-error";
  } else if (built.socket) {
    links.fault = links.cycle ? "socket-no-connect-cycle" : "socket-no-connect";
  } else {
    links.fault = "link-error";
  }
  out->links = std::move(links);
}

// How a node ended: its last terminal line.
int EndingWeight(FailureKind k) {
  switch (k) {
    case FailureKind::kSignal:
    case FailureKind::kSegfault:
    case FailureKind::kOutOfMemory:
    case FailureKind::kTimeLimit:
    case FailureKind::kCancelled:
      return 3;
    case FailureKind::kWatchdogTimeout:
    case FailureKind::kDeviceError:
    case FailureKind::kNotifyTimeout:
    case FailureKind::kSdmaError:
    case FailureKind::kDispatchTimeout:
      return 2;
    default:
      return 1;
  }
}

std::string SignalName(int64_t s) {
  switch (s) {
    case 6:
      return "SIGABRT";
    case 9:
      return "SIGKILL";
    case 11:
      return "SIGSEGV";
    case 15:
      return "SIGTERM";
    default:
      return fmt::format("signal {}", s);
  }
}

std::string Describe(const StuckCollective& s) {
  std::string what = fmt::format("PG {}", s.pg_name);
  if (!s.pg_desc.empty()) what += fmt::format(" ({})", s.pg_desc);
  what += fmt::format(" {}", s.op.empty() ? std::string("n/a") : s.op);
  if (s.seq) what += fmt::format(" seq {}", *s.seq);
  if (!s.sizes.empty() && !s.sizes.front().empty()) {
    what += fmt::format(" {}", Dims(s.sizes.front()));
  }
  if (!s.dtypes.empty()) what += fmt::format(" {}", s.dtypes.front());
  return what;
}

}  // namespace

size_t TriageWorldOf(const std::vector<int64_t>& members) {
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i] != static_cast<int64_t>(i)) return 0;
  }
  return members.size();
}

std::string TriageRankPhrase(const std::vector<int64_t>& ranks, size_t total) {
  std::string set = total > 0 ? CompactRankSet(ranks, total) : CompactRankList(ranks);
  if (set.rfind("all ", 0) == 0) return set;
  std::vector<int64_t> unique = ranks;
  SortUnique(&unique);
  return fmt::format("{} {}", unique.size() == 1 ? "rank" : "ranks", set);
}

namespace {

// What the logs said, gathered in one pass.
struct LogFacts {
  std::map<IdentityKey, model::HcclIdentity> identities;
  std::map<std::string, TriageError> first_of_node;
  std::map<std::string, RankEnding> ending_of;
  std::map<std::string, int> ending_weight;
  std::vector<TriageError> file_order;  // every error, in file order
  bool any_clock = false;
  std::optional<StuckCollective> watchdog;
  std::set<int64_t> world;
  std::optional<int64_t> world_size;
  bool finished = false, time_limit = false, cancelled = false;
};

std::map<IdentityKey, model::HcclIdentity> CollectIdentities(
    const std::vector<model::FailureLog>& logs) {
  std::map<IdentityKey, model::HcclIdentity> out;
  for (const model::FailureLog& log : logs) {
    if (!log.identity || !log.pid) continue;
    model::HcclIdentity& id = out[{log.worker, *log.pid}];
    const model::HcclIdentity& got = *log.identity;
    if (got.rank) id.rank = got.rank;
    if (got.rank_num) id.rank_num = got.rank_num;
    if (got.device) id.device = got.device;
    if (!got.device_ip.empty()) id.device_ip = got.device_ip;
    if (!got.server.empty()) id.server = got.server;
  }
  return out;
}

TriageRankEvidence& EvidenceOf(std::map<int64_t, TriageRankEvidence>* evidence, int64_t rank) {
  TriageRankEvidence& ev = (*evidence)[rank];
  ev.node = RankNode(rank);
  ev.rank = rank;
  return ev;
}

void NoteEnding(const model::FailureLog& log, const model::FailureEvent& e, const TriageError& err,
                bool job_level, LogFacts* facts) {
  const int w = EndingWeight(e.kind);
  const std::string node = job_level ? std::string("job") : err.node;
  if (w < facts->ending_weight[node]) return;
  facts->ending_weight[node] = w;
  RankEnding end;
  end.node = node;
  end.rank = job_level ? std::nullopt : err.rank;
  end.how = std::string(model::FailureKindName(e.kind));
  if (e.signal) end.detail = SignalName(*e.signal);
  if (e.kind == FailureKind::kWatchdogTimeout) {
    end.detail = fmt::format("{} seq {} after {} ms", e.op,
                             e.seq ? std::to_string(*e.seq) : std::string("n/a"),
                             e.ran_ms ? std::to_string(*e.ran_ms) : std::string("n/a"));
  }
  end.path = log.path;
  end.line = e.line;
  facts->ending_of[node] = end;
}

void NoteWatchdog(const model::FailureEvent& e, LogFacts* facts,
                  std::map<int64_t, TriageRankEvidence>* evidence) {
  std::optional<StuckCollective>& w = facts->watchdog;
  if (!w) {
    w.emplace();
    w->source = "watchdog";
    w->pg_name = e.pg ? std::to_string(*e.pg) : std::string("n/a");
    w->op = e.op;
    w->seq = e.seq;
    w->numel_in = e.numel_in;
    w->numel_out = e.numel_out;
    w->timeout_ms = e.timeout_ms;
  }
  if (w->seq == e.seq && w->op == e.op) w->inside.push_back(*e.rank);
  TriageRankEvidence& ev = EvidenceOf(evidence, *e.rank);
  ev.state = "timed-out";
  ev.last_completed = e.last_completed;
  ev.last_enqueued = e.last_enqueued;
}

void ReadEvent(const model::FailureLog& log, const LogNode& node, const model::FailureEvent& e,
               LogFacts* facts, std::map<int64_t, TriageRankEvidence>* evidence) {
  TriageError err;
  err.node = EventNode(log, e, node);
  const bool device_log = log.format == "plog" || log.format == "device log";
  err.rank = device_log ? node.rank : (e.rank ? e.rank : node.rank);
  err.kind = e.kind;
  err.path = log.path;
  err.line = e.line;
  err.clock = e.clock;
  err.time_ns = e.time_ns;
  err.text = e.text;
  facts->any_clock = facts->any_clock || e.time_ns.has_value();
  facts->time_limit = facts->time_limit || e.kind == FailureKind::kTimeLimit;
  facts->cancelled = facts->cancelled || e.kind == FailureKind::kCancelled;
  const bool job_level = e.kind == FailureKind::kTimeLimit || e.kind == FailureKind::kCancelled;
  if (!job_level) {
    auto it = facts->first_of_node.find(err.node);
    if (it == facts->first_of_node.end()) {
      facts->first_of_node.emplace(err.node, err);
    } else if (e.time_ns && (!it->second.time_ns || *e.time_ns < *it->second.time_ns)) {
      it->second = err;
    }
    facts->file_order.push_back(err);
  }
  NoteEnding(log, e, err, job_level, facts);
  if (e.kind == FailureKind::kWatchdogTimeout && e.rank) NoteWatchdog(e, facts, evidence);
}

LogFacts ReadLogs(const std::vector<model::FailureLog>& logs,
                  std::map<int64_t, TriageRankEvidence>* evidence) {
  LogFacts facts;
  facts.identities = CollectIdentities(logs);
  for (const model::FailureLog& log : logs) {
    const LogNode node = NodeOfLog(log, facts.identities);
    if (log.world_size) facts.world_size = std::max(facts.world_size.value_or(0), *log.world_size);
    facts.finished = facts.finished || log.finished;
    for (const auto& [rank, trail] : log.ranks) {
      facts.world.insert(rank);
      TriageRankEvidence& ev = EvidenceOf(evidence, rank);
      if (!trail.last_text.empty()) {
        ev.last_line = trail.last_text;
        ev.path = fmt::format("{}:{}", log.path, trail.last_line);
      }
    }
    for (const model::FailureEvent& e : log.events) ReadEvent(log, node, e, &facts, evidence);
  }
  return facts;
}

// Each node's first error, the earliest first; without clocks, file order.
void OrderErrors(const LogFacts& facts, std::map<int64_t, TriageRankEvidence>* evidence,
                 TriageReport* out) {
  for (auto& [rank, ev] : *evidence) {
    const auto it = facts.first_of_node.find(ev.node);
    if (it != facts.first_of_node.end()) ev.first_error_ns = it->second.time_ns;
  }
  for (const auto& [label, err] : facts.first_of_node) {
    out->errors.push_back(err);
    if (label.rfind("rank ", 0) == 0) continue;  // ranks are in |evidence|
    TriageRankEvidence ev;
    ev.node = label;
    ev.rank = err.rank;
    ev.state = std::string(model::FailureKindName(err.kind));
    ev.last_line = err.text;
    ev.path = fmt::format("{}:{}", err.path, err.line);
    ev.first_error_ns = err.time_ns;
    ev.last_event_ns = err.time_ns;
    out->ranks.push_back(std::move(ev));
  }
  std::stable_sort(out->errors.begin(), out->errors.end(),
                   [](const TriageError& a, const TriageError& b) {
                     const int64_t none = std::numeric_limits<int64_t>::max();
                     const int64_t ta = a.time_ns.value_or(none);
                     const int64_t tb = b.time_ns.value_or(none);
                     if (ta != tb) return ta < tb;
                     if (a.path != b.path) return a.path < b.path;
                     return a.line < b.line;
                   });
  if (!out->errors.empty()) {
    out->first_error = out->errors.front();
    out->first_error_clock =
        out->first_error->time_ns ? "the lines' clocks" : "file order (no clock)";
  }
  if (!facts.any_clock && !facts.file_order.empty()) {
    out->first_error = facts.file_order.front();
    out->first_error_clock = "file order (no clock)";
  }
}

// The watchdog's collective: the ranks of the job that did not report it.
void CompleteWatchdog(LogFacts* facts, std::map<int64_t, TriageRankEvidence>* evidence) {
  if (!facts->watchdog) return;
  StuckCollective& w = *facts->watchdog;
  SortUnique(&w.inside);
  const int64_t n =
      facts->world_size.value_or(facts->world.empty() ? 0 : *facts->world.rbegin() + 1);
  for (int64_t r = 0; r < n; ++r) {
    w.members.push_back(r);
    if (!std::binary_search(w.inside.begin(), w.inside.end(), r)) w.unknown.push_back(r);
  }
  for (int64_t r : w.unknown) {
    TriageRankEvidence& ev = EvidenceOf(evidence, r);
    if (ev.state.empty()) ev.state = "no-timeout-line";
  }
}

// Flight-recorder evidence of ranks that stopped.
void FlightRecorderEndings(const TriageReport& out, LogFacts* facts) {
  for (const StuckCollective& s : out.stuck) {
    if (s.job != 0) continue;
    for (int64_t r : s.empty_dumps) {
      facts->ending_of.try_emplace(RankNode(r), RankEnding{RankNode(r), r, "stopped-recording",
                                                           "its dump holds no entry", "", 0});
    }
    for (int64_t r : s.no_dump) {
      facts->ending_of.try_emplace(
          RankNode(r),
          RankEnding{RankNode(r), r, "no-dump", "it left no flight-recorder dump", "", 0});
    }
  }
}

std::vector<int64_t> CulpritsOf(const StuckCollective& s) {
  std::vector<int64_t> culprits = s.missing;
  culprits.insert(culprits.end(), s.no_dump.begin(), s.no_dump.end());
  return culprits;
}

// The stuck collectives the verdict names: the first, and those that blame new ranks.
std::vector<const StuckCollective*> NamedGroups(const TriageReport& out) {
  std::vector<const StuckCollective*> named;
  std::set<int64_t> blamed;
  for (const StuckCollective& s : out.stuck) {
    if (s.job != 0) continue;
    const std::vector<int64_t> culprits = CulpritsOf(s);
    bool adds = named.empty();
    for (int64_t r : culprits) adds = adds || blamed.count(r) == 0;
    if (!adds || (!named.empty() && s.p2p)) continue;  // a p2p wait behind a named collective
    named.push_back(&s);
    blamed.insert(culprits.begin(), culprits.end());
  }
  return named;
}

void MarkGroupEvidence(const StuckCollective& s, std::map<int64_t, TriageRankEvidence>* evidence) {
  for (int64_t r : s.missing) {
    const bool empty = std::binary_search(s.empty_dumps.begin(), s.empty_dumps.end(), r);
    EvidenceOf(evidence, r).state = empty ? "empty-dump" : "missing";
  }
  for (int64_t r : s.inside) EvidenceOf(evidence, r).state = "inside";
  for (int64_t r : s.no_dump) EvidenceOf(evidence, r).state = "no-dump";
}

void HangVerdict(const std::vector<const StuckCollective*>& named, TriageReport* out) {
  out->verdict_kind = "hang";
  std::vector<std::string> parts;
  parts.reserve(named.size());
  for (const StuckCollective* s : named) {
    const std::vector<int64_t> culprits = CulpritsOf(*s);
    for (int64_t r : culprits) out->culprits.push_back(RankNode(r));
    std::string part = Describe(*s);
    if (s->p2p) {
      part += fmt::format(": unmatched p2p, {}", s->unmatched_p2p.front());
    } else {
      part += fmt::format(": {} never reached it ({} inside)",
                          TriageRankPhrase(culprits, TriageWorldOf(s->members)), s->inside.size());
    }
    parts.push_back(std::move(part));
  }
  out->verdict = named.size() == 1 ? fmt::format("hang in {}", parts.front())
                                   : fmt::format("hang in {} process groups at once: {}",
                                                 named.size(), fmt::join(parts, "; "));
  if (out->stuck.size() > named.size()) {
    out->verdict +=
        fmt::format(" (the same ranks block {} more group(s))", out->stuck.size() - named.size());
  }
  if (out->jobs.size() > 1) {
    out->verdict += fmt::format(" [job 1 of {} found; the others triaged apart]", out->jobs.size());
  }
}

void WatchdogVerdict(const StuckCollective& w, TriageReport* out) {
  out->verdict_kind = "hang";
  for (int64_t r : w.inside) out->culprits.push_back(RankNode(r));
  std::string what =
      fmt::format("PG {} {} SeqNum {}", w.pg_name, w.op.empty() ? std::string("n/a") : w.op,
                  w.seq ? std::to_string(*w.seq) : std::string("n/a"));
  if (w.numel_in) what += fmt::format(" (NumelIn {})", *w.numel_in);
  const size_t world = TriageWorldOf(w.members);
  const std::string on = TriageRankPhrase(w.inside, world);
  if (on.rfind("all ", 0) == 0) {  // "all 8 ranks but 0, 2, 3": the exceptions are |unknown|
    out->verdict = fmt::format("hang in {}: timed out on {}{}", what, on,
                               w.unknown.empty() ? "" : ", which left no timeout line");
    return;
  }
  out->verdict = fmt::format("hang in {}: timed out on {} of {}", what, on, w.members.size());
  if (!w.unknown.empty()) {
    out->verdict += fmt::format("; {} left no timeout line", TriageRankPhrase(w.unknown, world));
  }
}

void Verdict(const std::vector<const StuckCollective*>& named, const LogFacts& facts,
             TriageReport* out) {
  if (!named.empty()) {
    HangVerdict(named, out);
  } else if (out->links && !out->links->root_causes.empty()) {
    const LinkAnalysis& l = *out->links;
    const bool device = l.fault == "notify-timeout" || l.fault == "sdma-error";
    out->verdict_kind = device ? "device-error" : "link-failure";
    out->culprits = l.root_causes;
    out->verdict = fmt::format(
        "{}: root cause {} ({}); {} {}", device ? "device error" : "link failure",
        fmt::join(l.root_causes, " and "), l.fault, l.cycle ? "cycle" : "chain", l.chain);
  } else if (facts.watchdog) {
    WatchdogVerdict(*facts.watchdog, out);
  } else if (facts.time_limit || facts.cancelled) {
    out->verdict_kind = facts.time_limit ? "time-limit" : "cancelled";
    out->verdict = facts.time_limit ? "ended by the scheduler's time limit; no collective hung"
                                    : "cancelled by the scheduler; no collective hung";
  } else if (out->first_error) {
    out->verdict_kind = "crash";
    out->culprits.push_back(out->first_error->node);
    out->verdict = fmt::format("{} failed: {}", out->first_error->node,
                               model::FailureKindName(out->first_error->kind));
  } else {
    out->verdict_kind = "no-failure";
    out->verdict = facts.finished ? "no failure: the run finished and no error line was found"
                                  : "no failure found: no collective stuck and no error line";
  }
  if (out->verdict_kind != "no-failure" && out->first_error) {
    const TriageError& e = *out->first_error;
    out->verdict +=
        fmt::format("; first error: {} {} ({}:{}{})", e.node, model::FailureKindName(e.kind),
                    e.path, e.line, e.clock.empty() ? std::string() : fmt::format(", {}", e.clock));
  }
}

// ---- Training logs: the last step each rank reached -------------------------

// Each rank's last step (the furthest any of its logs shows); the rank is
// the one the lines name, else the one the path names (`rank3.log`).
void ReadTrainingSteps(const std::vector<model::TrainingProgress>& in,
                       std::map<int64_t, TriageRankEvidence>* evidence, TriageReport* out) {
  std::map<int64_t, TrainingStep> of_rank;
  std::vector<TrainingStep> unranked;
  for (const model::TrainingProgress& p : in) {
    const std::optional<PathRank> from_path = RankFromLogPath(p.path);
    for (const auto& [rank, r] : p.last_of_rank) {
      TrainingStep s;
      s.step = r.step;
      s.ordinal = r.step_is_ordinal;
      s.time_ns = r.wall_ns;
      s.path = p.path;
      s.line = r.line;
      if (rank >= 0) {
        s.rank = rank;
      } else if (from_path) {
        s.rank = from_path->rank;
      } else {
        unranked.push_back(std::move(s));
        continue;
      }
      auto [it, fresh] = of_rank.try_emplace(*s.rank, s);
      if (!fresh && s.step > it->second.step) it->second = std::move(s);
    }
  }
  for (auto& [rank, s] : of_rank) {
    out->furthest_step = std::max(out->furthest_step.value_or(s.step), s.step);
  }
  if (of_rank.empty()) {
    for (const TrainingStep& s : unranked) {
      out->furthest_step = std::max(out->furthest_step.value_or(s.step), s.step);
    }
  }
  if (of_rank.size() >= 2) {
    for (const auto& [rank, s] : of_rank) {
      if (s.step < *out->furthest_step) out->behind.push_back(rank);
    }
  }
  for (auto& [rank, s] : of_rank) {
    TriageRankEvidence& ev = EvidenceOf(evidence, rank);
    ev.last_step = s.step;
    ev.last_step_ns = s.time_ns;
    if (ev.path.empty()) ev.path = fmt::format("{}:{}", s.path, s.line);
    if (ev.last_line.empty()) ev.last_line = fmt::format("training step {}", s.step);
    if (ev.state.empty() && std::binary_search(out->behind.begin(), out->behind.end(), rank)) {
      ev.state = "behind";
    }
    out->last_steps.push_back(std::move(s));
  }
  for (TrainingStep& s : unranked) out->last_steps.push_back(std::move(s));
}

// The ranks whose training stopped before the others', in the verdict: a
// stall of its own when nothing else was found, else one more piece of
// evidence.
void TrainingVerdict(bool finished, TriageReport* out) {
  if (out->behind.empty() || !out->furthest_step) return;
  std::set<int64_t> steps;
  std::vector<int64_t> ranked;
  for (const TrainingStep& s : out->last_steps) {
    if (!s.rank) continue;
    ranked.push_back(*s.rank);
    if (std::binary_search(out->behind.begin(), out->behind.end(), *s.rank)) steps.insert(s.step);
  }
  const std::string at = steps.size() == 1
                             ? fmt::format("step {}", *steps.begin())
                             : fmt::format("steps {}-{}", *steps.begin(), *steps.rbegin());
  const std::string said =
      fmt::format("{} last logged {}, the others step {}",
                  TriageRankPhrase(out->behind, TriageWorldOf(ranked)), at, *out->furthest_step);
  if (out->verdict_kind == "no-failure" && !finished) {
    out->verdict_kind = "hang";
    out->culprits.clear();
    for (int64_t r : out->behind) out->culprits.push_back(RankNode(r));
    out->verdict = fmt::format(
        "training stopped unevenly: {} (training logs); no dump or error line says why", said);
    return;
  }
  out->verdict += fmt::format("; training logs: {}", said);
}

void NextSteps(const model::TriageInputs& in, const LogFacts& facts, TriageReport* out) {
  bool nccl = !in.dumps.empty();
  bool hccl = false;
  for (const model::FailureLog& log : in.logs) {
    nccl = nccl || log.format == "c10d log";
    hccl = hccl || log.format == "plog" || log.format == "device log";
  }
  std::vector<std::string>& steps = out->next_steps;
  if (!out->culprits.empty()) {
    steps.push_back(fmt::format("read the logs of {} first: the others only waited for them",
                                fmt::join(out->culprits, ", ")));
  }
  if (nccl && in.dumps.empty()) {
    steps.emplace_back(
        "set TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 "
        "(TORCH_NCCL_DEBUG_INFO_TEMP_FILE=/shared/dir/nccl_trace_rank_) to get each rank's "
        "flight-recorder dump on the next hang");
  }
  bool started = false;
  for (const FlightRecorderDump& d : in.dumps) {
    for (const FlightRecorderEntry& e : d.entries) started = started || e.state == "started";
  }
  if (!in.dumps.empty() && !started) {
    steps.emplace_back(
        "set TORCH_NCCL_ENABLE_TIMING=1 so dumps say which collectives had started on the device");
  }
  if (hccl) {
    steps.emplace_back(
        "set ASCEND_GLOBAL_LOG_LEVEL=1 (INFO) and ASCEND_SLOG_PRINT_TO_STDOUT=0 for plog detail");
  }
  if (hccl && out->links && out->links->fault.find("socket") != std::string::npos) {
    steps.emplace_back(
        "check the root devices' links (hccn_tool -i DEVICE -link -g, -net_health -g); raise "
        "HCCL_CONNECT_TIMEOUT only when peers start late");
  }
  if (hccl && out->links && out->links->fault == "notify-timeout") {
    steps.emplace_back(
        "HCCL_EXEC_TIMEOUT bounds a notify wait: read the root device's device log for the task "
        "that failed before raising it");
  }
  if (facts.time_limit)
    steps.emplace_back("raise the job's time limit or save checkpoints more often");
}

}  // namespace

TriageReport Triage(const model::TriageInputs& in) {
  TriageReport out;
  out.dumps = static_cast<int64_t>(in.dumps.size());
  out.logs = static_cast<int64_t>(in.logs.size());
  out.training_logs = static_cast<int64_t>(in.training.size());
  std::map<int64_t, TriageRankEvidence> evidence;

  // Flight recorder, one job at a time.
  const std::vector<JobDumps> jobs = SplitJobs(in.dumps);
  for (size_t j = 0; j < jobs.size(); ++j) {
    TriageJob tj;
    tj.label = fmt::format("job {}", j + 1);
    tj.ranks.assign(jobs[j].ranks.begin(), jobs[j].ranks.end());
    tj.paths.reserve(jobs[j].dumps.size());
    for (const FlightRecorderDump* d : jobs[j].dumps) tj.paths.push_back(d->path);
    tj.why = jobs[j].why;
    out.jobs.push_back(std::move(tj));
    // Evidence per rank is kept for the first job only (ranks repeat across jobs).
    std::map<int64_t, TriageRankEvidence> scratch;
    AnalyzeJob(jobs[j], j, &out, j == 0 ? &evidence : &scratch);
  }
  std::stable_sort(out.stuck.begin(), out.stuck.end(), EarlierCreated);

  LogFacts facts = ReadLogs(in.logs, &evidence);
  OrderErrors(facts, &evidence, &out);
  std::map<std::string, std::optional<int64_t>> first_ns;
  for (const auto& [label, err] : facts.first_of_node) first_ns[label] = err.time_ns;
  AnalyzeLinks(in.logs, facts.identities, first_ns, &out);
  CompleteWatchdog(&facts, &evidence);
  ReadTrainingSteps(in.training, &evidence, &out);
  FlightRecorderEndings(out, &facts);
  for (auto& [node, end] : facts.ending_of) out.endings.push_back(end);

  const std::vector<const StuckCollective*> named = NamedGroups(out);
  if (!named.empty()) MarkGroupEvidence(*named.front(), &evidence);
  Verdict(named, facts, &out);
  TrainingVerdict(facts.finished, &out);
  if (facts.watchdog) out.stuck.push_back(std::move(*facts.watchdog));

  for (auto& [rank, ev] : evidence) out.ranks.push_back(std::move(ev));
  std::stable_sort(out.ranks.begin(), out.ranks.end(),
                   [](const TriageRankEvidence& a, const TriageRankEvidence& b) {
                     if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
                     if (a.rank && *a.rank != *b.rank) return *a.rank < *b.rank;
                     return a.node < b.node;
                   });
  NextSteps(in, facts, &out);
  return out;
}

}  // namespace trainscope::analysis
