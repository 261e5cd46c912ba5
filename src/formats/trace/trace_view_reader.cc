#include "formats/trace/trace_view_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/numbers.h"
#include "formats/trace/batch_ledger.h"
#include "formats/trace/chrome_json.h"
#include "formats/trace/event_times.h"
#include "formats/trace/local_strings.h"
#include "formats/trace/timeline_builder.h"

namespace trainscope::formats {
namespace {

using trace::ParseIdToken;
using trace::RawEvent;

// Ascend Hardware task types that are computation. CANN's Overlap Analysis
// "Computing" track is the union of exactly these tasks: on the ResNet
// level0/1/2 samples it reproduces Computing to 0.07 % while counting
// EVENT_*_SQE / PLACE_HOLDER / PCIE_DMA / SDMA tasks would inflate it, and
// HCCL's own Notify/Write Value/SDMA tasks stick out of the hcom op windows
// (they would add ~0.2 % to Communication). Those tasks are not device
// events: counted as skipped rows (kNonComputeDeviceTask).
//
// 2024 torch_npu exports type AI Vector tasks "Other" (Conv2D12, Add3, ...;
// ascend-formats.md, version drift): those are kernels too, except the
// runtime's and HCCL's own tasks, recognisable by their names, which later
// versions type explicitly. Whether the result matches CANN's accounting is
// checked per step against step_trace_time.csv (profiler_agreement.h).
bool IsRuntimeTaskName(std::string_view name) {
  constexpr std::string_view kPrefixes[] = {
      "Notify",   "Write Value", "Memcpy",       "Reduce_Inline", "RDMA",  "SDMA",
      "PCIE_DMA", "EVENT_",      "PLACE_HOLDER", "Event",         "Stream"};
  for (std::string_view p : kPrefixes) {
    if (name.substr(0, p.size()) == p) return true;
  }
  return false;
}

bool IsComputeTask(std::string_view type, std::string_view name) {
  if (type == "Other") return !IsRuntimeTaskName(name);
  return type == "AI_CORE" || type == "AI_VECTOR_CORE" || type == "MIX_AIV" || type == "MIX_AIC" ||
         type == "AI_CPU";
}

// HCCL op names: hcom_<opType>__<group>_<index>_<n> (ascend-formats.md).
bool IsHcomName(std::string_view name) { return name.substr(0, 5) == "hcom_"; }

// A 2024 export types HCCL's own device tasks "Other" too, on the streams
// HCCL runs its collectives on, under names the runtime prefixes above do
// not catch. Counted as kernels they turned a 2-rank job's 9.85 ms of
// Computing into 75.8 ms. They are recognised without their names: an
// "Other" task on a stream that runs no explicitly typed compute task and
// whose every "Other" task starts inside an hcom_* op's window (the
// collective's device time, from the HCCL / Communication lane) is one of
// the collective's sub-tasks. A compute stream always runs some kernel
// outside the collectives (the step's forward and backward), so it never
// qualifies. The collective itself is counted once, as its hcom op.
class HcclStreams {
 public:
  // |windows|: every hcom op's [start, end) on the device.
  void Build(std::vector<std::pair<int64_t, int64_t>> windows) {
    std::sort(windows.begin(), windows.end());
    for (const auto& [start, end] : windows) {
      if (!merged_.empty() && start <= merged_.back().second) {
        merged_.back().second = std::max(merged_.back().second, end);
      } else {
        merged_.emplace_back(start, end);
      }
    }
  }
  // One Ascend Hardware task that would be a kernel by its type.
  void See(int64_t pid, int64_t tid, bool typed_other, int64_t start_ns) {
    Stream& s = streams_[{pid, tid}];
    if (!typed_other) {
      s.typed_compute = true;
      return;
    }
    s.others += 1;
    if (Inside(start_ns)) s.others_inside += 1;
  }
  bool IsHccl(int64_t pid, int64_t tid) const {
    auto it = streams_.find({pid, tid});
    if (it == streams_.end()) return false;
    const Stream& s = it->second;
    return !s.typed_compute && s.others > 0 && s.others_inside == s.others;
  }

 private:
  struct Stream {
    bool typed_compute = false;
    int64_t others = 0;
    int64_t others_inside = 0;
  };
  bool Inside(int64_t t) const {
    auto it = std::upper_bound(
        merged_.begin(), merged_.end(), t,
        [](int64_t v, const std::pair<int64_t, int64_t>& w) { return v < w.first; });
    if (it == merged_.begin()) return false;
    --it;
    return t < it->second;
  }
  std::vector<std::pair<int64_t, int64_t>> merged_;
  std::map<std::pair<int64_t, int64_t>, Stream> streams_;
};

// Events are staged because process_name metadata may come after the events
// of the process; they are routed once the whole file is read.
struct Staged {
  char ph;
  int64_t pid;
  int64_t tid;
  int64_t ts_ns;
  int64_t dur_ns;
  int64_t id;
  bool has_id;
  StringId name;
  StringId cat;
  StringId task_type;
  StringId source;  // the user frames of its "Call stack" arg (HostOp::source)
  int64_t index;    // 1-based event index in the file (ledger samples)
  int32_t message;  // index into the HCCL op args (StagedMessage), -1: none
};

// An HCCL op-level event's "count", "data_type" and "rank_size" args: few
// events have them, so they live beside the staged events, not in each.
struct StagedMessage {
  int64_t count;
  int32_t rank_size;
  StringId data_type;
};

// A non-negative integer arg ("count": 4097000), -1 when absent or not one.
int64_t CountArg(std::string_view raw) {
  const std::optional<int64_t> v = ParseInt64(raw);
  return v && *v >= 0 ? *v : -1;
}

// One chunk's events, strings as LocalStrings ids until the commit.
struct TraceViewBatch : trace::EventBatch {
  enum class MetaKind : uint8_t { kProcessName, kThreadName, kProcessLabels };
  struct Meta {
    MetaKind kind;
    int64_t pid, tid;
    StringId value;
  };
  void Clear() {
    strings.Clear();
    ledger.Clear();
    staged.clear();
    messages.clear();
    meta.clear();
  }
  trace::LocalStrings strings;
  trace::BatchLedger ledger;
  std::vector<Staged> staged;  // index = index within the batch
  std::vector<StagedMessage> messages;
  std::vector<Meta> meta;
};

class TraceViewSink : public trace::EventSink {
 public:
  TraceViewSink(model::RankProfile* profile, const std::string& label)
      : profile_(profile), ledger_(label) {}

  std::unique_ptr<trace::EventBatch> NewBatch() const override {
    return std::make_unique<TraceViewBatch>();
  }

  // Every event counts as read here; metadata is used and bad events
  // skipped here, staged events are used or skipped when Route settles them.
  void Convert(const RawEvent& ev, size_t offset, trace::EventBatch* out) const override {
    auto& batch = *static_cast<TraceViewBatch*>(out);
    batch.ledger.CountEvent();
    const int64_t index = batch.ledger.events();
    if (ev.skip != RowIssue::kNone)
      return batch.ledger.Skip(ev.skip, index, offset, ev.skip_detail);
    if (ev.note != RowIssue::kNone)
      batch.ledger.Note(ev.note, index, offset ? fmt::format("byte {}", offset) : std::string());
    trace::LocalStrings& strings = batch.strings;
    if (ev.ph.size() != 1)
      return batch.ledger.Skip(ev.ph.empty() ? RowIssue::kMissingPhase : RowIssue::kUnknownPhase,
                               index, offset);
    char ph = ev.ph[0];
    if (ph == 'M') {
      using K = TraceViewBatch::MetaKind;
      int64_t pid = trace::LocalThreadId(ev.pid, &strings);
      if (ev.name == "process_name") {
        batch.meta.push_back({K::kProcessName, pid, 0, strings.Intern(ev.arg_name)});
      } else if (ev.name == "thread_name") {
        batch.meta.push_back({K::kThreadName, pid, trace::LocalThreadId(ev.tid, &strings),
                              strings.Intern(ev.arg_name)});
      } else if (ev.name == "process_labels") {
        batch.meta.push_back({K::kProcessLabels, pid, 0, strings.Intern(ev.labels)});
      }
      batch.ledger.Use();
      return;
    }
    if (ph == 'C') return batch.ledger.Skip(RowIssue::kCounter, index, offset);
    if (ph != 'X' && ph != 's' && ph != 'f' && ph != 't')
      return batch.ledger.Skip(RowIssue::kUnknownPhase, index, offset);
    int64_t ts = 0, dur = 0;
    if (RowIssue bad = trace::ReadEventTs(ev.ts, &ts); bad != RowIssue::kNone)
      return batch.ledger.Skip(bad, index, offset, ev.ts);
    switch (trace::ReadEventDur(ev.dur, &dur)) {
      case trace::DurStatus::kOk:
        break;
      case trace::DurStatus::kBad:
        batch.ledger.Note(RowIssue::kBadDur, index, ev.dur);
        break;
      case trace::DurStatus::kOutOfRange:
        return batch.ledger.Skip(RowIssue::kDurationOutOfRange, index, offset, ev.dur);
    }
    Staged s{};
    s.ph = ph;
    s.pid = trace::LocalThreadId(ev.pid, &strings);
    s.tid = trace::LocalThreadId(ev.tid, &strings);
    s.ts_ns = ts;
    s.dur_ns = dur;
    if (ph != 'X') {
      std::optional<int64_t> id = ParseIdToken(ev.id);
      if (!id)
        return batch.ledger.Skip(ev.id.empty() ? RowIssue::kFlowWithoutId : RowIssue::kIdOverflow,
                                 index, offset);
      s.id = *id;
      s.has_id = true;
    }
    s.name = strings.Intern(ev.name);
    s.cat = strings.Intern(ev.cat);
    s.task_type = strings.Intern(ev.task_type);
    s.source = strings.InternCopy(trace::UserFramesOf(ev.call_stack));
    s.index = index;
    s.message = -1;
    if (!ev.hccl_count.empty() || !ev.hccl_rank_size.empty()) {
      const int64_t rank_size = CountArg(ev.hccl_rank_size);
      s.message = static_cast<int32_t>(batch.messages.size());
      batch.messages.push_back(
          {CountArg(ev.hccl_count),
           rank_size > 0 && rank_size <= INT32_MAX ? static_cast<int32_t>(rank_size) : -1,
           strings.Intern(ev.hccl_data_type)});
    }
    batch.staged.push_back(s);
  }

  void Commit(trace::EventBatch* in) override {
    auto& batch = *static_cast<TraceViewBatch*>(in);
    const std::vector<StringId>& global = batch.strings.MapInto(&profile_->strings);
    for (Staged s : batch.staged) {
      s.pid = trace::GlobalThreadId(s.pid, global);
      s.tid = trace::GlobalThreadId(s.tid, global);
      s.name = global[s.name];
      s.cat = global[s.cat];
      s.task_type = global[s.task_type];
      s.source = global[s.source];
      s.index += events_;
      if (s.message >= 0) {
        StagedMessage m = batch.messages[static_cast<size_t>(s.message)];
        m.data_type = global[m.data_type];
        s.message = static_cast<int32_t>(messages_.size());
        messages_.push_back(m);
      }
      staged_.push_back(s);
    }
    using K = TraceViewBatch::MetaKind;
    for (const TraceViewBatch::Meta& m : batch.meta) {
      const int64_t pid = trace::GlobalThreadId(m.pid, global);
      switch (m.kind) {
        case K::kProcessName:
          process_names_[pid] = global[m.value];
          break;
        case K::kThreadName:
          thread_names_[{pid, trace::GlobalThreadId(m.tid, global)}] = global[m.value];
          break;
        case K::kProcessLabels:
          labels_[pid] = global[m.value];
          break;
      }
    }
    // The staged events are read but not settled yet (Route does that).
    batch.ledger.CommitTo(events_, &ledger_);
    events_ += batch.ledger.events();
    batch.Clear();
  }

  void Reset() override {
    staged_.clear();
    messages_.clear();
    process_names_.clear();
    thread_names_.clear();
    labels_.clear();
    ledger_ = RowLedger(ledger_.file());
    events_ = 0;
  }

  void Route(trace::TimelineBuilder* builder) {
    StringPool& pool = profile_->strings;
    model::Timeline& tl = builder->timeline();
    tl.process_names = process_names_;
    tl.thread_names = thread_names_;
    StringId async_npu = pool.Intern("async_npu");
    StringId host_to_device = pool.Intern("HostToDevice");
    const HcclStreams hccl_streams = FindHcclStreams();
    for (const Staged& s : staged_) {
      std::string_view process = ProcessName(s.pid);
      if (s.ph != 'X') {
        if (s.cat != async_npu && s.cat != host_to_device) {
          Skip(RowIssue::kFlowNotLaunch, s);
          continue;
        }
        builder->AddFlowPoint(s.ph == 's', s.id, s.cat, s.pid, s.tid, s.ts_ns);
        ledger_.Use();
        continue;
      }
      if (process == "Ascend Hardware") {
        if (!IsComputeTask(pool.Get(s.task_type), pool.Get(s.name))) {
          Skip(RowIssue::kNonComputeDeviceTask, s,
               fmt::format("{} ({})", pool.Get(s.name), pool.Get(s.task_type)));
          continue;
        }
        if (pool.Get(s.task_type) == "Other" &&
            (IsHcomName(pool.Get(s.name)) || hccl_streams.IsHccl(s.pid, s.tid))) {
          Skip(RowIssue::kHcclStreamTask, s,
               fmt::format("{} (Other, stream {})", pool.Get(s.name), s.tid));
          continue;
        }
        model::DeviceEvent a = Activity(s);
        a.accelerator = s.task_type;
        a.kind = model::ActivityKind::kCompute;
        builder->AddActivity(s.pid, s.tid, a);
        ledger_.Use();
      } else if (IsCommunicationProcess(s.pid)) {
        std::string_view thread = ThreadName(s.pid, s.tid);
        if (thread.find("Plane") != std::string_view::npos) {
          Skip(RowIssue::kHcclPlaneTask, s);
          continue;
        }
        model::DeviceEvent a = Activity(s);
        a.accelerator = pool.Intern("HCCL");
        a.kind = model::ActivityKind::kCommunication;
        builder->AddActivity(s.pid, s.tid, a);
        if (s.message >= 0) AddMessage(s);
        ledger_.Use();
      } else if (process == "Overlap Analysis") {
        std::string_view name = pool.Get(s.name);
        model::OverlapSegment seg;
        seg.start_ns = s.ts_ns;
        seg.duration_ns = s.dur_ns;
        if (name == "Computing")
          seg.kind = model::OverlapKind::kComputing;
        else if (name == "Communication")
          seg.kind = model::OverlapKind::kCommunication;
        else if (name == "Communication(Not Overlapped)")
          seg.kind = model::OverlapKind::kCommunicationNotOverlapped;
        else if (name == "Free")
          seg.kind = model::OverlapKind::kFree;
        else {
          Skip(RowIssue::kUnknownOverlapSegment, s);
          continue;
        }
        tl.overlap.push_back(seg);
        ledger_.Use();
      } else {
        model::HostOp op;  // Python, CANN, Python GC, ...
        op.thread = tl.host_ops.ThreadOf(s.pid, s.tid);
        op.start_ns = s.ts_ns;
        op.duration_ns = s.dur_ns;
        op.name = s.name;
        op.category = s.cat;
        op.source = s.source;
        builder->AddHostOp(op);
        ledger_.Use();
      }
    }
  }

  RowLedger& ledger() { return ledger_; }

 private:
  bool IsCommunicationProcess(int64_t pid) const {
    const std::string_view process = ProcessName(pid);
    return process == "HCCL" || process == "Communication";
  }

  // The hcom op windows and, per Ascend Hardware stream, its kernel-typed
  // tasks (HcclStreams).
  HcclStreams FindHcclStreams() const {
    const StringPool& pool = profile_->strings;
    HcclStreams streams;
    std::vector<std::pair<int64_t, int64_t>> windows;
    for (const Staged& s : staged_) {
      if (s.ph != 'X' || !IsCommunicationProcess(s.pid)) continue;
      if (ThreadName(s.pid, s.tid).find("Plane") != std::string_view::npos) continue;
      windows.emplace_back(s.ts_ns, s.ts_ns + s.dur_ns);
    }
    streams.Build(std::move(windows));
    for (const Staged& s : staged_) {
      if (s.ph != 'X' || ProcessName(s.pid) != "Ascend Hardware") continue;
      const std::string_view type = pool.Get(s.task_type);
      if (!IsComputeTask(type, pool.Get(s.name))) continue;
      streams.See(s.pid, s.tid, type == "Other", s.ts_ns);
    }
    return streams;
  }

  // The op's message as HCCL recorded it (the group's name is not in the
  // trace: communication.json's key carries its hash).
  void AddMessage(const Staged& s) {
    const StagedMessage& m = messages_[static_cast<size_t>(s.message)];
    model::CommOpMessage message;
    message.name = std::string(profile_->strings.Get(s.name));
    message.data_type = std::string(profile_->strings.Get(m.data_type));
    message.count = m.count;
    message.rank_size = m.rank_size;
    profile_->communication.messages.push_back(std::move(message));
  }

  void Skip(RowIssue reason, const Staged& s, std::string detail = std::string()) {
    ledger_.Skip(reason, s.index, std::move(detail));
  }

  std::string_view ProcessName(int64_t pid) const {
    auto it = process_names_.find(pid);
    return it == process_names_.end() ? std::string_view() : profile_->strings.Get(it->second);
  }
  std::string_view ThreadName(int64_t pid, int64_t tid) const {
    auto it = thread_names_.find({pid, tid});
    return it == thread_names_.end() ? std::string_view() : profile_->strings.Get(it->second);
  }

  // "NPU 4" -> 4; old "NPU" labels and unlabelled pids fall back to the low
  // five bits of the pid (JsonAssembler::GetFormatPid).
  int32_t DeviceOf(int64_t pid) const {
    auto it = labels_.find(pid);
    if (it != labels_.end()) {
      std::string_view label = profile_->strings.Get(it->second);
      if (label.size() > 4 && label.substr(0, 4) == "NPU ") {
        if (std::optional<int64_t> v = ParseInt64(label.substr(4))) return static_cast<int32_t>(*v);
      }
    }
    return static_cast<int32_t>(pid & 0x1F);
  }

  model::DeviceEvent Activity(const Staged& s) const {
    model::DeviceEvent a;
    a.device = DeviceOf(s.pid);
    a.stream = static_cast<int32_t>(s.tid);
    a.start_ns = s.ts_ns;
    a.duration_ns = s.dur_ns;
    a.name = s.name;
    return a;
  }

  model::RankProfile* profile_;
  RowLedger ledger_;
  int64_t events_ = 0;  // committed so far
  std::vector<Staged> staged_;
  std::vector<StagedMessage> messages_;
  std::map<int64_t, StringId> process_names_;
  std::map<std::pair<int64_t, int64_t>, StringId> thread_names_;
  std::map<int64_t, StringId> labels_;
};

// |scan| runs the scan of the file or text into the sink.
template <typename ScanFn>
Status ReadWith(const std::string& label, model::RankProfile* profile, unsigned threads,
                ScanFn&& scan) {
  TraceViewSink sink(profile, label);
  trace::ScanReport report;
  TS_RETURN_IF_ERROR(scan(&sink, &report));
  if (report.damaged) {
    profile->warnings.push_back(trace::DescribeDamage(label, report));
  }
  trace::TimelineBuilder builder(profile);
  sink.Route(&builder);
  builder.timeline().format = "trace_view";
  builder.timeline().source = label;
  builder.Finish(std::max(1u, threads));
  profile->ledgers.push_back(std::move(sink.ledger()));
  return Status::Ok();
}

}  // namespace

Status ReadTraceView(const std::string& path, model::RankProfile* profile,
                     const trace::ScanOptions& options) {
  return ReadWith(path, profile, options.threads,
                  [&](trace::EventSink* sink, trace::ScanReport* report) {
                    return trace::ScanJsonFile(path, sink, report, options);
                  });
}

Status ParseTraceView(std::string_view json, const std::string& label, model::RankProfile* profile,
                      const trace::ScanOptions& options) {
  return ReadWith(label, profile, options.threads,
                  [&](trace::EventSink* sink, trace::ScanReport* report) {
                    return trace::ScanJsonText(json, label, sink, report, options);
                  });
}

}  // namespace trainscope::formats
