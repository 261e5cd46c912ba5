#include "analysis/triage/triage.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string_view>

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
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobDumps& a, const JobDumps& b) { return a.dumps.size() > b.dumps.size(); });
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
      if (st.last_enqueued) t.enqueued = std::max(t.enqueued.value_or(*st.last_enqueued), *st.last_enqueued);
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
  s->op = e.profiling_name;
  s->pg_id = e.pg_id;
  s->sizes = e.input_sizes;
  s->dtypes = e.input_dtypes;
  s->timeout_ms = e.timeout_ms;
  if (s->pg_desc.empty()) s->pg_desc = e.pg_desc;
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
    Track t = TrackOf(*d->second, e == g.entries_of.end() ? std::vector<const FlightRecorderEntry*>{}
                                                         : e->second,
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
  // The stuck entry as the ranks inside recorded it (the lowest rank's).
  for (int64_t r : s.inside) {
    const auto e = g.entries_of.find(r);
    if (e == g.entries_of.end()) continue;
    for (const FlightRecorderEntry* entry : e->second) {
      if (entry->is_p2p || entry->collective_seq_id != stuck) continue;
      if (s.op.empty()) FillEntryFacts(*entry, &s);
      if (entry->time_created_ns &&
          (!s.time_created_ns || *entry->time_created_ns < *s.time_created_ns)) {
        s.time_created_ns = entry->time_created_ns;
      }
    }
  }
  return s;
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
  for (int64_t r : g.members) {
    const auto e = g.entries_of.find(r);
    const auto d = g.dump_of.find(r);
    if (e == g.entries_of.end() || d == g.dump_of.end()) continue;
    const Track t = TrackOf(*d->second, e->second, /*p2p=*/true);
    for (const FlightRecorderEntry* entry : e->second) {
      if (!entry->is_p2p || entry->state == "completed" || !entry->p2p_seq_id) continue;
      if (t.completed && *entry->p2p_seq_id <= *t.completed) continue;
      const P2pName name = ParseP2p(entry->profiling_name);
      if (!name.ok || name.peer < 0 || name.peer >= static_cast<int64_t>(g.members.size())) continue;
      const int64_t peer = g.members[static_cast<size_t>(name.peer)];
      const int64_t self_local = name.self;
      // The peer's matching op: the opposite direction between the same two ranks, not completed.
      std::string why;
      const auto pd = g.dump_of.find(peer);
      if (pd == g.dump_of.end()) {
        why = "left no dump";
      } else if (pd->second->entries.empty()) {
        why = "its dump is empty";
      } else {
        bool matched = false;
        const auto pe = g.entries_of.find(peer);
        // A peer whose buffer holds nothing of the group (rolled over) says nothing.
        if (pe == g.entries_of.end()) break;
        {
          for (const FlightRecorderEntry* other : pe->second) {
            const P2pName on = ParseP2p(other->profiling_name);
            if (other->is_p2p && on.ok && on.send != name.send && on.peer == self_local &&
                other->state != "completed") {
              matched = true;
              break;
            }
          }
        }
        if (matched) break;
        why = fmt::format("never posted the matching {}", name.send ? "recv" : "send");
      }
      s.unmatched_p2p.push_back(fmt::format("rank {} {} {} rank {}: rank {} {}", r,
                                            name.send ? "send" : "recv", name.send ? "->" : "<-",
                                            peer, peer, why));
      s.inside.push_back(r);
      s.missing.push_back(peer);
      if (pd != g.dump_of.end() && pd->second->entries.empty()) s.empty_dumps.push_back(peer);
      if (pd == g.dump_of.end()) s.no_dump.push_back(peer);
      if (s.op.empty()) {
        FillEntryFacts(*entry, &s);
        s.seq = entry->p2p_seq_id;
      }
      if (entry->time_created_ns &&
          (!s.time_created_ns || *entry->time_created_ns < *s.time_created_ns)) {
        s.time_created_ns = entry->time_created_ns;
      }
      break;  // a rank's first unmatched op
    }
  }
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
      GroupView& g = groups[e.pg_name];
      if (g.name.empty()) g.name = e.pg_name;
      g.entries_of[d->rank].push_back(&e);
      if (g.desc.empty()) g.desc = e.pg_desc;
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
    ev.last_line = fmt::format("{} {} seq {} {}", last.pg_desc.empty() ? last.pg_name : last.pg_desc,
                               last.profiling_name,
                               SeqOf(last, last.is_p2p) ? std::to_string(*SeqOf(last, last.is_p2p))
                                                        : std::string("n/a"),
                               last.state);
    for (const FlightRecorderEntry& e : d->entries) {
      if (e.time_created_ns) ev.last_event_ns = std::max(ev.last_event_ns.value_or(0), *e.time_created_ns);
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

void AnalyzeLinks(const std::vector<model::FailureLog>& logs,
                  const std::map<IdentityKey, model::HcclIdentity>& identities,
                  const std::map<std::string, std::optional<int64_t>>& first_error_ns,
                  TriageReport* out) {
  std::map<int64_t, std::string> node_of_rank;
  for (const model::FailureLog& log : logs) {
    if (log.format != "plog" && log.format != "device log") continue;
    const LogNode n = NodeOfLog(log, identities);
    if (n.rank && node_of_rank.find(*n.rank) == node_of_rank.end() && log.format == "plog") {
      node_of_rank[*n.rank] = n.label;
    }
  }
  LinkAnalysis links;
  std::set<std::pair<std::string, std::string>> seen;
  bool notify = false, sdma = false, socket = false;
  auto add = [&](const std::string& from, std::optional<int64_t> to_rank,
                 std::optional<int64_t> rank_num, const std::string& why, const std::string& path,
                 int64_t line) {
    if (!to_rank) return;
    if (rank_num && *to_rank >= *rank_num) return;  // a rank outside the group: no peer
    const auto it = node_of_rank.find(*to_rank);
    const std::string to = it != node_of_rank.end()
                               ? it->second
                               : fmt::format("rank {} (no logs)", *to_rank);
    if (to == from || !seen.insert({from, to}).second) return;
    links.edges.push_back({from, to, why, path, line});
  };
  for (const model::FailureLog& log : logs) {
    if (log.format != "plog" && log.format != "device log") continue;
    const LogNode n = NodeOfLog(log, identities);
    for (const model::LinkRecord& r : log.links) {
      socket = true;
      add(n.label, r.dest_rank, n.rank_num,
          fmt::format("{} ({})", r.status.empty() ? "link error" : r.status, r.role), log.path,
          r.line);
    }
    for (const model::FailureEvent& e : log.events) {
      if (e.kind == FailureKind::kLinkError) continue;  // its row was added above
      if (!e.remote_rank) continue;
      std::string why = std::string(model::FailureKindName(e.kind));
      if (e.kind == FailureKind::kNotifyTimeout) notify = true;
      if (e.kind == FailureKind::kSdmaError) sdma = true;
      if (e.kind == FailureKind::kConnectTimeout) socket = true;
      add(n.label, e.remote_rank, n.rank_num, why, log.path, e.line);
    }
  }
  if (links.edges.empty()) return;
  std::map<std::string, std::vector<std::string>> next;
  std::map<std::string, int> incoming;
  std::set<std::string> nodes;
  for (const LinkEdge& e : links.edges) {
    next[e.from].push_back(e.to);
    ++incoming[e.to];
    nodes.insert(e.from);
    nodes.insert(e.to);
  }
  auto earlier = [&](const std::string& a, const std::string& b) {
    const auto ia = first_error_ns.find(a);
    const auto ib = first_error_ns.find(b);
    const int64_t none = std::numeric_limits<int64_t>::max();
    const int64_t ta = ia == first_error_ns.end() ? none : ia->second.value_or(none);
    const int64_t tb = ib == first_error_ns.end() ? none : ib->second.value_or(none);
    if (ta != tb) return ta < tb;
    return a < b;
  };
  std::vector<std::string> starts(nodes.begin(), nodes.end());
  std::sort(starts.begin(), starts.end(), earlier);
  // A cycle: walk from each node along its first edge.
  for (const std::string& start : starts) {
    std::vector<std::string> path{start};
    std::string at = start;
    while (next.count(at) != 0) {
      at = next[at].front();
      const auto loop = std::find(path.begin(), path.end(), at);
      if (loop != path.end()) {
        std::vector<std::string> cycle(loop, path.end());
        // Begin the cycle at its node with the earliest error.
        const auto first = std::min_element(cycle.begin(), cycle.end(), earlier);
        std::rotate(cycle.begin(), first, cycle.end());
        links.cycle = true;
        links.root_causes = cycle;
        cycle.push_back(cycle.front());
        links.chain = fmt::format("{}", fmt::join(cycle, " -> "));
        break;
      }
      path.push_back(at);
    }
    if (links.cycle) break;
  }
  if (!links.cycle) {
    // The longest chain from a node nobody waits for; its end is the root cause
    // (the last node with logs when the end left none).
    std::vector<std::string> best;
    for (const std::string& start : starts) {
      if (incoming[start] != 0) continue;
      std::vector<std::string> path{start};
      std::string at = start;
      while (next.count(at) != 0 && path.size() <= nodes.size()) {
        at = next[at].front();
        path.push_back(at);
      }
      if (path.size() > best.size()) best = path;
    }
    if (best.empty()) best.push_back(starts.front());
    links.chain = fmt::format("{}", fmt::join(best, " -> "));
    std::set<std::string> roots;
    for (const std::string& start : starts) {
      if (incoming[start] != 0) continue;
      std::string prev = start, at = start;
      size_t steps = 0;
      while (next.count(at) != 0 && steps++ <= nodes.size()) {
        prev = at;
        at = next[at].front();
      }
      roots.insert(at.find("(no logs)") != std::string::npos ? prev : at);
    }
    links.root_causes.assign(roots.begin(), roots.end());
  }
  if (notify) {
    links.fault = "notify-timeout";
  } else if (sdma) {
    links.fault = "sdma-error";
  } else if (socket) {
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
      return 3;
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

std::string RankList(const std::vector<int64_t>& ranks) {
  std::vector<int64_t> r = ranks;
  SortUnique(&r);
  std::string out;
  for (size_t i = 0; i < r.size();) {
    size_t j = i;
    while (j + 1 < r.size() && r[j + 1] == r[j] + 1) ++j;
    if (!out.empty()) out += ',';
    if (j - i >= 2) {
      out += fmt::format("{}-{}", r[i], r[j]);
    } else {
      out += std::to_string(r[i]);
      if (j == i + 1) out += fmt::format(",{}", r[j]);
    }
    i = j + 1;
  }
  return out;
}

TriageReport Triage(const model::TriageInputs& in) {
  TriageReport out;
  out.dumps = static_cast<int64_t>(in.dumps.size());
  out.logs = static_cast<int64_t>(in.logs.size());
  std::map<int64_t, TriageRankEvidence> evidence;

  // Flight recorder, one job at a time.
  const std::vector<JobDumps> jobs = SplitJobs(in.dumps);
  for (size_t j = 0; j < jobs.size(); ++j) {
    TriageJob tj;
    tj.label = fmt::format("job {}", j + 1);
    tj.ranks.assign(jobs[j].ranks.begin(), jobs[j].ranks.end());
    for (const FlightRecorderDump* d : jobs[j].dumps) tj.paths.push_back(d->path);
    tj.why = jobs[j].why;
    out.jobs.push_back(std::move(tj));
    // Evidence per rank is kept for the first job only (ranks repeat across jobs).
    std::map<int64_t, TriageRankEvidence> scratch;
    AnalyzeJob(jobs[j], j, &out, j == 0 ? &evidence : &scratch);
  }
  std::stable_sort(out.stuck.begin(), out.stuck.end(), EarlierCreated);

  // Logs: identities, errors per node, endings.
  std::map<IdentityKey, model::HcclIdentity> identities;
  for (const model::FailureLog& log : in.logs) {
    if (log.identity && log.pid) {
      model::HcclIdentity& id = identities[{log.worker, *log.pid}];
      const model::HcclIdentity& got = *log.identity;
      if (got.rank) id.rank = got.rank;
      if (got.rank_num) id.rank_num = got.rank_num;
      if (got.device) id.device = got.device;
      if (!got.device_ip.empty()) id.device_ip = got.device_ip;
      if (!got.server.empty()) id.server = got.server;
    }
  }
  std::map<std::string, TriageError> first_of_node;
  std::map<std::string, RankEnding> ending_of;
  std::map<std::string, int> ending_weight;
  std::vector<TriageError> file_order;  // errors without a clock, in file order
  bool any_clock = false;
  std::optional<StuckCollective> watchdog;
  std::set<int64_t> world;
  std::optional<int64_t> world_size;
  bool finished = false;
  bool time_limit = false, cancelled = false;
  for (const model::FailureLog& log : in.logs) {
    const LogNode node = NodeOfLog(log, identities);
    if (log.world_size) world_size = std::max(world_size.value_or(0), *log.world_size);
    finished = finished || log.finished;
    for (const auto& [rank, trail] : log.ranks) {
      world.insert(rank);
      TriageRankEvidence& ev = evidence[rank];
      ev.node = RankNode(rank);
      ev.rank = rank;
      if (!trail.last_text.empty()) {
        ev.last_line = trail.last_text;
        ev.path = fmt::format("{}:{}", log.path, trail.last_line);
      }
    }
    for (const model::FailureEvent& e : log.events) {
      const std::string label = EventNode(log, e, node);
      TriageError err;
      err.node = label;
      err.rank = e.rank ? e.rank : node.rank;
      if (log.format == "plog" || log.format == "device log") err.rank = node.rank;
      err.kind = e.kind;
      err.path = log.path;
      err.line = e.line;
      err.clock = e.clock;
      err.time_ns = e.time_ns;
      err.text = e.text;
      any_clock = any_clock || e.time_ns.has_value();
      if (e.kind == FailureKind::kTimeLimit) time_limit = true;
      if (e.kind == FailureKind::kCancelled) cancelled = true;
      const bool job_level = e.kind == FailureKind::kTimeLimit || e.kind == FailureKind::kCancelled;
      if (!job_level) {
        auto it = first_of_node.find(label);
        if (it == first_of_node.end()) {
          first_of_node.emplace(label, err);
        } else if (e.time_ns && (!it->second.time_ns || *e.time_ns < *it->second.time_ns)) {
          it->second = err;
        }
        file_order.push_back(err);
      }
      // How it ended.
      const int w = EndingWeight(e.kind);
      const std::string ending_node = job_level ? std::string("job") : label;
      if (w >= ending_weight[ending_node]) {
        ending_weight[ending_node] = w;
        RankEnding end;
        end.node = ending_node;
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
        ending_of[ending_node] = end;
      }
      if (e.kind == FailureKind::kWatchdogTimeout && e.rank) {
        if (!watchdog) {
          watchdog.emplace();
          watchdog->source = "watchdog";
          watchdog->pg_name = e.pg ? std::to_string(*e.pg) : std::string("n/a");
          watchdog->op = e.op;
          watchdog->seq = e.seq;
          watchdog->numel_in = e.numel_in;
          watchdog->numel_out = e.numel_out;
          watchdog->timeout_ms = e.timeout_ms;
        }
        if (watchdog->seq == e.seq && watchdog->op == e.op) watchdog->inside.push_back(*e.rank);
        TriageRankEvidence& ev = evidence[*e.rank];
        ev.node = RankNode(*e.rank);
        ev.rank = e.rank;
        ev.state = "timed-out";
        ev.last_completed = e.last_completed;
        ev.last_enqueued = e.last_enqueued;
      }
    }
  }
  // Per-node clocks for the timeline.
  for (auto& [rank, ev] : evidence) {
    const auto it = first_of_node.find(ev.node);
    if (it != first_of_node.end()) ev.first_error_ns = it->second.time_ns;
  }
  for (const auto& [label, err] : first_of_node) {
    if (evidence.size() > 0 && err.rank && evidence.count(*err.rank) != 0) continue;
    if (label.rfind("rank ", 0) == 0) continue;
    TriageRankEvidence ev;
    ev.node = label;
    ev.rank = err.rank;
    ev.state = std::string(model::FailureKindName(err.kind));
    ev.last_line = err.text;
    ev.path = fmt::format("{}:{}", err.path, err.line);
    ev.first_error_ns = err.time_ns;
    ev.last_event_ns = err.time_ns;
    out.ranks.push_back(std::move(ev));
  }

  // Errors by time: each node's first, the earliest first; without clocks, file order.
  for (const auto& [label, err] : first_of_node) out.errors.push_back(err);
  std::stable_sort(out.errors.begin(), out.errors.end(), [](const TriageError& a, const TriageError& b) {
    if (a.time_ns.has_value() != b.time_ns.has_value()) return a.time_ns.has_value();
    if (a.time_ns && *a.time_ns != *b.time_ns) return *a.time_ns < *b.time_ns;
    if (a.path != b.path) return a.path < b.path;
    return a.line < b.line;
  });
  if (!out.errors.empty()) {
    out.first_error = out.errors.front();
    out.first_error_clock = out.first_error->time_ns ? "the lines' clocks" : "file order (no clock)";
  }
  if (!any_clock && !file_order.empty()) {
    out.first_error = file_order.front();
    out.first_error_clock = "file order (no clock)";
  }

  // Links between devices.
  std::map<std::string, std::optional<int64_t>> first_ns;
  for (const auto& [label, err] : first_of_node) first_ns[label] = err.time_ns;
  AnalyzeLinks(in.logs, identities, first_ns, &out);

  // The watchdog's collective: the ranks of the job that did not report it.
  if (watchdog) {
    SortUnique(&watchdog->inside);
    const int64_t n = world_size.value_or(world.empty() ? 0 : *world.rbegin() + 1);
    for (int64_t r = 0; r < n; ++r) {
      watchdog->members.push_back(r);
      if (!std::binary_search(watchdog->inside.begin(), watchdog->inside.end(), r)) {
        watchdog->unknown.push_back(r);
      }
    }
    for (int64_t r : watchdog->unknown) {
      TriageRankEvidence& ev = evidence[r];
      ev.node = RankNode(r);
      ev.rank = r;
      if (ev.state.empty()) ev.state = "no-timeout-line";
    }
  }

  // Endings: flight-recorder evidence of ranks that stopped.
  for (const StuckCollective& s : out.stuck) {
    if (s.job != 0) continue;
    for (int64_t r : s.empty_dumps) {
      const std::string node = RankNode(r);
      if (ending_of.count(node) == 0) {
        ending_of[node] = RankEnding{node, r, "stopped-recording", "its dump holds no entry", "", 0};
      }
    }
    for (int64_t r : s.no_dump) {
      const std::string node = RankNode(r);
      if (ending_of.count(node) == 0) {
        ending_of[node] = RankEnding{node, r, "no-dump", "it left no flight-recorder dump", "", 0};
      }
    }
  }
  for (auto& [node, end] : ending_of) out.endings.push_back(end);

  // The verdict.
  std::vector<const StuckCollective*> named;
  std::set<int64_t> blamed;
  for (const StuckCollective& s : out.stuck) {
    if (s.job != 0) continue;
    std::vector<int64_t> culprits = s.missing;
    culprits.insert(culprits.end(), s.no_dump.begin(), s.no_dump.end());
    bool adds = named.empty();
    for (int64_t r : culprits) adds = adds || blamed.count(r) == 0;
    if (!adds) continue;
    if (!named.empty() && s.p2p) continue;  // a p2p wait behind a named collective
    named.push_back(&s);
    blamed.insert(culprits.begin(), culprits.end());
  }
  // Rank evidence from the verdict's group.
  if (!named.empty()) {
    const StuckCollective& s = *named.front();
    for (int64_t r : s.missing) {
      TriageRankEvidence& ev = evidence[r];
      ev.node = RankNode(r);
      ev.rank = r;
      ev.state = std::binary_search(s.empty_dumps.begin(), s.empty_dumps.end(), r) ? "empty-dump" : "missing";
    }
    for (int64_t r : s.inside) {
      TriageRankEvidence& ev = evidence[r];
      ev.node = RankNode(r);
      ev.rank = r;
      ev.state = "inside";
    }
    for (int64_t r : s.no_dump) {
      TriageRankEvidence& ev = evidence[r];
      ev.node = RankNode(r);
      ev.rank = r;
      ev.state = "no-dump";
    }
  }
  std::string first;
  if (out.first_error) {
    first = fmt::format("; first error: {} {} ({}:{}{})", out.first_error->node,
                        model::FailureKindName(out.first_error->kind), out.first_error->path,
                        out.first_error->line,
                        out.first_error->clock.empty() ? std::string()
                                                       : fmt::format(", {}", out.first_error->clock));
  }
  if (!named.empty()) {
    out.verdict_kind = "hang";
    std::vector<std::string> parts;
    for (const StuckCollective* s : named) {
      std::vector<int64_t> culprits = s->missing;
      culprits.insert(culprits.end(), s->no_dump.begin(), s->no_dump.end());
      for (int64_t r : culprits) out.culprits.push_back(RankNode(r));
      std::string part = Describe(*s);
      if (s->p2p) {
        part += fmt::format(": unmatched p2p, {}", s->unmatched_p2p.front());
      } else {
        part += fmt::format(": ranks {} never reached it ({} inside)", RankList(culprits),
                            s->inside.size());
      }
      parts.push_back(std::move(part));
    }
    out.verdict = named.size() == 1
                      ? fmt::format("hang in {}", parts.front())
                      : fmt::format("hang in {} process groups at once: {}", named.size(),
                                    fmt::join(parts, "; "));
    if (out.stuck.size() > named.size()) {
      out.verdict += fmt::format(" (the same ranks block {} more group(s))",
                                 out.stuck.size() - named.size());
    }
    if (out.jobs.size() > 1) {
      out.verdict += fmt::format(" [job 1 of {} found; the others triaged apart]", out.jobs.size());
    }
  } else if (out.links && !out.links->root_causes.empty()) {
    const LinkAnalysis& l = *out.links;
    const bool device = l.fault == "notify-timeout" || l.fault == "sdma-error";
    out.verdict_kind = device ? "device-error" : "link-failure";
    out.culprits = l.root_causes;
    out.verdict = fmt::format("{}: root cause {} ({}); {} {}", device ? "device error" : "link failure",
                              fmt::join(l.root_causes, " and "), l.fault,
                              l.cycle ? "cycle" : "chain", l.chain);
  } else if (watchdog) {
    out.verdict_kind = "hang";
    for (int64_t r : watchdog->inside) out.culprits.push_back(RankNode(r));
    std::string what = fmt::format("PG {} {} SeqNum {}", watchdog->pg_name,
                                   watchdog->op.empty() ? std::string("n/a") : watchdog->op,
                                   watchdog->seq ? std::to_string(*watchdog->seq) : std::string("n/a"));
    if (watchdog->numel_in) what += fmt::format(" (NumelIn {})", *watchdog->numel_in);
    out.verdict = fmt::format("hang in {}: timed out on ranks {} of {}", what,
                              RankList(watchdog->inside), watchdog->members.size());
    if (!watchdog->unknown.empty()) {
      out.verdict += fmt::format("; ranks {} left no timeout line", RankList(watchdog->unknown));
    }
  } else if (time_limit) {
    out.verdict_kind = "time-limit";
    out.verdict = "ended by the scheduler's time limit; no collective hung";
  } else if (cancelled) {
    out.verdict_kind = "cancelled";
    out.verdict = "cancelled by the scheduler; no collective hung";
  } else if (out.first_error) {
    out.verdict_kind = "crash";
    out.culprits.push_back(out.first_error->node);
    out.verdict = fmt::format("{} failed: {}", out.first_error->node,
                              model::FailureKindName(out.first_error->kind));
  } else if (out.dumps > 0 || out.logs > 0) {
    out.verdict_kind = "no-failure";
    out.verdict = finished ? "no failure: the run finished and no error line was found"
                           : "no failure found: no collective stuck and no error line";
  } else {
    out.verdict_kind = "unknown";
    out.verdict = "nothing readable";
  }
  if (out.verdict_kind != "no-failure" && out.verdict_kind != "unknown") out.verdict += first;
  if (watchdog) out.stuck.push_back(std::move(*watchdog));

  for (auto& [rank, ev] : evidence) out.ranks.push_back(std::move(ev));
  std::stable_sort(out.ranks.begin(), out.ranks.end(), [](const TriageRankEvidence& a, const TriageRankEvidence& b) {
    if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
    if (a.rank && *a.rank != *b.rank) return *a.rank < *b.rank;
    return a.node < b.node;
  });

  // What to do next.
  bool nccl = !in.dumps.empty() || !in.unread_pickles.empty();
  bool hccl = false;
  for (const model::FailureLog& log : in.logs) {
    if (log.format == "c10d log") nccl = true;
    if (log.format == "plog" || log.format == "device log") hccl = true;
  }
  if (!out.culprits.empty()) {
    out.next_steps.push_back(fmt::format("read the logs of {} first: the others only waited for them",
                                         fmt::join(out.culprits, ", ")));
  }
  if (nccl && in.dumps.empty()) {
    out.next_steps.push_back(
        "set TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 "
        "(TORCH_NCCL_DEBUG_INFO_TEMP_FILE=/shared/dir/nccl_trace_rank_) to get each rank's "
        "flight-recorder dump on the next hang");
  }
  if (!in.dumps.empty()) {
    bool started = false;
    for (const FlightRecorderDump& d : in.dumps) {
      for (const FlightRecorderEntry& e : d.entries) started = started || e.state == "started";
    }
    if (!started) {
      out.next_steps.push_back(
          "set TORCH_NCCL_ENABLE_TIMING=1 so dumps say which collectives had started on the "
          "device");
    }
  }
  if (hccl) {
    out.next_steps.push_back(
        "set ASCEND_GLOBAL_LOG_LEVEL=1 (INFO) and ASCEND_SLOG_PRINT_TO_STDOUT=0 for plog detail");
    if (out.links && (out.links->fault.find("socket") != std::string::npos)) {
      out.next_steps.push_back(
          "check the root devices' links (hccn_tool -i DEVICE -link -g, -net_health -g); raise "
          "HCCL_CONNECT_TIMEOUT only when peers start late");
    }
    if (out.links && out.links->fault == "notify-timeout") {
      out.next_steps.push_back(
          "HCCL_EXEC_TIMEOUT bounds a notify wait: read the root device's device log for the task "
          "that failed before raising it");
    }
  }
  if (time_limit) {
    out.next_steps.push_back("raise the job's time limit or save checkpoints more often");
  }
  if (!in.unread_pickles.empty()) {
    out.next_steps.push_back(fmt::format(
        "{} pickled flight-recorder dump(s) were not read in this build", in.unread_pickles.size()));
  }
  return out;
}

}  // namespace trainscope::analysis
