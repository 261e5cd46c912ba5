#include "analysis/health/flight_recorder.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace trainscope::analysis {
namespace {

struct Last {
  const model::FlightRecorderEntry* entry = nullptr;  // the highest seq id in the group
  const model::FlightRecorderDump* dump = nullptr;
};

// Whether |e| (with a seq id) is known not to have completed on its rank.
// Completed: its state says so, or its dump's pg_status (keyed by the
// entry's pg_id, on that rank) completed its seq id. Not completed: the
// pg_status's last completed id is lower, or the state is "started".
// Unknown otherwise: without TORCH_NCCL_ENABLE_TIMING torch leaves entries
// that did complete "scheduled" (the pickled dumps of nvidia-resiliency-ext
// show it), so "scheduled" alone is no evidence.
bool KnownNotCompleted(const model::FlightRecorderDump& d, const model::FlightRecorderEntry& e) {
  if (e.state == "completed") return false;
  if (e.pg_id) {
    const auto it = d.pg_status.find(std::to_string(*e.pg_id));
    if (it != d.pg_status.end() && it->second.last_completed) {
      return *e.collective_seq_id > *it->second.last_completed;
    }
  }
  return e.state == "started";
}

// One process group: the members, each dump's last collective in it.
CollectiveHang JudgeGroup(const std::string& pg,
                          const std::vector<model::FlightRecorderDump>& dumps,
                          const std::set<int64_t>& members, bool* hung) {
  std::map<int64_t, Last> last;
  for (const model::FlightRecorderDump& d : dumps) {
    Last& l = last[d.rank];
    for (const model::FlightRecorderEntry& e : d.entries) {
      // An entry without a sequence id cannot be matched across ranks.
      if (e.pg_name != pg || e.is_p2p || !e.collective_seq_id) continue;
      if (l.entry == nullptr || *e.collective_seq_id > *l.entry->collective_seq_id) {
        l.entry = &e;
        l.dump = &d;
      }
    }
  }
  CollectiveHang h;
  h.pg_name = pg;
  for (const auto& [rank, l] : last) {
    if (l.entry != nullptr && *l.entry->collective_seq_id > h.seq) {
      h.seq = *l.entry->collective_seq_id;
      h.op = *l.entry->profiling_name;
      h.pg_desc = *l.entry->pg_desc;
    }
  }
  bool incomplete = false;
  for (int64_t rank : members) {
    const auto it = last.find(rank);
    if (it == last.end()) {
      h.no_dump.push_back(rank);
      continue;
    }
    const model::FlightRecorderEntry* e = it->second.entry;
    if (e != nullptr && *e->collective_seq_id == h.seq) {
      h.arrived.push_back(rank);
      h.arrived_states.push_back(*e->state);
      incomplete = incomplete || KnownNotCompleted(*it->second.dump, *e);
    } else {
      MissingRank m;
      m.rank = rank;
      if (e != nullptr) {
        m.last_seq = e->collective_seq_id;
        m.last_op = *e->profiling_name;
        m.last_state = *e->state;
      }
      h.missing.push_back(std::move(m));
    }
  }
  *hung = h.seq > 0 && (!h.missing.empty() || incomplete);
  return h;
}

}  // namespace

FlightRecorderReport AnalyzeFlightRecorder(const std::vector<model::FlightRecorderDump>& dumps) {
  FlightRecorderReport r;
  r.dumps = static_cast<int64_t>(dumps.size());
  std::map<std::string, std::set<int64_t>> groups;
  for (const model::FlightRecorderDump& d : dumps) {
    r.ranks.push_back(d.rank);
    for (const auto& [pg, ranks] : d.pg_ranks) groups[pg].insert(ranks.begin(), ranks.end());
    for (const model::FlightRecorderEntry& e : d.entries) {
      if (!e.is_p2p) groups[*e.pg_name];  // a group without a config entry
    }
  }
  for (auto& [pg, members] : groups) {
    if (members.empty()) {
      for (const model::FlightRecorderDump& d : dumps) members.insert(d.rank);
    }
    bool hung = false;
    CollectiveHang h = JudgeGroup(pg, dumps, members, &hung);
    if (hung) r.hangs.push_back(std::move(h));
  }
  return r;
}

}  // namespace trainscope::analysis
