#include "report/timeline_payload.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "report/charts.h"
#include "report/json_writer.h"

namespace trainscope::report {
namespace {

using analysis::RankAnalysis;
using analysis::StepTimeline;
using analysis::TimelineKernel;
using analysis::TimelineTrack;

void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

uint64_t NonNegative(int64_t value) { return value > 0 ? static_cast<uint64_t>(value) : 0; }

// 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
uint64_t ZigZag(int64_t value) {
  return value >= 0 ? static_cast<uint64_t>(value) << 1
                    : (static_cast<uint64_t>(-(value + 1)) << 1) | 1;
}

// The page's one string table: each distinct string once.
class StringTable {
 public:
  uint32_t Of(const std::string& text) {
    auto [it, inserted] = index_.try_emplace(text, static_cast<uint32_t>(strings_.size()));
    if (inserted) strings_.push_back(text);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::string> strings_;
};

// The job finding of a fingerprint motif on |rank| (fingerprint findings
// carry the fingerprint's id), else -1.
int64_t FindingOf(const analysis::JobAnalysis& job, const analysis::Motif& motif, int32_t rank) {
  if (!motif.fingerprint) return -1;
  for (size_t f = 0; f < job.findings.size(); ++f) {
    const analysis::Finding& finding = job.findings[f];
    if (finding.id != *motif.fingerprint) continue;
    if (finding.ranks.empty() ||
        std::find(finding.ranks.begin(), finding.ranks.end(), rank) != finding.ranks.end())
      return static_cast<int64_t>(f);
  }
  return -1;
}

// Indices of the kernels of |track| the page keeps: all, or the |cap|
// longest (ties: the earliest), in start order.
std::vector<uint32_t> KeptKernels(const TimelineTrack& track, size_t cap) {
  std::vector<uint32_t> kept(track.kernels.size());
  std::iota(kept.begin(), kept.end(), 0U);
  if (kept.size() <= cap) return kept;
  const auto keep = static_cast<std::ptrdiff_t>(cap);
  std::nth_element(kept.begin(), kept.begin() + keep, kept.end(), [&](uint32_t a, uint32_t b) {
    const int64_t da = track.kernels[a].duration_ns;
    const int64_t db = track.kernels[b].duration_ns;
    return da != db ? da > db : a < b;
  });
  kept.resize(cap);
  std::sort(kept.begin(), kept.end());
  return kept;
}

bool HasTrack(const RankAnalysis& rank) {
  return rank.timeline.drawn && !rank.timeline.track.kernels.empty();
}

// The step of |rank| numbered |step|, else null.
const analysis::StepDistribution* PayloadStepOf(const RankAnalysis& rank, int32_t step) {
  for (const analysis::StepDistribution& s : rank.steps) {
    if (s.step == step) return &s;
  }
  return nullptr;
}

struct RankContext {
  const analysis::JobAnalysis& job;
  int64_t t0_ns;  // the earliest step start of the ranks shown
  // False when the ranks' step starts lie too far apart for one axis (clocks
  // of different hosts not synchronised): each rank is drawn from its own
  // step start and lateness is unknown (0).
  bool shared_axis;
  size_t per_rank_cap;
  StringTable& strings;
  std::unordered_map<std::string, std::string>& colors;  // family -> colour
  TimelinePayloadStats& stats;
};

void WriteRank(const RankAnalysis& rank, const StepTimeline& t, RankContext& c, JsonWriter& json) {
  const TimelineTrack& track = t.track;
  const std::vector<uint32_t> kept = KeptKernels(track, c.per_rank_cap);
  // The timeline's own string indices, mapped into the page's table once.
  std::vector<uint32_t> page_string(t.strings.size());
  for (size_t s = 0; s < t.strings.size(); ++s) page_string[s] = c.strings.Of(t.strings[s]);
  std::string bytes;
  bytes.reserve(kept.size() * 10);
  int64_t previous = 0;
  for (uint32_t k : kept) {
    const TimelineKernel& kernel = track.kernels[k];
    PutVarint(NonNegative(kernel.start_ns - previous), &bytes);
    previous = std::max(previous, kernel.start_ns);
    PutVarint(NonNegative(kernel.duration_ns), &bytes);
    PutVarint(static_cast<uint64_t>(kernel.lane), &bytes);
    PutVarint(page_string[kernel.op_type], &bytes);
    PutVarint(page_string[kernel.name], &bytes);
    PutVarint(page_string[kernel.family], &bytes);
    c.colors.try_emplace(t.strings[kernel.family], FamilyColor(t.strings[kernel.family]));
    const int32_t instance = k < track.instance.size() ? track.instance[k] : -1;
    PutVarint(static_cast<uint64_t>(static_cast<int64_t>(instance) + 1), &bytes);
  }
  // The launches of the kernels kept, by start: the first start zigzag
  // (a launch can precede the step), then start deltas, kernel index and
  // duration.
  std::vector<int64_t> page_index(track.kernels.size(), -1);
  for (size_t k = 0; k < kept.size(); ++k) page_index[kept[k]] = static_cast<int64_t>(k);
  std::string launch_bytes;
  int64_t launches = 0;
  int64_t previous_launch = 0;
  for (const analysis::TrackLaunch& launch : track.launches) {
    if (launch.kernel >= page_index.size() || page_index[launch.kernel] < 0) continue;
    PutVarint(
        launches == 0 ? ZigZag(launch.start_ns) : NonNegative(launch.start_ns - previous_launch),
        &launch_bytes);
    previous_launch = launch.start_ns;
    PutVarint(static_cast<uint64_t>(page_index[launch.kernel]), &launch_bytes);
    PutVarint(NonNegative(launch.duration_ns), &launch_bytes);
    ++launches;
  }
  const analysis::StepDistribution* step = PayloadStepOf(rank, t.step);
  const std::vector<analysis::Motif> no_motifs;
  const std::vector<analysis::Motif>& motifs = step != nullptr ? step->motifs : no_motifs;
  const int64_t late = c.shared_axis ? t.step_start_ns - c.t0_ns : 0;
  const std::vector<int32_t>& stragglers = c.job.cluster.straggler_ranks;
  json.BeginObject();
  json.Field("rank", static_cast<int64_t>(rank.header.rank));
  json.Field("offset", late);  // where the rank's step starts on the page's axis
  json.Field("span", t.span_ns);
  json.Field("wait", t.step_start_idle_ns);
  json.Field("wait_for", t.step_start_waits_for.empty()
                             ? int64_t{-1}
                             : static_cast<int64_t>(c.strings.Of(t.step_start_waits_for)));
  json.Field("late", late);
  // Stragglers are judged on the shown step only.
  json.Field("straggler", &t == &rank.timeline && std::find(stragglers.begin(), stragglers.end(),
                                                            rank.header.rank) != stragglers.end());
  json.Field("n", static_cast<int64_t>(kept.size()));
  const int64_t dropped = track.dropped + static_cast<int64_t>(track.kernels.size() - kept.size());
  json.Field("dropped", dropped);
  json.Field("kernels", Base64(bytes));
  json.Field("nl", launches);
  json.Field("launches", Base64(launch_bytes));
  json.Key("instances").BeginArray();  // motif, start, end; motifs past the list are skipped
  for (const analysis::TrackInstance& instance : track.instances) {
    const bool known = instance.motif >= 0 && static_cast<size_t>(instance.motif) < motifs.size();
    json.Int(known ? instance.motif : -1).Int(instance.start_ns).Int(instance.end_ns);
  }
  json.EndArray();
  json.Key("motifs").BeginArray();
  for (const analysis::Motif& motif : motifs) {
    json.BeginObject();
    json.Field("label", static_cast<int64_t>(c.strings.Of(MotifLabel(motif))));
    json.Field("finding", FindingOf(c.job, motif, rank.header.rank));
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  ++c.stats.ranks;
  c.stats.kernels += static_cast<int64_t>(kept.size());
  c.stats.dropped += dropped;
  c.stats.motif_instances += static_cast<int64_t>(track.instances.size());
  c.stats.launches += launches;
}

}  // namespace

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int shift : {18, 12, 6, 0}) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = byte(i) << 16;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = byte(i) << 16 | byte(i + 1) << 8;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

namespace {

// One step's ranks: the timeline of each rank that has a track of it.
struct PayloadStep {
  int32_t step = model::kNoStep;
  std::vector<std::pair<const RankAnalysis*, const StepTimeline*>> ranks;
  size_t kernels = 0;
};

// The cross-rank critical path of |step| (docs/clusters.md §3c), when it is
// the path's step: "critical_path": [[row, start, end, kind], ...] in time
// order, row the index into "ranks", times on the page's axis (from |t0|),
// kind 0 work, 1 transfer, 2 late start. The path is on aligned clocks; a
// host's applied offset is added back, since the kernels are drawn as read.
void WriteCriticalPath(const analysis::JobAnalysis& job, const PayloadStep& step, int64_t t0,
                       JsonWriter& json) {
  const analysis::CriticalPath& path = job.cluster.critical_path;
  if (!path.computed || path.step != step.step) return;
  std::unordered_map<int32_t, int64_t> row_of;
  for (size_t i = 0; i < step.ranks.size(); ++i)
    row_of[step.ranks[i].first->header.rank] = static_cast<int64_t>(i);
  std::unordered_map<int32_t, int64_t> offset_of;
  for (const analysis::HostClock& host : job.cluster.clock.hosts) {
    if (!host.applied || !host.offset_ns) continue;
    for (int32_t rank : host.ranks) offset_of[rank] = *host.offset_ns;
  }
  json.Key("critical_path").BeginArray();
  for (const analysis::PathSegment& segment : path.segments) {
    const auto row = row_of.find(segment.rank);
    if (row == row_of.end()) continue;  // a rank the page does not draw
    const auto offset = offset_of.find(segment.rank);
    const int64_t shift = (offset == offset_of.end() ? 0 : offset->second) - t0;
    json.BeginArray()
        .Int(row->second)
        .Int(segment.start_ns + shift)
        .Int(segment.end_ns + shift)
        .Int(static_cast<int64_t>(segment.kind))
        .EndArray();
  }
  json.EndArray();
}

// Writes "step", "span", "shared_axis" and "ranks" of |step| into the open
// object of |json|.
void WritePayloadStep(const analysis::JobAnalysis& job, const PayloadStep& step,
                      size_t per_rank_cap, StringTable& strings,
                      std::unordered_map<std::string, std::string>& colors,
                      TimelinePayloadStats& stats, JsonWriter& json) {
  int64_t t0 = INT64_MAX;
  int64_t end = INT64_MIN;
  int64_t longest = 0;
  for (const auto& [rank, t] : step.ranks) {
    t0 = std::min(t0, t->step_start_ns);
    end = std::max(end, t->step_start_ns + t->span_ns);
    longest = std::max(longest, t->span_ns);
  }
  // Step starts spread over more than nine steps: not one clock.
  const bool shared_axis = end - t0 <= 10 * std::max<int64_t>(longest, 1);
  RankContext context{job, t0, shared_axis, per_rank_cap, strings, colors, stats};
  json.Field("step", static_cast<int64_t>(step.step));
  json.Field("span", shared_axis ? end - t0 : longest);
  json.Field("shared_axis", shared_axis);
  json.Key("ranks").BeginArray();
  for (const auto& [rank, t] : step.ranks) WriteRank(*rank, *t, context, json);
  json.EndArray();
  if (shared_axis) WriteCriticalPath(job, step, t0, json);
}

}  // namespace

std::string TimelinePayload(const analysis::JobAnalysis& job, size_t kernel_budget,
                            TimelinePayloadStats* stats) {
  TimelinePayloadStats local;
  TimelinePayloadStats& s = stats != nullptr ? *stats : local;
  s = {};
  PayloadStep shown;
  std::map<int32_t, PayloadStep> others;  // by step number
  std::set<int32_t> with_kernels;         // steps with device events on some rank
  for (const RankAnalysis& rank : job.ranks) {
    if (!rank.timeline.set_aside.empty()) s.set_aside_ranks.push_back(rank.header.rank);
    for (const analysis::StepDistribution& step : rank.steps) {
      if (step.kernels.count + step.kernels.memcpy_count + step.kernels.memset_count > 0)
        with_kernels.insert(step.step);
    }
    for (const StepTimeline& other : rank.other_tracks) {
      PayloadStep& step = others[other.step];
      step.step = other.step;
      step.ranks.emplace_back(&rank, &other);
      step.kernels += other.track.kernels.size();
    }
    if (!HasTrack(rank)) continue;
    shown.step = rank.timeline.step;
    shown.ranks.emplace_back(&rank, &rank.timeline);
    shown.kernels += rank.timeline.track.kernels.size();
  }
  if (shown.ranks.empty()) return {};
  others.erase(shown.step);
  const size_t per_rank_cap = shown.kernels <= kernel_budget
                                  ? SIZE_MAX
                                  : std::max<size_t>(1, kernel_budget / shown.ranks.size());
  // The other steps whole, nearest the shown step first (the earlier of two
  // as near), while the page's kernels stay within the budget.
  std::vector<const PayloadStep*> order;
  order.reserve(others.size());
  for (const auto& [number, step] : others) order.push_back(&step);
  std::stable_sort(order.begin(), order.end(), [&](const PayloadStep* a, const PayloadStep* b) {
    return std::abs(int64_t{a->step} - shown.step) < std::abs(int64_t{b->step} - shown.step);
  });
  size_t used = std::min(shown.kernels, kernel_budget);
  std::vector<const PayloadStep*> carried;
  for (const PayloadStep* step : order) {
    if (used + step->kernels <= kernel_budget) {
      carried.push_back(step);
      used += step->kernels;
    } else {
      s.steps_left_out.push_back(step->step);
    }
  }
  std::sort(carried.begin(), carried.end(),
            [](const PayloadStep* a, const PayloadStep* b) { return a->step < b->step; });
  std::sort(s.steps_left_out.begin(), s.steps_left_out.end());
  s.steps.push_back(shown.step);
  for (const PayloadStep* step : carried) s.steps.push_back(step->step);
  std::sort(s.steps.begin(), s.steps.end());
  for (int32_t step : with_kernels) {
    if (step != shown.step && others.count(step) == 0) s.steps_without_track.push_back(step);
  }
  StringTable strings;
  std::unordered_map<std::string, std::string> colors;
  JsonWriter json(/*pretty=*/false);
  json.BeginObject();
  json.Field("v", int64_t{2});
  WritePayloadStep(job, shown, per_rank_cap, strings, colors, s, json);
  json.Key("other_steps").BeginArray();
  for (const PayloadStep* step : carried) {
    TimelinePayloadStats other;
    json.BeginObject();
    WritePayloadStep(job, *step, SIZE_MAX, strings, colors, other, json);
    json.EndObject();
    s.other_step_kernels += other.kernels;
  }
  json.EndArray();
  json.Field("kernel_budget", static_cast<int64_t>(kernel_budget));
  json.Key("steps_left_out").BeginArray();
  for (int32_t step : s.steps_left_out) json.Int(step);
  json.EndArray();
  json.Key("steps_without_track").BeginArray();
  for (int32_t step : s.steps_without_track) json.Int(step);
  json.EndArray();
  json.Key("findings").BeginArray();
  for (const analysis::Finding& finding : job.findings) {
    json.BeginObject().Field("id", finding.id).Field("title", finding.title);
    json.Key("ranks").BeginArray();
    for (int32_t r : finding.ranks) json.Int(r);
    json.EndArray().EndObject();
  }
  json.EndArray();
  json.Key("family_colors").BeginArray();  // [string index, colour] pairs
  std::vector<std::pair<uint32_t, std::string>> sorted;
  sorted.reserve(colors.size());
  for (const auto& [family, color] : colors) sorted.emplace_back(strings.Of(family), color);
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [index, color] : sorted) json.BeginArray().Int(index).String(color).EndArray();
  json.EndArray();
  json.Key("strings").BeginArray();
  for (const std::string& text : strings.strings()) json.String(text);
  json.EndArray();
  json.EndObject();
  return json.str();
}

}  // namespace trainscope::report
