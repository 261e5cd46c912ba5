#include "formats/trace/trace_view_reader.h"

#include <fmt/format.h>

#include <vector>

#include "core/numbers.h"
#include "formats/trace/chrome_json.h"
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
// (they would add ~0.2 % to Communication). Those tasks become kOther.
bool IsComputeTaskType(std::string_view type) {
  return type == "AI_CORE" || type == "AI_VECTOR_CORE" || type == "MIX_AIV" ||
         type == "MIX_AIC" || type == "AI_CPU";
}

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
  int64_t offset;
};

class TraceViewSink : public trace::EventSink {
 public:
  TraceViewSink(model::RankProfile* profile, const std::string& label)
      : profile_(profile), ledger_(label) {}

  void OnEvent(const RawEvent& ev, size_t offset) override {
    ++index_;
    StringPool& pool = profile_->strings;
    if (ev.ph.size() != 1) return Skip(ev.ph.empty() ? "missing ph" : "unknown phase");
    char ph = ev.ph[0];
    if (ph == 'M') {
      int64_t pid = ThreadId(ev.pid);
      if (ev.name == "process_name") process_names_[pid] = pool.Intern(ev.arg_name);
      else if (ev.name == "thread_name") thread_names_[{pid, ThreadId(ev.tid)}] = pool.Intern(ev.arg_name);
      else if (ev.name == "process_labels") labels_[pid] = pool.Intern(ev.labels);
      ledger_.Use();
      return;
    }
    if (ph == 'C') return Skip("counter");
    if (ph != 'X' && ph != 's' && ph != 'f' && ph != 't') return Skip("unknown phase");
    std::optional<int64_t> ts = ParseMicrosToNanos(ev.ts);
    if (!ts) return Skip(ev.ts.empty() ? "missing ts" : "bad ts");
    Staged s{};
    s.ph = ph;
    s.pid = ThreadId(ev.pid);
    s.tid = ThreadId(ev.tid);
    s.ts_ns = *ts;
    if (!ev.dur.empty()) {
      std::optional<int64_t> d = ParseMicrosToNanos(ev.dur);
      if (d && *d >= 0) s.dur_ns = *d;
      else ledger_.Note("bad dur (0 used)", index_, std::string(ev.dur));
    }
    if (ph != 'X') {
      std::optional<int64_t> id = ParseIdToken(ev.id);
      if (!id) return Skip(ev.id.empty() ? "flow without id" : "id overflow");
      s.id = *id;
      s.has_id = true;
    }
    s.name = pool.Intern(ev.name);
    s.cat = pool.Intern(ev.cat);
    s.task_type = pool.Intern(ev.task_type);
    s.offset = static_cast<int64_t>(offset);
    staged_.push_back(s);
  }

  void Reset() override {
    staged_.clear();
    process_names_.clear();
    thread_names_.clear();
    labels_.clear();
    ledger_ = RowLedger(ledger_.file());
    index_ = 0;
  }

  void Route(trace::TimelineBuilder* builder) {
    StringPool& pool = profile_->strings;
    model::Timeline& tl = builder->timeline();
    tl.process_names = process_names_;
    tl.thread_names = thread_names_;
    StringId async_npu = pool.Intern("async_npu");
    StringId host_to_device = pool.Intern("HostToDevice");
    for (const Staged& s : staged_) {
      std::string_view process = ProcessName(s.pid);
      if (s.ph != 'X') {
        if (s.cat != async_npu && s.cat != host_to_device) {
          Skip("flow other than launch");
          continue;
        }
        builder->AddFlowPoint(s.ph == 's', s.id, s.cat, s.pid, s.tid, s.ts_ns);
        ledger_.Use();
        continue;
      }
      if (process == "Ascend Hardware") {
        model::DeviceActivity a = Activity(s);
        a.category = s.task_type;
        a.kind = IsComputeTaskType(pool.Get(s.task_type)) ? model::ActivityKind::kCompute
                                                          : model::ActivityKind::kOther;
        builder->AddActivity(s.pid, s.tid, a);
        ledger_.Use();
      } else if (process == "HCCL" || process == "Communication") {
        std::string_view thread = ThreadName(s.pid, s.tid);
        if (thread.find("Plane") != std::string_view::npos) {
          Skip("HCCL plane task");
          continue;
        }
        model::DeviceActivity a = Activity(s);
        a.category = pool.Intern("HCCL");
        a.kind = model::ActivityKind::kCommunication;
        builder->AddActivity(s.pid, s.tid, a);
        ledger_.Use();
      } else if (process == "Overlap Analysis") {
        std::string_view name = pool.Get(s.name);
        model::OverlapSegment seg;
        seg.start_ns = s.ts_ns;
        seg.duration_ns = s.dur_ns;
        if (name == "Computing") seg.kind = model::OverlapKind::kComputing;
        else if (name == "Communication") seg.kind = model::OverlapKind::kCommunication;
        else if (name == "Communication(Not Overlapped)") seg.kind = model::OverlapKind::kCommunicationNotOverlapped;
        else if (name == "Free") seg.kind = model::OverlapKind::kFree;
        else {
          Skip("unknown overlap segment");
          continue;
        }
        tl.overlap.push_back(seg);
        ledger_.Use();
      } else {
        model::HostOp op;  // Python, CANN, Python GC, ...
        op.pid = s.pid;
        op.tid = s.tid;
        op.start_ns = s.ts_ns;
        op.duration_ns = s.dur_ns;
        op.name = s.name;
        op.category = s.cat;
        builder->AddHostOp(op);
        ledger_.Use();
      }
    }
  }

  RowLedger& ledger() { return ledger_; }

 private:
  void Skip(const char* reason) { ledger_.Skip(reason, index_, std::string()); }

  int64_t ThreadId(std::string_view raw) {
    if (std::optional<int64_t> v = ParseIdToken(raw)) return *v;
    return model::SyntheticThreadId(profile_->strings.Intern(TrimField(raw)));
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

  model::DeviceActivity Activity(const Staged& s) const {
    model::DeviceActivity a;
    a.device = DeviceOf(s.pid);
    a.stream = static_cast<int32_t>(s.tid);
    a.start_ns = s.ts_ns;
    a.duration_ns = s.dur_ns;
    a.name = s.name;
    return a;
  }

  model::RankProfile* profile_;
  RowLedger ledger_;
  int64_t index_ = 0;
  std::vector<Staged> staged_;
  std::map<int64_t, StringId> process_names_;
  std::map<std::pair<int64_t, int64_t>, StringId> thread_names_;
  std::map<int64_t, StringId> labels_;
};

// |scan| runs the scan of the file or text into the sink.
template <typename ScanFn>
Status ReadWith(const std::string& label, model::RankProfile* profile, ScanFn&& scan) {
  TraceViewSink sink(profile, label);
  trace::ScanReport report;
  TS_RETURN_IF_ERROR(scan(&sink, &report));
  if (report.damaged) {
    profile->warnings.push_back(fmt::format(
        "{}: damaged trace at byte {} ({}); kept the {} events before it", label,
        report.damage_offset, report.damage_reason, report.events));
  }
  bool append_kernels = profile->kernels.size() == 0;
  trace::TimelineBuilder builder(profile);
  sink.Route(&builder);
  builder.timeline().format = "trace_view";
  builder.timeline().source = label;
  builder.Finish(append_kernels);
  profile->ledgers.push_back(std::move(sink.ledger()));
  return Status::Ok();
}

}  // namespace

Status ReadTraceView(const std::string& path, model::RankProfile* profile,
                       const trace::ScanOptions& options) {
  return ReadWith(path, profile, [&](trace::EventSink* sink, trace::ScanReport* report) {
    return trace::ScanJsonFile(path, sink, report, options);
  });
}

Status ParseTraceView(std::string_view json, const std::string& label, model::RankProfile* profile,
                       const trace::ScanOptions& options) {
  return ReadWith(label, profile, [&](trace::EventSink* sink, trace::ScanReport* report) {
    return trace::ScanJsonText(json, label, sink, report, options);
  });
}

}  // namespace trainscope::formats
