#include "export/trace_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/json_writer.h"

namespace trainscope::exports {
namespace {

using model::ActivityKind;

void AppendString(std::string* out, std::string_view text) { report::AppendJsonEscaped(out, text); }

void AppendNumber(std::string* out, double value) {
  if (std::isfinite(value))
    fmt::format_to(std::back_inserter(*out), "{}", value);
  else
    out->append("null");
}

// ,\n{"ph":"X","cat":CAT,"name":NAME,"pid":P,"tid":T,"ts":..,"dur":..
// -- the caller adds args and the closing brace.
void BeginSlice(std::string* out, std::string_view cat, std::string_view name, int64_t pid,
                int64_t tid, int64_t start_ns, int64_t duration_ns) {
  out->append(",\n{\"ph\":\"X\",\"cat\":");
  AppendString(out, cat);
  out->append(",\"name\":");
  AppendString(out, name);
  fmt::format_to(std::back_inserter(*out), ",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
  AppendMicros(out, start_ns);
  out->append(",\"dur\":");
  AppendMicros(out, duration_ns);
}

void Metadata(std::string* out, std::string_view what, int64_t pid, int64_t tid,
              std::string_view name) {
  fmt::format_to(std::back_inserter(*out),
                 ",\n{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},"
                 "\"args\":{{\"name\":",
                 what, pid, tid);
  AppendString(out, name);
  out->append("}}");
}

void SortIndex(std::string* out, std::string_view what, int64_t pid, int64_t tid, int64_t index) {
  fmt::format_to(
      std::back_inserter(*out),
      ",\n{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":"
      "{}}}}}",
      what, pid, tid, index);
}

// One track of slices, spread over lanes (threads) so that no two slices of
// a lane overlap: a slice goes to the first lane whose last slice has ended.
// A lane's thread is named when first used. Placing slices in start order
// keeps the lanes few; any order is correct.
class LaneTrack {
 public:
  LaneTrack(int64_t pid, int64_t base, std::string name, std::string* out)
      : pid_(pid), base_(base), name_(std::move(name)), out_(out) {}
  int64_t Place(int64_t start_ns, int64_t end_ns) {
    size_t lane = 0;
    while (lane < ends_.size() && ends_[lane] > start_ns) ++lane;
    if (lane == ends_.size()) {
      ends_.push_back(end_ns);
      const int64_t tid = Tid(lane);
      Metadata(out_, "thread_name", pid_, tid,
               lane == 0 ? name_ : fmt::format("{} ({})", name_, lane + 1));
      SortIndex(out_, "thread_sort_index", pid_, tid, tid);
      return tid;
    }
    ends_[lane] = std::max(ends_[lane], end_ns);
    return Tid(lane);
  }

 private:
  int64_t Tid(size_t lane) const { return base_ + kLaneStride * static_cast<int64_t>(lane); }
  int64_t pid_, base_;
  std::string name_;
  std::string* out_;
  std::vector<int64_t> ends_;  // by lane: the end of its last slice
};

const char* RoleOf(const std::array<int64_t, 4>& kinds) {
  static constexpr std::array<const char*, 4> kRole = {"compute", "communication", "memcpy",
                                                       "memset"};
  size_t best = 0;
  for (size_t k = 1; k < kinds.size(); ++k) {
    if (kinds[k] > kinds[best]) best = k;
  }
  return kRole[best];
}

const char* CategoryOf(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::kMemcpy:
      return "gpu_memcpy";
    case ActivityKind::kMemset:
      return "gpu_memset";
    case ActivityKind::kCompute:
    case ActivityKind::kCommunication:
      break;
  }
  return "kernel";
}

// The name a communication event's "Collective name" arg carries, which
// makes any reader take it for a collective: the trace's collective name,
// else the event's op type.
std::string_view CollectiveName(const model::RankProfile& profile, size_t row) {
  const model::DeviceEvents& events = profile.device_events;
  const int32_t c = events.collective[row];
  if (c >= 0 && static_cast<size_t>(c) < profile.timeline.collectives.size()) {
    const std::string_view name = profile.strings.Get(profile.timeline.collectives[c].name);
    if (!name.empty()) return name;
  }
  const std::string_view type = profile.strings.Get(events.op_type[row]);
  return type.empty() ? profile.strings.Get(events.name[row]) : type;
}

struct RankContext {
  const model::RankProfile& profile;
  const analysis::RankResult& result;
  const RankTracks& tracks;
  const analysis::FamilyRules& rules;
  int64_t pid;
};

// The motif of an instance, from the rank's result.
const analysis::Motif* MotifOf(const RankContext& c, const MotifInstance& instance) {
  for (const analysis::RankStepResult& step : c.result.steps) {
    if (step.distribution.step != instance.step) continue;
    const auto& motifs = step.distribution.motifs;
    if (instance.motif >= 0 && static_cast<size_t>(instance.motif) < motifs.size())
      return &motifs[static_cast<size_t>(instance.motif)];
  }
  return nullptr;
}

// The launcher a re-read links back: one whose correlation id the event
// carries (trace readers link a runtime call and its kernel by it).
int32_t RelinkedLauncher(const model::RankProfile& profile, size_t row) {
  const model::DeviceEvents& events = profile.device_events;
  const model::HostOps& ops = profile.timeline.host_ops;
  const int32_t l = events.launcher[row];
  if (l < 0 || static_cast<size_t>(l) >= ops.size()) return model::kNoIndex;
  const int64_t id = events.correlation[row];
  return id != model::kNoId && ops.correlation[static_cast<size_t>(l)] == id ? l : model::kNoIndex;
}

// Whether a reader that assigns each event the window holding its launch
// (else its start), as the Kineto reader does, gets the profile's steps back.
bool Reproduces(const model::RankProfile& profile, const std::vector<model::Step>& windows) {
  const model::DeviceEvents& events = profile.device_events;
  const model::HostOps& ops = profile.timeline.host_ops;
  for (size_t row = 0; row < events.size(); ++row) {
    const int32_t l = RelinkedLauncher(profile, row);
    int32_t step = model::kNoStep;
    auto step_of = [&](int64_t t) {
      auto it = std::upper_bound(windows.begin(), windows.end(), t,
                                 [](int64_t v, const model::Step& s) { return v < s.start_ns; });
      if (it == windows.begin()) return model::kNoStep;
      --it;
      return t < it->end_ns ? it->number : model::kNoStep;
    };
    if (l != model::kNoIndex) step = step_of(ops.start_ns[static_cast<size_t>(l)]);
    if (step == model::kNoStep) step = step_of(events.start_ns[row]);
    if (step != events.step[row]) return false;
  }
  return true;
}

// The step windows written as ProfilerStep#N: the trace's own (host)
// windows when they give every event its step back, else each step's device
// extent (one nanosecond past its last end, so a zero-length last event is
// inside).
std::vector<model::Step> StepWindows(const model::RankProfile& profile) {
  std::vector<model::Step> host = profile.timeline.steps;
  std::sort(host.begin(), host.end(),
            [](const model::Step& a, const model::Step& b) { return a.start_ns < b.start_ns; });
  if (!host.empty() && Reproduces(profile, host)) return host;
  std::vector<model::Step> device;
  for (const int32_t number : profile.device_events.Steps()) {
    const std::optional<model::StepExtent> extent = profile.device_events.ExtentOf(number);
    if (extent) device.push_back({number, extent->first_start_ns, extent->last_end_ns + 1});
  }
  return device;
}

void DeviceSlices(const RankContext& c, const std::vector<const analysis::Motif*>& motif_of,
                  std::string* out) {
  const model::DeviceEvents& events = c.profile.device_events;
  const StringPool& strings = c.profile.strings;
  const auto& families = c.rules.families();
  // Each stream a thread named for its most frequent kind.
  std::map<int32_t, std::array<int64_t, 4>> stream_kinds;
  for (size_t row = 0; row < events.size(); ++row)
    ++stream_kinds[events.stream[row]][static_cast<size_t>(events.kind[row])];
  std::map<int32_t, LaneTrack> streams;
  for (const auto& [stream, kinds] : stream_kinds) {
    streams.try_emplace(stream, c.pid, stream >= 0 ? stream : kNoStreamTid,
                        stream >= 0 ? fmt::format("stream {} ({})", stream, RoleOf(kinds))
                                    : fmt::format("stream n/a ({})", RoleOf(kinds)),
                        out);
  }
  for (size_t row = 0; row < events.size(); ++row) {
    const ActivityKind kind = events.kind[row];
    const int64_t tid =
        streams.at(events.stream[row]).Place(events.start_ns[row], events.end_ns(row));
    BeginSlice(out, CategoryOf(kind), strings.Get(events.name[row]), c.pid, tid,
               events.start_ns[row], events.duration_ns[row]);
    fmt::format_to(std::back_inserter(*out),
                   ",\"args\":{{\"device\":{},\"stream\":{},\"step\":", events.device[row],
                   events.stream[row]);
    if (events.step[row] == model::kNoStep)
      out->append("null");
    else
      fmt::format_to(std::back_inserter(*out), "{}", events.step[row]);
    fmt::format_to(std::back_inserter(*out),
                   ",\"kind\":\"{}\",\"op_type\":", model::ActivityKindName(kind));
    AppendString(out, strings.Get(events.op_type[row]));
    out->append(",\"family\":");
    AppendString(out, families[c.tracks.family[row]]);
    const int32_t instance = c.tracks.instance[row];
    if (instance >= 0) {
      const analysis::Motif* motif = motif_of[static_cast<size_t>(instance)];
      if (motif && motif->fingerprint) {
        out->append(",\"fingerprint\":");
        AppendString(out, MotifLabel(*motif));
      } else if (motif) {
        out->append(",\"motif\":");
        AppendString(out, MotifLabel(*motif));
      }
      fmt::format_to(std::back_inserter(*out), ",\"motif_instance\":{}",
                     c.tracks.instances[static_cast<size_t>(instance)].index);
    }
    if (RelinkedLauncher(c.profile, row) != model::kNoIndex)
      fmt::format_to(std::back_inserter(*out), ",\"correlation\":{}", events.correlation[row]);
    if (kind == ActivityKind::kCommunication) {
      out->append(",\"Collective name\":");
      AppendString(out, CollectiveName(c.profile, row));
    }
    out->append("}}");
  }
}

// The host ops that launched device work, on one thread per host thread.
void HostLaunches(const RankContext& c, std::string* out) {
  const model::DeviceEvents& events = c.profile.device_events;
  const model::HostOps& ops = c.profile.timeline.host_ops;
  std::set<int32_t> launchers;
  for (size_t row = 0; row < events.size(); ++row) {
    const int32_t l = events.launcher[row];
    if (l >= 0 && static_cast<size_t>(l) < ops.size()) launchers.insert(l);
  }
  std::map<std::pair<int64_t, int64_t>, int64_t> thread_tid;
  for (const int32_t l : launchers) {
    const auto key = std::make_pair(ops.pid(l), ops.tid(l));
    auto [it, fresh] =
        thread_tid.try_emplace(key, kHostTidBase + static_cast<int64_t>(thread_tid.size()));
    if (fresh) {
      Metadata(out, "thread_name", c.pid, it->second,
               fmt::format("host launch thread {}", ops.tid(l)));
      SortIndex(out, "thread_sort_index", c.pid, it->second, it->second);
    }
    BeginSlice(out, "cpu_op", c.profile.strings.Get(ops.name[l]), c.pid, it->second,
               ops.start_ns[l], ops.duration_ns[l]);
    if (ops.correlation[l] != model::kNoId)
      fmt::format_to(std::back_inserter(*out), ",\"args\":{{\"correlation\":{}}}",
                     ops.correlation[l]);
    out->append("}");
  }
}

void Steps(const RankContext& c, std::string* out) {
  std::map<int32_t, const analysis::StepDistribution*> by_number;
  for (const analysis::RankStepResult& step : c.result.steps)
    by_number[step.distribution.step] = &step.distribution;
  LaneTrack track(c.pid, kStepsTid, "trainscope: steps", out);
  for (const model::Step& window : StepWindows(c.profile)) {
    BeginSlice(out, "user_annotation", fmt::format("ProfilerStep#{}", window.number), c.pid,
               track.Place(window.start_ns, window.end_ns), window.start_ns,
               window.end_ns - window.start_ns);
    fmt::format_to(std::back_inserter(*out), ",\"args\":{{\"step\":{}", window.number);
    auto it = by_number.find(window.number);
    if (it != by_number.end()) {
      const analysis::StepDistribution& d = *it->second;
      fmt::format_to(std::back_inserter(*out), ",\"kernels\":{},\"kernel_time_ns\":{}",
                     d.kernels.count, d.kernels.total_time_ns);
      if (d.breakdown) {
        const analysis::TimeBudget& b = d.breakdown->budget;
        fmt::format_to(std::back_inserter(*out),
                       ",\"computation_ns\":{},\"communication_ns\":{},"
                       "\"exposed_communication_ns\":{},\"idle_ns\":{}",
                       b.computation_ns, b.communication_ns, b.exposed_communication_ns, b.idle_ns);
      }
    }
    out->append("}}");
  }
}

void Instances(const RankContext& c, const std::vector<const analysis::Motif*>& motif_of,
               std::string* out) {
  LaneTrack fingerprints(c.pid, kFingerprintsTid, "trainscope: fingerprint instances", out);
  LaneTrack mined(c.pid, kMotifsTid, "trainscope: motif instances", out);
  std::vector<size_t> order(c.tracks.instances.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return c.tracks.instances[a].start_ns < c.tracks.instances[b].start_ns;
  });
  for (const size_t i : order) {
    const MotifInstance& instance = c.tracks.instances[i];
    const analysis::Motif* motif = motif_of[i];
    if (!motif) continue;
    const bool fingerprint = motif->fingerprint.has_value();
    LaneTrack& track = fingerprint ? fingerprints : mined;
    BeginSlice(out, "trainscope", MotifLabel(*motif), c.pid,
               track.Place(instance.start_ns, instance.end_ns), instance.start_ns,
               instance.end_ns - instance.start_ns);
    fmt::format_to(std::back_inserter(*out),
                   ",\"args\":{{\"step\":{},\"stream\":{},\"instance\":{},\"of\":{},\"kernels\":{},"
                   "\"kernel_time_ns\":{}",
                   instance.step, instance.stream, instance.index, motif->occurrences,
                   instance.kernels, instance.kernel_ns);
    if (!motif->framework_op.empty()) {
      out->append(",\"framework_op\":");
      AppendString(out, motif->framework_op);
    }
    if (!motif->source.empty()) {
      out->append(",\"source\":");
      AppendString(out, motif->source);
    }
    out->append("}}");
  }
}

void Windows(const RankContext& c, std::string* out) {
  LaneTrack idle(c.pid, kIdleTid, "trainscope: device idle gaps", out);
  for (const TimeWindow& gap : c.tracks.idle_gaps) {
    BeginSlice(out, "trainscope", "device idle", c.pid, idle.Place(gap.start_ns, gap.end_ns),
               gap.start_ns, gap.end_ns - gap.start_ns);
    fmt::format_to(std::back_inserter(*out), ",\"args\":{{\"step\":{}}}}}", gap.step);
  }
  LaneTrack pseudo(c.pid, kPseudoOverlapTid, "trainscope: pseudo-overlap windows", out);
  for (const analysis::PseudoOverlapWindow& w : c.tracks.pseudo_overlap) {
    const analysis::CommInstance& op = c.tracks.comm.ops[w.op];
    BeginSlice(out, "trainscope", "pseudo-overlap", c.pid, pseudo.Place(w.start_ns, w.end_ns),
               w.start_ns, w.end_ns - w.start_ns);
    fmt::format_to(std::back_inserter(*out), ",\"args\":{{\"step\":{},\"collective\":", w.step);
    AppendString(out, op.key);
    out->append(",\"collective_start_ts\":");
    AppendMicros(out, op.start_ns);
    out->append("}}");
  }
}

}  // namespace

void AppendMicros(std::string* out, int64_t ns) {
  uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  fmt::format_to(std::back_inserter(*out), "{}{}.{:03}", ns < 0 ? "-" : "", magnitude / 1000,
                 magnitude % 1000);
}

std::string TraceRankPart(const model::RankProfile& profile, const analysis::RankResult& result,
                          const RankTracks& tracks, const analysis::FamilyRules& rules) {
  const RankContext c{profile, result, tracks, rules, result.header.rank};
  std::string out;
  out.reserve(profile.device_events.size() * 260 + 4096);
  Metadata(&out, "process_name", c.pid, 0, fmt::format("rank {}", c.pid));
  SortIndex(&out, "process_sort_index", c.pid, 0, c.pid);
  // Tracks that hold no slices of the rank (instants, the job's marker)
  // are named here; slice tracks name their lanes as they fill them.
  for (const auto& [tid, name] :
       {std::pair<int64_t, const char*>{kFindingsTid, "trainscope: findings"},
        {kSelectedTid, "trainscope: selected step"}}) {
    Metadata(&out, "thread_name", c.pid, tid, name);
    SortIndex(&out, "thread_sort_index", c.pid, tid, tid);
  }
  std::vector<const analysis::Motif*> motif_of;
  motif_of.reserve(tracks.instances.size());
  for (const MotifInstance& instance : tracks.instances) motif_of.push_back(MotifOf(c, instance));
  Steps(c, &out);
  DeviceSlices(c, motif_of, &out);
  HostLaunches(c, &out);
  Instances(c, motif_of, &out);
  Windows(c, &out);
  return out;
}

namespace {

// |own|: the rank's own values where the finding has them (a rank's
// instant carries its numbers, not the worst rank's); null: the finding's.
void FindingArgs(const analysis::Finding& f, const analysis::RankEvidence* own, std::string* out) {
  out->append(",\"args\":{\"id\":");
  AppendString(out, f.id);
  out->append(",\"title\":");
  AppendString(out, own ? own->title : f.title);
  out->append(",\"values_of\":");
  AppendString(out, own ? "rank" : "job");
  out->append(",\"estimated_gain_pct\":");
  if (own) {
    AppendNumber(out, own->gain_withheld ? std::nan("") : own->estimated_gain_pct);
  } else {
    AppendNumber(out, analysis::ExportedGainPct(f));
  }
  fmt::format_to(std::back_inserter(*out),
                 ",\"occurrences\":{},\"evidence\":", own ? own->occurrences : f.occurrences);
  AppendString(out, f.evidence);
  out->append(",\"evidence_values\":{");
  bool first = true;
  for (const auto& [key, value] : own ? own->evidence_values : f.evidence_values) {
    if (!first) out->push_back(',');
    first = false;
    AppendString(out, key);
    out->push_back(':');
    AppendNumber(out, value);
  }
  out->append("},\"ranks\":[");
  for (size_t k = 0; k < f.ranks.size(); ++k)
    fmt::format_to(std::back_inserter(*out), "{}{}", k ? "," : "", f.ranks[k]);
  out->append("]}}");
}

void Instant(std::string* out, const analysis::Finding& f, const analysis::RankEvidence* own,
             char scope, int64_t pid, int64_t tid, int64_t ts_ns) {
  fmt::format_to(std::back_inserter(*out),
                 ",\n{{\"ph\":\"i\",\"s\":\"{}\",\"cat\":\"trainscope\","
                 "\"name\":",
                 scope);
  AppendString(out, f.id);
  fmt::format_to(std::back_inserter(*out), ",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
  AppendMicros(out, ts_ns);
  FindingArgs(f, own, out);
}

}  // namespace

std::string TraceJobPart(const analysis::JobAnalysis& job) {
  std::string out;
  std::map<int32_t, int64_t> step_start;  // by rank: the selected step's first event
  for (const analysis::RankAnalysis& rank : job.ranks) {
    const int64_t pid = rank.header.rank;
    const analysis::StepTimeline& tl = rank.timeline;
    if (tl.span_ns <= 0 && rank.selected_step == model::kNoStep) continue;
    step_start[rank.header.rank] = tl.step_start_ns;
    BeginSlice(&out, "trainscope",
               rank.selected_step == model::kNoStep
                   ? std::string("analysed: the whole capture")
                   : fmt::format("selected step {}", rank.selected_step),
               pid, kSelectedTid, tl.step_start_ns, tl.span_ns);
    out.append(",\"args\":{\"reason\":");
    AppendString(&out, rank.selected_step_reason);
    out.append("}}");
  }
  int64_t job_start = INT64_MAX;
  for (const auto& [rank, start] : step_start) job_start = std::min(job_start, start);
  if (job_start == INT64_MAX) job_start = 0;
  for (const analysis::Finding& f : job.findings) {
    if (f.ranks.empty()) {
      Instant(&out, f, nullptr, 'g', kJobPid, 0, job_start);
      continue;
    }
    for (const int32_t rank : f.ranks) {
      auto it = step_start.find(rank);
      const auto own =
          std::find_if(f.per_rank.begin(), f.per_rank.end(),
                       [&](const analysis::RankEvidence& e) { return e.rank == rank; });
      Instant(&out, f, own == f.per_rank.end() ? nullptr : &*own, 'p', rank, kFindingsTid,
              it != step_start.end() ? it->second : job_start);
    }
  }
  return out;
}

std::string TraceOpening(const analysis::JobAnalysis& job, const std::string& tool_version) {
  std::string out = "{\"otherData\":{\"schema\":";
  AppendString(&out, kTraceSchema);
  out.append(",\"generator\":");
  AppendString(&out, "trainscope " + tool_version);
  out.append(",\"selected_steps\":{");
  bool first = true;
  for (const analysis::RankAnalysis& rank : job.ranks) {
    fmt::format_to(std::back_inserter(out), "{}\"{}\":", first ? "" : ",", rank.header.rank);
    first = false;
    if (rank.selected_step == model::kNoStep)
      out.append("null");
    else
      fmt::format_to(std::back_inserter(out), "{}", rank.selected_step);
  }
  out.append("}}");
  // One rank: the reader takes its number back from here.
  if (job.ranks.size() == 1)
    fmt::format_to(std::back_inserter(out), ",\n\"distributedInfo\":{{\"rank\":{}}}",
                   job.ranks.front().header.rank);
  out.append(",\n\"displayTimeUnit\":\"ns\",\n\"traceEvents\":[\n");
  fmt::format_to(
      std::back_inserter(out),
      "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":"
      "\"trainscope: job\"}}}}",
      kJobPid);
  return out;
}

std::string TraceClosing() { return "\n]}\n"; }

}  // namespace trainscope::exports
