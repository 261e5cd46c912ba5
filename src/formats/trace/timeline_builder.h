// TimelineBuilder: collects events from a trace reader and finishes the
// model::Timeline (sorting, call-stack depth, launch links, steps) and the
// rank's device events. Shared by the Kineto and trace_view readers.
//
// The trace's device activities become the rank's DeviceEvents table. When
// the rank already has rows (Ascend kernel_details.csv, the profiler's own
// kernel list, read first), the trace adds no second view: each activity is
// joined onto the row with its name and start (launcher, correlation,
// collective, device), and activities with no row are counted in a warning.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/rank_profile.h"
#include "model/timeline.h"

namespace trainscope::formats::trace {

// Parses a raw token (quoted or not) as int64; uint64 ids above INT64_MAX are
// kept as their two's-complement bits (Ascend flow ids). nullopt = absent or
// not an integer (overflow beyond 64 bits included). The general path
// returns a flag (an optional returned from a call goes through memory:
// core/numbers.h).
bool ParseIdTokenSlow(std::string_view raw, int64_t* id);
inline std::optional<int64_t> ParseIdToken(std::string_view raw) {
  // Inline fast path (several ids per event): a plain JSON integer of up to
  // 18 digits (cannot overflow), as raw tokens of numbers are; anything else
  // (quotes, spaces, signs, 19-20 digits) takes the general path.
  bool plain = !raw.empty() && raw.size() <= 18;
  uint64_t value = 0;
  for (size_t i = 0; plain && i < raw.size(); ++i) {
    const char c = raw[i];
    plain = c >= '0' && c <= '9';
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (plain) return static_cast<int64_t>(value);
  int64_t id = 0;
  if (!ParseIdTokenSlow(raw, &id)) return std::nullopt;
  return id;
}

// Sorts host ops by (pid, tid, start, longer first) and sets depth and
// parent by strict time nesting per thread (an op that overlaps its
// predecessor without fitting inside it becomes its sibling). Returns the
// permutation: row k of the result was row order[k] before.
std::vector<uint32_t> SortAndNestHostOps(model::HostOps* ops);

class TimelineBuilder {
 public:
  explicit TimelineBuilder(model::RankProfile* profile) : profile_(profile) {}

  StringPool& strings() { return profile_->strings; }
  model::Timeline& timeline() { return timeline_; }

  // (raw_pid, raw_tid) locate the event for flow ends ('f' events point at
  // the activity by its track and start).
  void AddActivity(int64_t raw_pid, int64_t raw_tid, const model::DeviceEvent& activity);
  int32_t AddCollective(const model::CollectiveArgs& args);
  void AddHostOp(const model::HostOp& op) { timeline_.host_ops.Append(op); }
  // |start| = 's' (at the host op), otherwise 'f'/'t' (at the device activity).
  void AddFlowPoint(bool start, int64_t id, StringId category, int64_t pid, int64_t tid,
                    int64_t ts_ns);
  // A fwdbwd flow point: 's' at the forward op, 'f' at the backward op.
  void AddFwdBwdPoint(bool start, int64_t id, int64_t pid, int64_t tid, int64_t ts_ns);

  // |share| (0 < share <= 1) of the input has been added: sizes the growing
  // lists (host ops, activities, flow points, memory samples) for the whole
  // input, projected from what they hold, at a sixteenth of the input and
  // again at half. Each is then allocated about once instead of regrown by
  // doubling, when the old and the new copy coexist, at the peak of a big
  // read and all host-op columns at the same row. A projection short of the
  // truth only means the usual regrowth later; one beyond it costs address
  // space, not memory: big blocks are mapped on their own (malloc_tuning)
  // and pages never written are never resident.
  void ExpectTotal(double share);

  // Drops everything (the scan restarts on its slow path).
  void Reset();

  // Sorts, links, assigns steps, delivers the device events (the table, or
  // the join onto the rows the profile has) and moves the timeline into the
  // profile, on up to |threads| threads.
  void Finish(unsigned threads = 1);

 private:
  // A flow's start or end; |thread| indexes tracks_ (24 bytes, where its
  // raw pid and tid made it 40: 1.8 M points in the x28 benchmark trace).
  struct FlowPoint {
    int64_t id;
    int64_t ts_ns;
    int32_t thread;
    StringId category;
  };
  // A device activity's (track, start), the key a flow end finds it by.
  struct TrackKey {
    int64_t ts;
    int32_t thread;
    bool operator==(const TrackKey& o) const { return ts == o.ts && thread == o.thread; }
  };
  // A flow's (id, category).
  struct FlowKey {
    int64_t id;
    StringId category;
    bool operator==(const FlowKey& o) const { return id == o.id && category == o.category; }
  };
  struct FlowKeyHash {
    size_t operator()(const FlowKey& k) const {
      uint64_t h = static_cast<uint64_t>(k.id) * 0x9E3779B97F4A7C15ULL;
      h ^= static_cast<uint64_t>(k.category) + 0x7F4A7C159E3779B9ULL + (h << 6) + (h >> 2);
      return static_cast<size_t>(h);
    }
  };
  struct TrackKeyHash {
    size_t operator()(const TrackKey& k) const {
      uint64_t h = static_cast<uint64_t>(k.ts) * 0x9E3779B97F4A7C15ULL;
      h ^= static_cast<uint64_t>(k.thread) + 0x7F4A7C159E3779B9ULL + (h << 6) + (h >> 2);
      return static_cast<size_t>(h);
    }
  };

  void SortActivities();
  void LinkByCorrelation();
  void LinkLaunches(unsigned threads);
  void BuildSteps();
  void StepsFromRepeatedAnnotation();
  // Where the step numbers come from, in words, with the device events that
  // fell in no iteration of a repeated annotation.
  std::string StepsFrom(const std::string& windows_of) const;
  void DeliverDeviceEvents();
  void JoinOntoProfileRows();
  // The trace's own device times, kept beside the joined rows
  // (RankProfile::trace_times).
  void KeepTraceTimes();
  // The host op each flow point sits on (kNoIndex when none).
  std::vector<int32_t> HostOpsAt(const std::vector<FlowPoint>& points) const;
  void LinkFwdBwd();

  model::RankProfile* profile_;
  model::Timeline timeline_;
  // The trace's device activities until Finish delivers them.
  model::DeviceEventColumns activities_;
  // The raw (pid, tid) tracks of activities and flow points: flow ends find
  // their activity by track index and time.
  model::ThreadTable tracks_;
  std::vector<int32_t> activity_track_;  // index into tracks_, row for row
  std::vector<FlowPoint> flow_starts_;
  std::vector<FlowPoint> flow_ends_;
  std::vector<FlowPoint> fwd_starts_;
  std::vector<FlowPoint> bwd_ends_;
  // Device events in no step of a repeated annotation: launched (or, without
  // a launcher, started) before its first occurrence or after its last
  // iteration.
  struct Outside {
    int64_t count = 0;
    int64_t duration_ns = 0;
  };
  Outside before_first_step_;
  Outside after_last_step_;
  double next_projection_ = 1.0 / 16;  // the share read at which ExpectTotal projects next
};

}  // namespace trainscope::formats::trace
