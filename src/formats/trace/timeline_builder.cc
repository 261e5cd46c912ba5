#include "formats/trace/timeline_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "core/numbers.h"
#include "core/parallel.h"
#include "core/sorted_runs.h"
#include "formats/trace/flat_index.h"
#include "model/kernel_names.h"
#include "model/timeline_classify.h"

namespace trainscope::formats::trace {

bool ParseIdTokenSlow(std::string_view raw, int64_t* id) {
  std::string_view s = TrimField(raw);
  if (s.empty()) return false;
  bool negative = s[0] == '-';
  if (negative) s.remove_prefix(1);
  if (s.empty() || s.size() > 20) return false;
  uint64_t value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;  // beyond 64 bits
    value = value * 10 + digit;
  }
  if (negative) {
    if (value > uint64_t{1} << 63) return false;
    *id = static_cast<int64_t>(~value + 1);
    return true;
  }
  *id = static_cast<int64_t>(value);  // ids above INT64_MAX keep their bits
  return true;
}

void TimelineBuilder::AddActivity(int64_t raw_pid, int64_t raw_tid,
                                  const model::DeviceEvent& activity) {
  activities_.Append(activity);
  activity_track_.push_back(tracks_.ThreadOf(raw_pid, raw_tid));
}

int32_t TimelineBuilder::AddCollective(const model::CollectiveArgs& args) {
  timeline_.collectives.push_back(args);
  return static_cast<int32_t>(timeline_.collectives.size() - 1);
}

void TimelineBuilder::AddFlowPoint(bool start, int64_t id, StringId category, int64_t pid,
                                   int64_t tid, int64_t ts_ns) {
  (start ? flow_starts_ : flow_ends_)
      .push_back(FlowPoint{id, ts_ns, tracks_.ThreadOf(pid, tid), category});
}

void TimelineBuilder::AddFwdBwdPoint(bool start, int64_t id, int64_t pid, int64_t tid,
                                     int64_t ts_ns) {
  (start ? fwd_starts_ : bwd_ends_)
      .push_back(FlowPoint{id, ts_ns, tracks_.ThreadOf(pid, tid), StringPool::kEmpty});
}

void TimelineBuilder::Reset() {
  timeline_ = model::Timeline{};
  activities_ = model::DeviceEventColumns{};
  tracks_ = model::ThreadTable{};
  activity_track_.clear();
  flow_starts_.clear();
  flow_ends_.clear();
  fwd_starts_.clear();
  bwd_ends_.clear();
  before_first_step_ = Outside{};
  after_last_step_ = Outside{};
  next_projection_ = 1.0 / 16;
}

void TimelineBuilder::ExpectTotal(double share) {
  if (share < next_projection_ || share <= 0 || share >= 1) return;
  // A sixteenth: enough events for a steady rate (traces interleave host
  // and device events throughout); half: a second look where they do not.
  next_projection_ = next_projection_ < 0.5 ? 0.5 : 2.0;
  // A list is given room for a quarter more rows than its straight
  // projection: the rate of a list drifts over a trace (warm-up steps, the
  // profiler's own events at its end; the x28 benchmark trace's device
  // events and flow ends run 7 % above their first sixteenth's rate).
  // Capacity is only address space until a row is written to it (large
  // blocks are mapped on their own and their pages faulted in by the first
  // write), so room left over costs nothing, while a projection short by one
  // row copies every row so far into a new block and pays the first touch of
  // their pages twice (with 5 %, 60 MB of the x28 trace's 430 MB were copied
  // at the half-way look). A list is moved only when it would outgrow its
  // room at 5 % over the straight projection.
  auto projected = [share](size_t count, double margin) {
    return static_cast<size_t>(static_cast<double>(count) / share * margin) + 1;
  };
  // A list: a vector, or a columnar table (all its columns at once).
  auto reserve = [&](auto* list) {
    if (list->size() == 0 || projected(list->size(), 1.05) <= list->capacity()) return;
    const size_t rows = projected(list->size(), 1.25);
    if constexpr (requires { list->Reserve(rows); }) {
      list->Reserve(rows);
    } else {
      list->reserve(rows);
    }
  };
  reserve(&timeline_.host_ops);
  reserve(&activities_);
  reserve(&activity_track_);
  for (std::vector<FlowPoint>* points : {&flow_starts_, &flow_ends_, &fwd_starts_, &bwd_ends_})
    reserve(points);
  reserve(&timeline_.memory);
}

namespace {

// The order of the host ops by (pid, tid, start, longer first): row k of the
// sorted table is row order[k].
std::vector<uint32_t> HostOpOrder(const model::HostOps& ops) {
  // Threads ranked by (pid, tid): the ops sort by their thread's rank.
  std::vector<uint32_t> by_thread(ops.threads.size());
  std::iota(by_thread.begin(), by_thread.end(), 0u);
  std::sort(by_thread.begin(), by_thread.end(), [&ops](uint32_t a, uint32_t b) {
    return std::pair(ops.threads[a].pid, ops.threads[a].tid) <
           std::pair(ops.threads[b].pid, ops.threads[b].tid);
  });
  std::vector<uint32_t> rank(by_thread.size());
  for (uint32_t r = 0; r < by_thread.size(); ++r) rank[by_thread[r]] = r;
  // The ops grouped by thread rank, each thread's in row order (a counting
  // sort), then each thread's put in time order, parents before children,
  // equal ops in row order: a stable sort, and a cheap one, since a thread's
  // ops come nearly in time order (sorted_runs.h).
  std::vector<size_t> thread_begin(rank.size() + 1, 0);
  for (size_t i = 0; i < ops.size(); ++i)
    ++thread_begin[rank[static_cast<size_t>(ops.thread[i])] + 1];
  for (size_t r = 0; r < rank.size(); ++r) thread_begin[r + 1] += thread_begin[r];
  std::vector<uint32_t> order(ops.size());
  {
    std::vector<size_t> next(thread_begin.begin(), thread_begin.end() - 1);
    for (size_t i = 0; i < ops.size(); ++i) {
      order[next[rank[static_cast<size_t>(ops.thread[i])]]++] = static_cast<uint32_t>(i);
    }
  }
  const auto earlier = [&ops](uint32_t a, uint32_t b) {
    if (ops.start_ns[a] != ops.start_ns[b]) return ops.start_ns[a] < ops.start_ns[b];
    return ops.duration_ns[a] > ops.duration_ns[b];  // parents before children
  };
  for (size_t r = 0; r < rank.size(); ++r) {
    StableSortNearlySorted(order.begin() + static_cast<std::ptrdiff_t>(thread_begin[r]),
                           order.begin() + static_cast<std::ptrdiff_t>(thread_begin[r + 1]),
                           earlier);
  }
  return order;
}

// Puts the host ops in |order| (HostOpOrder) and sets depth and parent.
void ApplyHostOpOrder(const std::vector<uint32_t>& order, model::HostOps* ops_in) {
  model::HostOps& ops = *ops_in;
  ops.Permute(order);

  // Strict time nesting per thread. An op that overlaps its predecessor
  // without fitting inside it ("event bleed") becomes its sibling.
  std::vector<int32_t> stack;
  for (size_t j = 0; j < ops.size(); ++j) {
    if (j == 0 || ops.thread[j] != ops.thread[j - 1]) stack.clear();
    while (!stack.empty()) {
      size_t top = static_cast<size_t>(stack.back());
      // |top| ended before |j| starts, or |j| bleeds past it: not its parent.
      const bool ended = ops.end_ns(top) <= ops.start_ns[j] && ops.duration_ns[top] > 0;
      if (!ended && ops.end_ns(j) <= ops.end_ns(top)) break;
      stack.pop_back();
    }
    ops.depth[j] = static_cast<int32_t>(stack.size());
    ops.parent[j] = stack.empty() ? model::kNoIndex : stack.back();
    stack.push_back(static_cast<int32_t>(j));
  }
}

}  // namespace

std::vector<uint32_t> SortAndNestHostOps(model::HostOps* ops) {
  std::vector<uint32_t> order = HostOpOrder(*ops);
  ApplyHostOpOrder(order, ops);
  return order;
}

void TimelineBuilder::SortActivities() {
  model::DeviceEventColumns& acts = activities_;
  std::vector<uint32_t> order(acts.size());
  std::iota(order.begin(), order.end(), 0u);
  StableSortNearlySorted(order.begin(), order.end(), [&acts](uint32_t a, uint32_t b) {
    return acts.start_ns[a] < acts.start_ns[b];
  });
  acts.Permute(order);
  model::columnar::PermuteSpare spare;
  model::columnar::Permute(&activity_track_, order, &spare);
}

std::vector<int32_t> TimelineBuilder::HostOpsAt(const std::vector<FlowPoint>& points) const {
  const model::HostOps& ops = timeline_.host_ops;
  std::vector<int32_t> result(points.size(), model::kNoIndex);
  // Points in host-op order, then one merge walk over the host ops (sorted
  // by pid, tid, start): sequential memory access instead of a binary search
  // over three columns per point. The points' tracks are ranked by (pid,
  // tid) first, as the host ops' threads sort.
  const std::vector<model::HostThread>& tracks = tracks_.threads;
  std::vector<uint32_t> by_track(tracks.size());
  std::iota(by_track.begin(), by_track.end(), 0u);
  std::sort(by_track.begin(), by_track.end(), [&tracks](uint32_t a, uint32_t b) {
    return std::pair(tracks[a].pid, tracks[a].tid) < std::pair(tracks[b].pid, tracks[b].tid);
  });
  std::vector<uint32_t> track_rank(tracks.size());
  for (uint32_t r = 0; r < by_track.size(); ++r) track_rank[by_track[r]] = r;
  std::vector<uint32_t> order(points.size());
  std::iota(order.begin(), order.end(), 0u);
  auto key = [&points, &track_rank](uint32_t k) {
    const FlowPoint& f = points[k];
    return std::pair(track_rank[static_cast<size_t>(f.thread)], f.ts_ns);
  };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  size_t next = 0;  // first op that starts after the current point
  for (uint32_t k : order) {
    const FlowPoint& f = points[k];
    const model::HostThread& track = tracks[static_cast<size_t>(f.thread)];
    while (next < ops.size() && std::tuple(ops.pid(next), ops.tid(next), ops.start_ns[next]) <=
                                    std::tuple(track.pid, track.tid, f.ts_ns)) {
      ++next;
    }
    // The last op of the thread starting at or before the flow (the deepest
    // one when several start together: longer ops sort first), then up its
    // parents to the first one still running at the flow's time.
    if (next == 0) continue;
    auto i = static_cast<int32_t>(next - 1);
    if (ops.pid(static_cast<size_t>(i)) != track.pid ||
        ops.tid(static_cast<size_t>(i)) != track.tid)
      continue;
    while (i != model::kNoIndex && ops.start_ns[i] != f.ts_ns && ops.end_ns(i) <= f.ts_ns)
      i = ops.parent[i];
    result[k] = i;
  }
  return result;
}

// Sized by the runtime calls that carry a correlation (a quarter of the
// host ops in a Kineto trace): a table 4x smaller stays in cache better.
void TimelineBuilder::LinkByCorrelation() {
  const model::HostOps& ops = timeline_.host_ops;
  model::DeviceEventColumns& acts = activities_;
  const auto with_correlation = static_cast<size_t>(std::count_if(
      ops.correlation.begin(), ops.correlation.end(), [](int64_t c) { return c != model::kNoId; }));
  IdIndex by_correlation(with_correlation);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.correlation[i] != model::kNoId) {
      by_correlation.Insert(ops.correlation[i], static_cast<int32_t>(i));
    }
  }
  for (size_t a = 0; a < acts.size(); ++a) {
    if (acts.correlation[a] == model::kNoId) continue;
    int32_t op = by_correlation.Find(acts.correlation[a]);
    if (op != IdIndex::kMissing) acts.launcher.Set(a, op);
  }
}

void TimelineBuilder::LinkLaunches(unsigned threads) {
  model::Timeline& tl = timeline_;
  model::DeviceEventColumns& acts = activities_;
  // Three independent pieces run side by side: the links by correlation
  // (they write only acts.launcher) and the two indexes of the flows (they
  // only read). Each index lives only while it is used: on a 6 M-event
  // trace they are tens of MB each, and the peak of the read is here; the
  // correlation index is gone before the flows are resolved.
  const bool flows = !flow_ends_.empty();
  std::optional<FlatIndex<TrackKey, TrackKeyHash>> by_track;
  std::optional<FlatIndex<FlowKey, FlowKeyHash>> starts;
  std::vector<int32_t> start_ops;
  ParallelFor(3, threads, [&](size_t piece) {
    if (piece == 0) {
      LinkByCorrelation();
    } else if (piece == 1 && flows) {
      by_track.emplace(acts.size());
      for (size_t a = 0; a < acts.size(); ++a) {
        by_track->Insert(TrackKey{acts.start_ns[a], activity_track_[a]}, static_cast<int32_t>(a));
      }
    } else if (piece == 2 && flows) {
      starts.emplace(flow_starts_.size());
      for (size_t k = 0; k < flow_starts_.size(); ++k) {
        starts->Insert(FlowKey{flow_starts_[k].id, flow_starts_[k].category},
                       static_cast<int32_t>(k));
      }
      start_ops = HostOpsAt(flow_starts_);
    }
  });
  if (!flows) return;
  std::vector<FlowPoint>().swap(flow_starts_);  // indexed: not needed any more
  // Where each flow end points: its start's host op and its own activity.
  // Read-only lookups, so blocks of ends resolve in parallel.
  struct Resolved {
    bool has_start = false;
    int32_t host_op = model::kNoIndex;
    int32_t activity = model::kNoIndex;
  };
  std::vector<Resolved> resolved(flow_ends_.size());
  constexpr size_t kBlock = 16384;
  ParallelFor((flow_ends_.size() + kBlock - 1) / kBlock, threads, [&](size_t block) {
    const size_t end_k = std::min(flow_ends_.size(), (block + 1) * kBlock);
    for (size_t k = block * kBlock; k < end_k; ++k) {
      const FlowPoint& end = flow_ends_[k];
      int32_t s = starts->Find(FlowKey{end.id, end.category});
      if (s == FlatIndex<FlowKey, FlowKeyHash>::kMissing) continue;
      Resolved& r = resolved[k];
      r.has_start = true;
      r.host_op = start_ops[static_cast<size_t>(s)];
      int32_t t = by_track->Find(TrackKey{end.ts_ns, end.thread});
      if (t != FlatIndex<TrackKey, TrackKeyHash>::kMissing) r.activity = t;
    }
  });
  // Framework-op flows (ac2g, torch_to_npu) first; CANN HostToDevice only
  // fills activities no framework op claimed.
  StringId host_to_device = profile_->strings.Find("HostToDevice");
  tl.flows.reserve(tl.flows.size() + flow_ends_.size());
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < flow_ends_.size(); ++k) {
      const FlowPoint& end = flow_ends_[k];
      if ((end.category == host_to_device) != (pass == 1) || !resolved[k].has_start) continue;
      model::Flow flow;
      flow.id = end.id;
      flow.category = end.category;
      flow.host_op = resolved[k].host_op;
      flow.activity = resolved[k].activity;
      if (flow.activity != model::kNoIndex && flow.host_op != model::kNoIndex &&
          acts.launcher[flow.activity] == model::kNoIndex) {
        acts.launcher.Set(static_cast<size_t>(flow.activity), flow.host_op);
      }
      tl.flows.push_back(flow);
    }
  }
}

void TimelineBuilder::LinkFwdBwd() {
  if (fwd_starts_.empty() || bwd_ends_.empty()) return;
  const std::vector<int32_t> forward = HostOpsAt(fwd_starts_);
  const std::vector<int32_t> backward = HostOpsAt(bwd_ends_);
  IdIndex start_of(fwd_starts_.size());
  for (size_t k = 0; k < fwd_starts_.size(); ++k)
    start_of.Insert(fwd_starts_[k].id, static_cast<int32_t>(k));
  for (size_t k = 0; k < bwd_ends_.size(); ++k) {
    const int32_t s = start_of.Find(bwd_ends_[k].id);
    if (s == IdIndex::kMissing) continue;
    const int32_t fwd = forward[static_cast<size_t>(s)];
    if (fwd == model::kNoIndex || backward[k] == model::kNoIndex) continue;
    timeline_.fwdbwd.push_back(model::FwdBwdLink{fwd, backward[k]});
  }
}

namespace {

// PyTorch's record_function around each DataLoader __next__ call
// ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", category
// user_annotation, or Operator in 2021 traces): short, once per iteration.
constexpr std::string_view kDataLoaderPrefix = "enumerate(DataLoader)";

bool IsDataLoaderAnnotation(std::string_view name) {
  return name.substr(0, kDataLoaderPrefix.size()) == kDataLoaderPrefix;
}

}  // namespace

void TimelineBuilder::StepsFromRepeatedAnnotation() {
  model::Timeline& tl = timeline_;
  const model::HostOps& ops = tl.host_ops;
  if (ops.size() == 0) return;
  const StringId user_annotation = profile_->strings.Find("user_annotation");
  int64_t first = INT64_MAX, last = INT64_MIN;
  std::unordered_map<StringId, std::vector<int32_t>> by_name;
  std::unordered_map<StringId, bool> data_loader;
  for (size_t i = 0; i < ops.size(); ++i) {
    first = std::min(first, ops.start_ns[i]);
    last = std::max(last, ops.end_ns(i));
    if (ops.depth[i] != 0 || ops.duration_ns[i] <= 0) continue;
    auto [known, inserted] = data_loader.try_emplace(ops.name[i], false);
    if (inserted) known->second = IsDataLoaderAnnotation(profile_->strings.Get(ops.name[i]));
    if (ops.category[i] == user_annotation || known->second) {
      by_name[ops.name[i]].push_back(static_cast<int32_t>(i));
    }
  }
  // The annotation that repeats without overlapping itself and covers the
  // most time; it must cover at least a third of the host activity, so a
  // small repeated region (an optimizer step, a logging call) is not taken
  // for the iteration. A DataLoader's __next__ is short by nature but marks
  // one iteration each: it is taken whatever time it covers.
  StringId best = StringPool::kEmpty;
  int64_t best_total = 0;
  std::vector<int32_t> best_ops;
  for (auto& [name, members] : by_name) {
    if (members.size() < 2) continue;
    std::sort(members.begin(), members.end(),
              [&ops](int32_t a, int32_t b) { return ops.start_ns[a] < ops.start_ns[b]; });
    int64_t total = 0;
    bool overlapping = false;
    for (size_t k = 0; k < members.size(); ++k) {
      total += ops.duration_ns[members[k]];
      if (k > 0 && ops.start_ns[members[k]] < ops.end_ns(members[k - 1])) overlapping = true;
    }
    if (overlapping || (total * 3 < last - first && !data_loader[name])) continue;
    if (total > best_total || (total == best_total && name < best)) {
      best = name;
      best_total = total;
      best_ops = members;
    }
  }
  if (best_ops.empty()) return;
  // An iteration runs from one occurrence to the next: the host work between
  // two occurrences (the step after a DataLoader's __next__, logging after a
  // train_step range) belongs to an iteration. The last occurrence has no
  // next one; its iteration runs to the later of its own end and the time
  // the longest earlier iteration would take, but not past the capture's
  // last device activity (nor before its own end): the loop's last
  // iteration is kept, while work after the loop (evaluation, a checkpoint)
  // is not folded into it and is counted as after the last iteration.
  int64_t device_end = INT64_MIN;
  for (size_t a = 0; a < activities_.size(); ++a)
    device_end = std::max(device_end, activities_.start_ns[a] + activities_.duration_ns[a]);
  int64_t longest = 0;
  for (size_t k = 0; k < best_ops.size(); ++k) {
    const int32_t op = best_ops[k];
    int64_t end = ops.end_ns(op);
    if (k + 1 < best_ops.size()) {
      end = ops.start_ns[best_ops[k + 1]];
      longest = std::max(longest, end - ops.start_ns[op]);
    } else {
      int64_t longest_end = ops.start_ns[op];
      AddSaturating(longest_end, longest);
      end = std::max(end, std::min(device_end, longest_end));
    }
    tl.steps.push_back(model::Step{static_cast<int32_t>(k), ops.start_ns[op], end, op});
  }
  tl.step_source = model::StepSource::kRepeatedAnnotation;
  tl.step_annotation = std::string(profile_->strings.Get(best));
}

void TimelineBuilder::BuildSteps() {
  model::Timeline& tl = timeline_;
  constexpr std::string_view kPrefix = "ProfilerStep#";
  for (size_t i = 0; i < tl.host_ops.size(); ++i) {
    std::string_view name = profile_->strings.Get(tl.host_ops.name[i]);
    if (name.substr(0, kPrefix.size()) != kPrefix) continue;
    std::optional<int64_t> number = ParseInt64(name.substr(kPrefix.size()));
    if (!number || *number < 0 || *number > INT32_MAX) continue;
    bool duplicate = false;
    for (model::Step& step : tl.steps) {
      if (step.number == *number) {
        duplicate = true;  // cpu_op and user_annotation copies: keep the wider window
        step.start_ns = std::min(step.start_ns, tl.host_ops.start_ns[i]);
        step.end_ns = std::max(step.end_ns, tl.host_ops.end_ns(i));
      }
    }
    if (duplicate) continue;
    tl.steps.push_back(model::Step{static_cast<int32_t>(*number), tl.host_ops.start_ns[i],
                                   tl.host_ops.end_ns(i), static_cast<int32_t>(i)});
  }
  std::sort(tl.steps.begin(), tl.steps.end(),
            [](const model::Step& a, const model::Step& b) { return a.start_ns < b.start_ns; });
  tl.step_source = model::StepSource::kProfilerStep;
  if (tl.steps.empty()) StepsFromRepeatedAnnotation();
  if (tl.steps.empty()) {
    tl.step_source = model::StepSource::kNone;
    return;
  }

  auto step_of = [&tl](int64_t ts) -> int32_t {
    auto it = std::upper_bound(tl.steps.begin(), tl.steps.end(), ts,
                               [](int64_t t, const model::Step& s) { return t < s.start_ns; });
    if (it == tl.steps.begin()) return -1;
    --it;
    return ts < it->end_ns ? it->number : -1;
  };
  model::DeviceEventColumns& acts = activities_;
  for (size_t a = 0; a < acts.size(); ++a) {
    int32_t step = model::kNoStep;
    if (acts.launcher[a] != model::kNoIndex) {
      step = step_of(tl.host_ops.start_ns[static_cast<size_t>(acts.launcher[a])]);
    }
    if (step == model::kNoStep) step = step_of(acts.start_ns[a]);
    acts.step[a] = step;
    if (step != model::kNoStep || tl.step_source != model::StepSource::kRepeatedAnnotation)
      continue;
    // Annotation windows are contiguous from the first occurrence to the end
    // of the last iteration: an event in none of them is before or after.
    const int64_t at = acts.launcher[a] != model::kNoIndex
                           ? tl.host_ops.start_ns[static_cast<size_t>(acts.launcher[a])]
                           : acts.start_ns[a];
    Outside& outside = at < tl.steps.front().start_ns ? before_first_step_ : after_last_step_;
    ++outside.count;
    AddSaturating(outside.duration_ns, acts.duration_ns[a]);
  }
}

std::string TimelineBuilder::StepsFrom(const std::string& windows_of) const {
  switch (timeline_.step_source) {
    case model::StepSource::kProfilerStep:
      return "ProfilerStep#N windows of " + windows_of;
    case model::StepSource::kNone:
      return "";
    case model::StepSource::kRepeatedAnnotation:
      break;
  }
  std::string text = "repeated top-level annotation '" + timeline_.step_annotation + "' of " +
                     windows_of +
                     " (no ProfilerStep#N; steps numbered from 0; an iteration runs from one "
                     "occurrence to the next)";
  auto say = [&text](const Outside& outside, std::string_view where) {
    if (outside.count == 0) return;
    text += fmt::format("; {} device event{} ({:.1f} µs) {}, in no step", outside.count,
                        outside.count == 1 ? "" : "s",
                        static_cast<double>(outside.duration_ns) / 1000.0, where);
  };
  say(before_first_step_, "before the first iteration");
  say(after_last_step_, "after the last iteration");
  return text;
}

void TimelineBuilder::DeliverDeviceEvents() {
  const std::string& source = timeline_.source;
  if (profile_->device_events.size() > 0) return JoinOntoProfileRows();
  if (timeline_.step_source != model::StepSource::kNone)
    profile_->steps_from = StepsFrom("the trace");
  // op_type by name id: a trace repeats a few thousand names millions of times.
  std::vector<StringId> op_type_of(profile_->strings.size(), StringPool::kNotInterned);
  std::vector<StringId> distinct_names;
  for (size_t a = 0; a < activities_.size(); ++a) {
    StringId& op_type = op_type_of[activities_.name[a]];
    if (op_type == StringPool::kNotInterned) {
      op_type =
          profile_->strings.Intern(model::KernelOpType(profile_->strings.Get(activities_.name[a])));
      distinct_names.push_back(activities_.name[a]);
    }
  }
  // Two different kernels never share an op type: where compaction gave two
  // names one op type, each of them gets the hash of its own name.
  std::unordered_map<StringId, size_t> names_per_type;
  for (const StringId name : distinct_names) ++names_per_type[op_type_of[name]];
  for (const StringId name : distinct_names) {
    StringId& op_type = op_type_of[name];
    if (names_per_type[op_type] < 2) continue;
    op_type = profile_->strings.Intern(
        model::WithNameHash(profile_->strings.Get(op_type), profile_->strings.Get(name)));
  }
  for (size_t a = 0; a < activities_.size(); ++a) {
    activities_.op_type[a] = op_type_of[activities_.name[a]];
    activities_.op_type_derived[a] = 1;
  }
  profile_->device_events = model::DeviceEvents(std::move(activities_));
  profile_->device_events_source = model::DeviceEventsSource::kTrace;
  profile_->device_events_from = source;
}

// The two files print the same task's start rounded differently (1 ns apart
// on the corpus's CANN 8 exports); 1 us is the resolution of the oldest
// exports, below any two tasks of one stream.
constexpr int64_t kJoinToleranceNs = 1000;

void TimelineBuilder::KeepTraceTimes() {
  model::DeviceTimesBeside& times = profile_->trace_times;
  const size_t n = activities_.size();
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return activities_.step[a] < activities_.step[b];
  });
  times = model::DeviceTimesBeside();
  times.from = timeline_.source;
  times.start_ns.reserve(n);
  times.duration_ns.reserve(n);
  times.kind.reserve(n);
  for (uint32_t i : order) {
    const int32_t step = activities_.step[i];
    if (times.steps.empty() || times.steps.back() != step) {
      times.steps.push_back(step);
      times.step_begin.push_back(static_cast<uint32_t>(times.start_ns.size()));
    }
    times.start_ns.push_back(activities_.start_ns[i]);
    times.duration_ns.push_back(activities_.duration_ns[i]);
    times.kind.push_back(activities_.kind[i]);
  }
  times.step_begin.push_back(static_cast<uint32_t>(times.start_ns.size()));
}

void TimelineBuilder::JoinOntoProfileRows() {
  KeepTraceTimes();
  model::DeviceEvents& rows = profile_->device_events;
  const bool rows_have_steps = !rows.Steps().empty();
  std::vector<int32_t> steps = rows.step;
  std::vector<int32_t> row_of(activities_.size(), model::kNoIndex);
  std::vector<bool> taken(rows.size(), false);
  int64_t unmatched = 0;
  for (size_t a = 0; a < activities_.size(); ++a) {
    const int64_t start = activities_.start_ns[a];
    auto first =
        std::lower_bound(rows.start_ns.begin(), rows.start_ns.end(), start - kJoinToleranceNs);
    int32_t best = model::kNoIndex;
    int64_t best_delta = INT64_MAX;
    for (auto i = static_cast<size_t>(first - rows.start_ns.begin());
         i < rows.size() && rows.start_ns[i] <= start + kJoinToleranceNs; ++i) {
      if (taken[i] || rows.name[i] != activities_.name[a]) continue;
      const int64_t delta = std::abs(rows.start_ns[i] - start);
      if (delta < best_delta) {
        best_delta = delta;
        best = static_cast<int32_t>(i);
      }
    }
    if (best == model::kNoIndex) {
      ++unmatched;
      continue;
    }
    const auto i = static_cast<size_t>(best);
    taken[i] = true;
    row_of[a] = best;
    rows.launcher.Set(i, activities_.launcher[a]);
    rows.correlation.Set(i, activities_.correlation[a]);
    rows.external_id.Set(i, activities_.external_id[a]);
    rows.collective.Set(i, activities_.collective[a]);
    rows.device[i] = activities_.device[a];
    if (!rows_have_steps) steps[i] = activities_.step[a];
  }
  for (model::Flow& flow : timeline_.flows) {
    if (flow.activity != model::kNoIndex)
      flow.activity = row_of[static_cast<size_t>(flow.activity)];
  }
  if (!rows_have_steps && timeline_.step_source != model::StepSource::kNone) {
    rows.AssignSteps(std::move(steps));
    profile_->steps_from =
        StepsFrom(timeline_.source + " (joined onto " + profile_->device_events_from + " rows)");
  }
  if (unmatched > 0) {
    profile_->warnings.push_back(fmt::format(
        "{}: {} of {} device tasks have no row with the same name and start (within {} ns) in "
        "{}; they are left out of the kernel tables, as {} is the profiler's list of device "
        "tasks (a step whose time budget follows the trace still counts them)",
        timeline_.source, unmatched, activities_.size(), kJoinToleranceNs,
        profile_->device_events_from, profile_->device_events_from));
  }
}

void TimelineBuilder::Finish(unsigned threads) {
  // The two tables are sorted side by side (they share no column), each
  // reordered in place through one spare block of its widest column: the
  // two at once hold 28 MB more on the x28 trace, below the peak of the
  // linking that follows. ParallelFor rethrows an exception of either here.
  ParallelFor(2, threads, [this](size_t table) {
    if (table == 0) {
      SortAndNestHostOps(&timeline_.host_ops);
    } else {
      SortActivities();
    }
  });
  LinkLaunches(threads);
  LinkFwdBwd();
  // Linked: the flow points go before the device events are delivered.
  for (std::vector<FlowPoint>* points : {&flow_starts_, &flow_ends_, &fwd_starts_, &bwd_ends_})
    std::vector<FlowPoint>().swap(*points);
  BuildSteps();
  DeliverDeviceEvents();
  activities_ = model::DeviceEventColumns{};
  activity_track_.clear();
  tracks_ = model::ThreadTable{};
  timeline_.present = true;
  profile_->timeline = std::move(timeline_);
  timeline_ = model::Timeline{};
  before_first_step_ = Outside{};
  after_last_step_ = Outside{};
}

}  // namespace trainscope::formats::trace
