#include "formats/trace/kineto_reader.h"

#include <fmt/format.h>

#include "core/numbers.h"
#include "formats/trace/chrome_json.h"
#include "formats/trace/timeline_builder.h"
#include "model/timeline_classify.h"

namespace trainscope::formats {
namespace {

namespace od = simdjson::ondemand;
using trace::ParseIdToken;
using trace::RawEvent;

int64_t IdOr(std::string_view raw, int64_t fallback) {
  if (raw.empty()) return fallback;
  std::optional<int64_t> v = ParseIdToken(raw);
  return v ? *v : fallback;
}

bool IsDeviceCategory(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Kernel" ||
         cat == "Memcpy" || cat == "Memset";
}

bool IsLaunchFlow(std::string_view cat) {
  return cat == "ac2g" || cat == "async" || cat == "async_cpu_to_gpu";
}

class KinetoSink : public trace::EventSink {
 public:
  KinetoSink(model::RankProfile* profile, const std::string& label)
      : profile_(profile), builder_(profile), ledger_(label) {}

  void OnEvent(const RawEvent& ev, size_t offset) override {
    ++index_;
    if (ev.ph.size() != 1) return Skip(ev.ph.empty() ? "missing ph" : "unknown phase", offset);
    switch (ev.ph[0]) {
      case 'X': return Complete(ev, offset);
      case 'i':
      case 'I': return Instant(ev, offset);
      case 's':
      case 'f':
      case 't': return FlowPoint(ev, offset);
      case 'M': return Metadata(ev);
      case 'C': return Skip("counter", offset);
      default: return Skip("unknown phase", offset);
    }
  }

  void OnTopLevel(std::string_view key, od::value& value) override {
    if (key == "distributedInfo") ReadDistributed(value);
    else if (key == "deviceProperties") ReadDevices(value);
  }

  void OnTopLevelScalar(std::string_view key, std::string_view raw) override {
    if (key == "baseTimeNanoseconds") builder_.timeline().base_time_ns = IdOr(raw, 0);
  }

  void Reset() override {
    builder_.Reset();
    ledger_ = RowLedger(ledger_.file());
    index_ = 0;
  }

  trace::TimelineBuilder& builder() { return builder_; }
  RowLedger& ledger() { return ledger_; }

 private:
  void Skip(const char* reason, size_t offset) {
    ledger_.Skip(reason, index_, offset ? fmt::format("byte {}", offset) : std::string());
  }

  // pid/tid: numbers, numeric strings ("25738"), or names ("Spans").
  int64_t ThreadId(std::string_view raw) {
    if (std::optional<int64_t> v = ParseIdToken(raw)) return *v;
    return model::SyntheticThreadId(profile_->strings.Intern(TrimField(raw)));
  }

  void Complete(const RawEvent& ev, size_t offset) {
    std::optional<int64_t> ts = ParseMicrosToNanos(ev.ts);
    if (!ts) return Skip(ev.ts.empty() ? "missing ts" : "bad ts", offset);
    int64_t dur = 0;
    if (!ev.dur.empty()) {
      std::optional<int64_t> d = ParseMicrosToNanos(ev.dur);
      if (d && *d >= 0) dur = *d;
      else ledger_.Note("bad dur (0 used)", index_, std::string(ev.dur));
    }
    if (IsDeviceCategory(ev.cat)) return Device(ev, *ts, dur);
    if (ev.cat == "gpu_user_annotation") return Skip("gpu_user_annotation", offset);
    if (ev.cat == "cuda_sync") return Skip("cuda_sync", offset);
    model::HostOp op;
    op.pid = ThreadId(ev.pid);
    op.tid = ThreadId(ev.tid);
    op.start_ns = *ts;
    op.duration_ns = dur;
    op.name = profile_->strings.Intern(ev.name);
    op.category = profile_->strings.Intern(ev.cat);
    op.external_id = IdOr(ev.external_id, model::kNoId);
    op.correlation = IdOr(ev.correlation, model::kNoId);
    builder_.AddHostOp(op);
    ledger_.Use();
  }

  void Device(const RawEvent& ev, int64_t ts, int64_t dur) {
    model::DeviceActivity a;
    int64_t pid = ThreadId(ev.pid);
    int64_t tid = ThreadId(ev.tid);
    a.device = static_cast<int32_t>(IdOr(ev.device, pid));
    a.stream = static_cast<int32_t>(IdOr(ev.stream, tid));
    a.start_ns = ts;
    a.duration_ns = dur;
    a.name = profile_->strings.Intern(ev.name);
    a.category = profile_->strings.Intern(ev.cat);
    a.correlation = IdOr(ev.correlation, model::kNoId);
    a.external_id = IdOr(ev.external_id, model::kNoId);
    if (!ev.correlation.empty() && a.correlation == model::kNoId) {
      ledger_.Note("id overflow (correlation dropped)", index_, std::string(ev.correlation));
    }
    bool collective = !ev.coll_name.empty();
    if (collective) {
      model::CollectiveArgs c;
      c.name = profile_->strings.Intern(ev.coll_name);
      c.dtype = profile_->strings.Intern(ev.dtype);
      c.in_nelems = IdOr(ev.in_nelems, -1);
      c.out_nelems = IdOr(ev.out_nelems, -1);
      c.group_size = static_cast<int32_t>(IdOr(ev.group_size, -1));
      c.pg_name = profile_->strings.Intern(ev.pg_name);
      c.pg_desc = profile_->strings.Intern(ev.pg_desc);
      c.pg_ranks = profile_->strings.Intern(ev.pg_ranks);
      a.collective = builder_.AddCollective(c);
    }
    a.kind = model::ClassifyActivity(ev.name, ev.cat, collective, model::DefaultClassRules());
    builder_.AddActivity(pid, tid, a);
    ledger_.Use();
  }

  void Instant(const RawEvent& ev, size_t offset) {
    if (ev.name != "[memory]") return Skip("instant event", offset);
    std::optional<int64_t> ts = ParseMicrosToNanos(ev.ts);
    if (!ts) return Skip("missing ts", offset);
    model::MemoryEvent m;
    m.ts_ns = *ts;
    m.device_type = static_cast<int32_t>(IdOr(ev.device_type, -1));
    m.device_id = static_cast<int32_t>(IdOr(ev.device_id, -1));
    m.bytes = IdOr(ev.bytes, 0);
    m.total_allocated = IdOr(ev.total_allocated, 0);
    m.total_reserved = IdOr(ev.total_reserved, 0);
    builder_.timeline().memory.push_back(m);
    ledger_.Use();
  }

  void FlowPoint(const RawEvent& ev, size_t offset) {
    if (!IsLaunchFlow(ev.cat)) return Skip("flow other than launch", offset);
    std::optional<int64_t> ts = ParseMicrosToNanos(ev.ts);
    if (!ts) return Skip("missing ts", offset);
    std::optional<int64_t> id = ParseIdToken(ev.id);
    if (!id) return Skip(ev.id.empty() ? "flow without id" : "id overflow", offset);
    builder_.AddFlowPoint(ev.ph[0] == 's', *id, profile_->strings.Intern(ev.cat),
                          ThreadId(ev.pid), ThreadId(ev.tid), *ts);
    ledger_.Use();
  }

  void Metadata(const RawEvent& ev) {
    if (ev.name == "process_name") {
      builder_.timeline().process_names[ThreadId(ev.pid)] = profile_->strings.Intern(ev.arg_name);
    } else if (ev.name == "thread_name") {
      builder_.timeline().thread_names[{ThreadId(ev.pid), ThreadId(ev.tid)}] =
          profile_->strings.Intern(ev.arg_name);
    }
    ledger_.Use();
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
      if (key == "rank" && !v.get_int64().get(n)) info.rank = static_cast<int32_t>(n);
      else if (key == "world_size" && !v.get_int64().get(n)) info.world_size = static_cast<int32_t>(n);
      else if (key == "backend" && !v.get_string().get(s)) info.backend = std::string(s);
      else if (key == "nccl_version" && !v.get_string().get(s)) info.nccl_version = std::string(s);
      else if (key == "pg_config") ReadProcessGroups(v, &info);
    }
  }

  void ReadProcessGroups(od::value& value, model::DistributedInfo* info) {
    od::array arr;
    if (value.get_array().get(arr)) return;
    for (auto er : arr) {
      od::object obj;
      if (std::move(er).get_object().get(obj)) return;
      model::ProcessGroupConfig pg;
      for (auto fr : obj) {
        od::field f;
        if (std::move(fr).get(f)) return;
        std::string_view key;
        if (f.unescaped_key().get(key)) return;
        od::value v = f.value();
        std::string_view s;
        int64_t n = 0;
        if (key == "pg_name" && !v.get_string().get(s)) pg.name = std::string(s);
        else if (key == "pg_desc" && !v.get_string().get(s)) pg.desc = std::string(s);
        else if (key == "backend_config" && !v.get_string().get(s)) pg.backend_config = std::string(s);
        else if (key == "pg_size" && !v.get_int64().get(n)) pg.size = static_cast<int32_t>(n);
        else if (key == "ranks") {
          od::array ranks;
          if (v.get_array().get(ranks)) continue;
          for (auto rr : ranks) {
            if (!std::move(rr).get_int64().get(n)) pg.ranks.push_back(static_cast<int32_t>(n));
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
      if (std::move(er).get_object().get(obj)) return;
      model::DeviceProperties d;
      for (auto fr : obj) {
        od::field f;
        if (std::move(fr).get(f)) return;
        std::string_view key;
        if (f.unescaped_key().get(key)) return;
        od::value v = f.value();
        std::string_view s;
        int64_t n = 0;
        if (key == "id" && !v.get_int64().get(n)) d.id = static_cast<int32_t>(n);
        else if (key == "name" && !v.get_string().get(s)) d.name = std::string(s);
        else if (key == "totalGlobalMem" && !v.get_int64().get(n)) d.total_global_mem = n;
        else if (key == "numSms" && !v.get_int64().get(n)) d.num_sms = static_cast<int32_t>(n);
        else if (key == "computeMajor" && !v.get_int64().get(n)) d.compute_major = static_cast<int32_t>(n);
        else if (key == "computeMinor" && !v.get_int64().get(n)) d.compute_minor = static_cast<int32_t>(n);
      }
      builder_.timeline().devices.push_back(std::move(d));
    }
  }

  model::RankProfile* profile_;
  trace::TimelineBuilder builder_;
  RowLedger ledger_;
  int64_t index_ = 0;
};

// |scan| runs the scan of the file or text into the sink.
template <typename ScanFn>
Status ReadWith(const std::string& label, model::RankProfile* profile, ScanFn&& scan) {
  KinetoSink sink(profile, label);
  trace::ScanReport report;
  TS_RETURN_IF_ERROR(scan(&sink, &report));
  if (report.damaged) {
    profile->warnings.push_back(fmt::format(
        "{}: damaged trace at byte {} ({}); kept the {} events before it", label,
        report.damage_offset, report.damage_reason, report.events));
  }
  model::Timeline& tl = sink.builder().timeline();
  tl.format = "kineto";
  tl.source = label;
  if (tl.distributed.rank && profile->rank < 0) profile->rank = *tl.distributed.rank;
  sink.builder().Finish(/*append_kernels=*/true);
  profile->ledgers.push_back(std::move(sink.ledger()));
  return Status::Ok();
}

}  // namespace

Status ReadKinetoTrace(const std::string& path, model::RankProfile* profile,
                       const trace::ScanOptions& options) {
  return ReadWith(path, profile, [&](trace::EventSink* sink, trace::ScanReport* report) {
    return trace::ScanJsonFile(path, sink, report, options);
  });
}

Status ParseKinetoTrace(std::string_view json, const std::string& label, model::RankProfile* profile,
                       const trace::ScanOptions& options) {
  return ReadWith(label, profile, [&](trace::EventSink* sink, trace::ScanReport* report) {
    return trace::ScanJsonText(json, label, sink, report, options);
  });
}

}  // namespace trainscope::formats
