#include "formats/trace/kineto_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <string>
#include <string_view>

#include "core/numbers.h"
#include "formats/trace/batch_ledger.h"
#include "formats/trace/chrome_json.h"
#include "formats/trace/event_times.h"
#include "formats/trace/local_strings.h"
#include "formats/trace/timeline_builder.h"
#include "model/timeline_classify.h"

namespace trainscope::formats {
namespace {

// A raw JSON array in one spelling whatever the trace's indentation: no
// whitespace outside strings, ", " between elements ("[[4096, 2048],
// [2048, 8192]]", as compact Kineto traces write it), so equal shapes
// intern to one string.
std::string CompactJson(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  bool in_string = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < raw.size())
        out += raw[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    out += c;
    if (c == '"') in_string = true;
    if (c == ',') out += ' ';
  }
  return out;
}

namespace od = simdjson::ondemand;
using trace::ParseIdToken;
using trace::RawEvent;

int64_t IdOr(std::string_view raw, int64_t fallback) {
  if (raw.empty()) return fallback;
  std::optional<int64_t> v = ParseIdToken(raw);
  return v ? *v : fallback;
}

// MTIA's on-device events (mtia_ccp_events) are its kernels: Kineto aliases
// MTIA_CCP_EVENTS to CONCURRENT_KERNEL, and HTA reads them as such.
bool IsDeviceCategory(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Kernel" ||
         cat == "Memcpy" || cat == "Memset" || cat == "mtia_ccp_events";
}

bool IsLaunchFlow(std::string_view cat) {
  return cat == "ac2g" || cat == "async" || cat == "async_cpu_to_gpu";
}

// One chunk's events as model records. Strings are LocalStrings ids and
// non-numeric pids/tids synthetic ids of local strings until the commit.
struct KinetoBatch : trace::EventBatch {
  struct Flow {
    bool start;
    bool fwdbwd;  // forward op -> backward op, else a launch flow
    int64_t id;
    StringId category;
    int64_t pid, tid, ts_ns;
  };
  struct Meta {
    bool thread;  // thread_name, else process_name
    int64_t pid, tid;
    StringId name;
  };

  void Clear() {
    strings.Clear();
    compacted.clear();
    kind_by_name.clear();
    ledger.Clear();
    host_ops.clear();
    host_op_pid.clear();
    host_op_tid.clear();
    activities.clear();
    activity_pid.clear();
    activity_tid.clear();
    collectives.clear();
    flows.clear();
    memory.clear();
    meta.clear();
  }

  trace::LocalStrings strings;
  // Texts the batch made (compacted "Input Dims"): |strings| holds views,
  // so they live here until the commit (a deque never moves its items).
  std::deque<std::string> compacted;
  // Classification of non-memory activities by local name id (-1 unknown):
  // a chunk repeats a few hundred kernel names thousands of times.
  std::vector<int8_t> kind_by_name;
  trace::BatchLedger ledger;
  std::vector<model::HostOp> host_ops;            // thread unset: see host_op_pid, host_op_tid
  std::vector<int64_t> host_op_pid, host_op_tid;  // batch-local thread ids, row for row
  std::vector<model::DeviceEvent> activities;     // collective = index into |collectives|
  std::vector<int64_t> activity_pid, activity_tid;
  std::vector<model::CollectiveArgs> collectives;
  std::vector<Flow> flows;
  std::vector<model::MemoryEvent> memory;
  std::vector<Meta> meta;
};

class KinetoSink : public trace::EventSink {
 public:
  KinetoSink(model::RankProfile* profile, const std::string& label,
             const std::vector<model::ClassRule>& rules)
      : profile_(profile), builder_(profile), ledger_(label), rules_(rules) {}

  std::unique_ptr<trace::EventBatch> NewBatch() const override {
    return std::make_unique<KinetoBatch>();
  }

  void Convert(const RawEvent& ev, size_t offset, trace::EventBatch* out) const override {
    auto& batch = *static_cast<KinetoBatch*>(out);
    batch.ledger.CountEvent();
    const int64_t index = batch.ledger.events();
    if (ev.skip != RowIssue::kNone)
      return batch.ledger.Skip(ev.skip, index, offset, ev.skip_detail);
    if (ev.note != RowIssue::kNone)
      batch.ledger.Note(ev.note, index, offset ? fmt::format("byte {}", offset) : std::string());
    if (ev.ph.size() != 1)
      return batch.ledger.Skip(ev.ph.empty() ? RowIssue::kMissingPhase : RowIssue::kUnknownPhase,
                               index, offset);
    switch (ev.ph[0]) {
      case 'X':
        return Complete(ev, index, offset, &batch);
      case 'i':
      case 'I':
        return Instant(ev, index, offset, &batch);
      case 's':
      case 'f':
      case 't':
        return FlowPoint(ev, index, offset, &batch);
      case 'M':
        return Metadata(ev, &batch);
      case 'C':
        return batch.ledger.Skip(RowIssue::kCounter, index, offset);
      default:
        return batch.ledger.Skip(RowIssue::kUnknownPhase, index, offset);
    }
  }

  void OnShareRead(double share) override { builder_.ExpectTotal(share); }

  void Commit(trace::EventBatch* in) override {
    auto& batch = *static_cast<KinetoBatch*>(in);
    const std::vector<StringId>& global = batch.strings.MapInto(&profile_->strings);
    model::Timeline& tl = builder_.timeline();
    for (size_t i = 0; i < batch.host_ops.size(); ++i) {
      model::HostOp op = batch.host_ops[i];
      op.thread = tl.host_ops.ThreadOf(trace::GlobalThreadId(batch.host_op_pid[i], global),
                                       trace::GlobalThreadId(batch.host_op_tid[i], global));
      op.name = global[op.name];
      op.category = global[op.category];
      op.source = global[op.source];
      op.input_dims = global[op.input_dims];
      op.input_types = global[op.input_types];
      builder_.AddHostOp(op);
    }
    const auto collective_base = static_cast<int32_t>(tl.collectives.size());
    for (model::CollectiveArgs c : batch.collectives) {
      c.name = global[c.name];
      c.dtype = global[c.dtype];
      c.pg_name = global[c.pg_name];
      c.pg_desc = global[c.pg_desc];
      c.pg_ranks = global[c.pg_ranks];
      builder_.AddCollective(c);
    }
    for (size_t i = 0; i < batch.activities.size(); ++i) {
      model::DeviceEvent a = batch.activities[i];
      a.name = global[a.name];
      a.accelerator = global[a.accelerator];
      if (a.collective != model::kNoIndex) a.collective += collective_base;
      builder_.AddActivity(trace::GlobalThreadId(batch.activity_pid[i], global),
                           trace::GlobalThreadId(batch.activity_tid[i], global), a);
    }
    for (const KinetoBatch::Flow& f : batch.flows) {
      const int64_t pid = trace::GlobalThreadId(f.pid, global),
                    tid = trace::GlobalThreadId(f.tid, global);
      if (f.fwdbwd)
        builder_.AddFwdBwdPoint(f.start, f.id, pid, tid, f.ts_ns);
      else
        builder_.AddFlowPoint(f.start, f.id, global[f.category], pid, tid, f.ts_ns);
    }
    tl.memory.insert(tl.memory.end(), batch.memory.begin(), batch.memory.end());
    for (const KinetoBatch::Meta& m : batch.meta) {
      const int64_t pid = trace::GlobalThreadId(m.pid, global);
      if (m.thread)
        tl.thread_names[{pid, trace::GlobalThreadId(m.tid, global)}] = global[m.name];
      else
        tl.process_names[pid] = global[m.name];
    }
    batch.ledger.CommitTo(events_, &ledger_);
    events_ += batch.ledger.events();
    batch.Clear();
  }

  void OnTopLevel(std::string_view key, od::value& value) override {
    if (key == "distributedInfo")
      ReadDistributed(value);
    else if (key == "deviceProperties")
      ReadDevices(value);
  }

  void OnTopLevelScalar(std::string_view key, std::string_view raw) override {
    if (key == "baseTimeNanoseconds") builder_.timeline().base_time_ns = IdOr(raw, 0);
    if (key == "roctracer_version" || key == "hip_runtime_version" || key == "hip_driver_version")
      builder_.timeline().gpu_runtime = "ROCm";
    if (key == "cupti_version" || key == "cuda_runtime_version" || key == "cuda_driver_version")
      builder_.timeline().gpu_runtime = "CUDA";
  }

  void Reset() override {
    builder_.Reset();
    ledger_ = RowLedger(ledger_.file());
    events_ = 0;
  }

  trace::TimelineBuilder& builder() { return builder_; }
  RowLedger& ledger() { return ledger_; }

 private:
  void Complete(const RawEvent& ev, int64_t index, size_t offset, KinetoBatch* batch) const {
    int64_t ts = 0, dur = 0;
    if (RowIssue bad = trace::ReadEventTs(ev.ts, &ts); bad != RowIssue::kNone)
      return batch->ledger.Skip(bad, index, offset, ev.ts);
    switch (trace::ReadEventDur(ev.dur, &dur)) {
      case trace::DurStatus::kOk:
        break;
      case trace::DurStatus::kBad:
        batch->ledger.Note(RowIssue::kBadDur, index, ev.dur);
        break;
      case trace::DurStatus::kOutOfRange:
        return batch->ledger.Skip(RowIssue::kDurationOutOfRange, index, offset, ev.dur);
    }
    if (IsDeviceCategory(ev.cat)) return Device(ev, index, ts, dur, batch);
    if (ev.cat == "gpu_user_annotation")
      return batch->ledger.Skip(RowIssue::kGpuUserAnnotation, index, offset);
    if (ev.cat == "cuda_sync") return batch->ledger.Skip(RowIssue::kCudaSync, index, offset);
    trace::LocalStrings& strings = batch->strings;
    model::HostOp op;
    op.start_ns = ts;
    op.duration_ns = dur;
    op.name = strings.Intern(ev.name);
    op.category = strings.Intern(ev.cat);
    op.external_id = IdOr(ev.external_id, model::kNoId);
    op.correlation = IdOr(ev.correlation, model::kNoId);
    if (!ev.call_stack.empty()) op.source = strings.InternCopy(trace::UserFramesOf(ev.call_stack));
    // Shapes only where a tensor has some: "[[], []]" (no tensor operands)
    // is no shape.
    if (ev.input_dims.size() > 2 &&
        ev.input_dims.find_first_of("0123456789") != std::string_view::npos) {
      op.input_dims = strings.Intern(batch->compacted.emplace_back(CompactJson(ev.input_dims)));
      op.input_types = strings.Intern(batch->compacted.emplace_back(CompactJson(ev.input_types)));
    }
    batch->host_ops.push_back(op);
    batch->host_op_pid.push_back(trace::LocalThreadId(ev.pid, &strings));
    batch->host_op_tid.push_back(trace::LocalThreadId(ev.tid, &strings));
    batch->ledger.Use();
  }

  void Device(const RawEvent& ev, int64_t index, int64_t ts, int64_t dur,
              KinetoBatch* batch) const {
    trace::LocalStrings& strings = batch->strings;
    model::DeviceEvent a;
    int64_t pid = trace::LocalThreadId(ev.pid, &strings);
    int64_t tid = trace::LocalThreadId(ev.tid, &strings);
    // Numeric pids/tids are the device/stream when args lack them.
    a.device = static_cast<int32_t>(IdOr(ev.device, model::IsSyntheticThreadId(pid) ? -1 : pid));
    a.stream = static_cast<int32_t>(IdOr(ev.stream, model::IsSyntheticThreadId(tid) ? -1 : tid));
    a.start_ns = ts;
    a.duration_ns = dur;
    a.name = strings.Intern(ev.name);
    a.accelerator = strings.Intern(ev.cat);
    a.correlation = IdOr(ev.correlation, model::kNoId);
    a.external_id = IdOr(ev.external_id, model::kNoId);
    if (!ev.correlation.empty() && a.correlation == model::kNoId) {
      batch->ledger.Note(RowIssue::kCorrelationOverflow, index, ev.correlation);
    }
    bool collective = !ev.coll_name.empty();
    if (collective) {
      model::CollectiveArgs c;
      c.name = strings.Intern(ev.coll_name);
      c.dtype = strings.Intern(ev.dtype);
      c.in_nelems = IdOr(ev.in_nelems, -1);
      c.out_nelems = IdOr(ev.out_nelems, -1);
      c.group_size = static_cast<int32_t>(IdOr(ev.group_size, -1));
      c.pg_name = strings.Intern(ev.pg_name);
      c.pg_desc = strings.Intern(ev.pg_desc);
      c.pg_ranks = strings.Intern(ev.pg_ranks);
      a.collective = static_cast<int32_t>(batch->collectives.size());
      batch->collectives.push_back(c);
      a.kind = model::ActivityKind::kCommunication;
    } else {
      a.kind = Classify(ev, a.name, batch);
    }
    batch->activities.push_back(a);
    batch->activity_pid.push_back(pid);
    batch->activity_tid.push_back(tid);
    batch->ledger.Use();
  }

  // ClassifyActivity without collective args, cached per name: memcpy /
  // memset categories decide alone, other activities by name only.
  model::ActivityKind Classify(const RawEvent& ev, uint32_t name, KinetoBatch* batch) const {
    model::ActivityKind kind = model::ClassifyActivity(std::string_view(), ev.cat, false, {});
    if (kind != model::ActivityKind::kCompute) return kind;
    if (batch->kind_by_name.size() <= name) batch->kind_by_name.resize(batch->strings.size(), -1);
    int8_t& cached = batch->kind_by_name[name];
    if (cached < 0)
      cached = static_cast<int8_t>(model::ClassifyActivity(ev.name, ev.cat, false, rules_));
    return static_cast<model::ActivityKind>(cached);
  }

  void Instant(const RawEvent& ev, int64_t index, size_t offset, KinetoBatch* batch) const {
    if (ev.name != "[memory]") return batch->ledger.Skip(RowIssue::kInstantEvent, index, offset);
    int64_t ts = 0;
    if (RowIssue bad = trace::ReadEventTs(ev.ts, &ts); bad != RowIssue::kNone)
      return batch->ledger.Skip(bad, index, offset, ev.ts);
    model::MemoryEvent m;
    m.ts_ns = ts;
    m.device_type = static_cast<int32_t>(IdOr(ev.device_type, -1));
    m.device_id = static_cast<int32_t>(IdOr(ev.device_id, -1));
    m.bytes = IdOr(ev.bytes, 0);
    m.total_allocated = IdOr(ev.total_allocated, 0);
    m.total_reserved = IdOr(ev.total_reserved, 0);
    batch->memory.push_back(m);
    batch->ledger.Use();
  }

  void FlowPoint(const RawEvent& ev, int64_t index, size_t offset, KinetoBatch* batch) const {
    const bool fwdbwd = ev.cat == "fwdbwd";
    if (!fwdbwd && !IsLaunchFlow(ev.cat))
      return batch->ledger.Skip(RowIssue::kFlowNotLaunchOrFwdBwd, index, offset);
    int64_t ts = 0;
    if (RowIssue bad = trace::ReadEventTs(ev.ts, &ts); bad != RowIssue::kNone)
      return batch->ledger.Skip(bad, index, offset, ev.ts);
    std::optional<int64_t> id = ParseIdToken(ev.id);
    if (!id)
      return batch->ledger.Skip(ev.id.empty() ? RowIssue::kFlowWithoutId : RowIssue::kIdOverflow,
                                index, offset);
    trace::LocalStrings& strings = batch->strings;
    batch->flows.push_back(KinetoBatch::Flow{ev.ph[0] == 's', fwdbwd, *id, strings.Intern(ev.cat),
                                             trace::LocalThreadId(ev.pid, &strings),
                                             trace::LocalThreadId(ev.tid, &strings), ts});
    batch->ledger.Use();
  }

  void Metadata(const RawEvent& ev, KinetoBatch* batch) const {
    batch->ledger.Use();  // sort indexes, labels: used, nothing to keep
    const bool process = ev.name == "process_name";
    if (!process && ev.name != "thread_name") return;
    trace::LocalStrings& strings = batch->strings;
    batch->meta.push_back(KinetoBatch::Meta{!process, trace::LocalThreadId(ev.pid, &strings),
                                            process ? 0 : trace::LocalThreadId(ev.tid, &strings),
                                            strings.Intern(ev.arg_name)});
  }

  void ReadDistributed(od::value& value) {
    model::DistributedInfo& info = builder_.timeline().distributed;
    od::object obj;
    if (value.get_object().get(obj)) return;
    for (auto fr : obj) {
      od::field f;
      if (std::move(fr).get(f)) return;
      std::string_view key;
      if (f.unescaped_key().get(key)) return;
      od::value v = f.value();
      int64_t n = 0;
      std::string_view s;
      if (key == "rank" && !v.get_int64().get(n))
        info.rank = static_cast<int32_t>(n);
      else if (key == "world_size" && !v.get_int64().get(n))
        info.world_size = static_cast<int32_t>(n);
      else if (key == "backend" && !v.get_string().get(s))
        info.backend = std::string(s);
      else if (key == "nccl_version" && !v.get_string().get(s))
        info.nccl_version = std::string(s);
      else if (key == "pg_config")
        ReadProcessGroups(v, &info);
    }
  }

  void ReadProcessGroups(od::value& value, model::DistributedInfo* info) {
    od::array arr;
    if (value.get_array().get(arr)) return;
    for (auto er : arr) {
      od::object obj;
      if (er.get_object().get(obj)) return;
      model::ProcessGroupConfig pg;
      for (auto fr : obj) {
        od::field f;
        if (std::move(fr).get(f)) return;
        std::string_view key;
        if (f.unescaped_key().get(key)) return;
        od::value v = f.value();
        std::string_view s;
        int64_t n = 0;
        if (key == "pg_name" && !v.get_string().get(s))
          pg.name = std::string(s);
        else if (key == "pg_desc" && !v.get_string().get(s))
          pg.desc = std::string(s);
        else if (key == "backend_config" && !v.get_string().get(s))
          pg.backend_config = std::string(s);
        else if (key == "pg_size" && !v.get_int64().get(n))
          pg.size = static_cast<int32_t>(n);
        else if (key == "ranks") {
          od::array ranks;
          if (v.get_array().get(ranks)) continue;
          for (auto rr : ranks) {
            if (!rr.get_int64().get(n)) pg.ranks.push_back(static_cast<int32_t>(n));
          }
        }
      }
      info->process_groups.push_back(std::move(pg));
    }
  }

  void ReadDevices(od::value& value) {
    od::array arr;
    if (value.get_array().get(arr)) return;
    for (auto er : arr) {
      od::object obj;
      if (er.get_object().get(obj)) return;
      model::DeviceProperties d;
      for (auto fr : obj) {
        od::field f;
        if (std::move(fr).get(f)) return;
        std::string_view key;
        if (f.unescaped_key().get(key)) return;
        od::value v = f.value();
        std::string_view s;
        int64_t n = 0;
        if (key == "id" && !v.get_int64().get(n))
          d.id = static_cast<int32_t>(n);
        else if (key == "name" && !v.get_string().get(s))
          d.name = std::string(s);
        else if (key == "totalGlobalMem" && !v.get_int64().get(n))
          d.total_global_mem = n;
        else if (key == "numSms" && !v.get_int64().get(n))
          d.num_sms = static_cast<int32_t>(n);
        else if (key == "computeMajor" && !v.get_int64().get(n))
          d.compute_major = static_cast<int32_t>(n);
        else if (key == "computeMinor" && !v.get_int64().get(n))
          d.compute_minor = static_cast<int32_t>(n);
      }
      builder_.timeline().devices.push_back(std::move(d));
    }
  }

  model::RankProfile* profile_;
  trace::TimelineBuilder builder_;
  RowLedger ledger_;
  const std::vector<model::ClassRule>& rules_;
  int64_t events_ = 0;  // committed so far
};

// |scan| runs the scan of the file or text into the sink.
template <typename ScanFn>
Status ReadWith(const std::string& label, model::RankProfile* profile,
                const trace::ScanOptions& options, ScanFn&& scan) {
  KinetoSink sink(profile, label,
                  options.activity_rules ? *options.activity_rules : model::DefaultClassRules());
  trace::ScanReport report;
  TS_RETURN_IF_ERROR(scan(&sink, &report));
  if (report.damaged) {
    profile->warnings.push_back(trace::DescribeDamage(label, report));
  }
  model::Timeline& tl = sink.builder().timeline();
  tl.format = "kineto";
  tl.source = label;
  if (tl.distributed.rank && profile->rank < 0) profile->rank = *tl.distributed.rank;
  sink.builder().Finish(std::max(1u, options.threads));
  profile->ledgers.push_back(std::move(sink.ledger()));
  return Status::Ok();
}

}  // namespace

Status ReadKinetoTrace(const std::string& path, model::RankProfile* profile,
                       const trace::ScanOptions& options) {
  return ReadWith(path, profile, options, [&](trace::EventSink* sink, trace::ScanReport* report) {
    return trace::ScanJsonFile(path, sink, report, options);
  });
}

Status ParseKinetoTrace(std::string_view json, const std::string& label,
                        model::RankProfile* profile, const trace::ScanOptions& options) {
  return ReadWith(label, profile, options, [&](trace::EventSink* sink, trace::ScanReport* report) {
    return trace::ScanJsonText(json, label, sink, report, options);
  });
}

}  // namespace trainscope::formats
