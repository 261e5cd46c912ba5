#include "synth/trace_view_writer.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "synth/host_frames.h"
#include "synth/step_trace.h"

namespace trainscope::synth {
namespace {

constexpr uint64_t kTraceSalt = 0x7EAC;
constexpr int kComputeStreamId = 2;  // as in kernel_details.csv
// process_sort_index of the NPU-side processes in torch_npu's files.
constexpr int64_t kSortHardware = 13;
constexpr int64_t kSortCommunication = 15;
constexpr int64_t kSortOverlap = 23;
// Host timing (µs): launch op end -> task start, framework op length, and
// how long ProfilerStep#N outlasts the step's last kernel.
constexpr double kLatencyUs[2] = {1.5, 6.0};
constexpr double kOpUs[2] = {8.0, 30.0};
constexpr double kStepTailUs[2] = {20.0, 80.0};
// A prefetching loader's __next__: the batch is ready, the call only
// collects it from the worker queue.
constexpr double kLoaderUs[2] = {60.0, 110.0};

// torch_npu's pid of an NPU-side process (JsonAssembler::GetFormatPid):
// never relied on by readers, which map pids through process_name.
int64_t NpuPid(int64_t host_pid, int64_t sort_index, int device_id) {
  return (host_pid << 10) | (sort_index << 5) | device_id;
}

int64_t DrawNs(Rng& rng, const double (&range_us)[2]) {
  return static_cast<int64_t>(rng.Uniform(range_us[0], range_us[1]) * 1000.0);
}

// Elements per rank of one FSDP collective: the ~14 h^2 weights of a layer
// (qkv 1.5, o 1, gdn in 1.5, gdn out 1, gate/up/down 3 each), sharded.
int64_t FsdpCount(const SynthOptions& options) {
  const int64_t h = options.hidden;
  return 14 * h * h / options.ranks;
}

}  // namespace

TraceViewWriter::TraceViewWriter(const KernelCatalog& catalog, const SynthOptions& options,
                                 int rank, int device_id)
    : catalog_(catalog),
      options_(options),
      device_id_(device_id),
      rng_(options.seed ^ kTraceSalt, static_cast<uint64_t>(rank) + 1),
      modern_(options.header == HeaderVariant::kCann83 ||
              options.header == HeaderVariant::kCann2026),
      // OS pids below Linux's default pid_max (4194304); the autograd thread
      // was started after the main one.
      host_pid_(2800000 + 1021 * static_cast<int64_t>(rank)),
      autograd_tid_(host_pid_ + 613),
      hardware_pid_(NpuPid(host_pid_, kSortHardware, device_id)),
      comm_pid_(NpuPid(host_pid_, kSortCommunication, device_id)),
      overlap_pid_(NpuPid(host_pid_, kSortOverlap, device_id)) {
  const char* stream_key =
      options.header == HeaderVariant::kLegacy2023 ? "Stream Id" : "Physic Stream Id";
  for (size_t id = 0; id < catalog.size(); ++id) {
    const KernelSpec& spec = catalog.spec(static_cast<SpecId>(id));
    const HostOpNames ops = HostOpsOf(spec.name);
    framework_.emplace_back(ops.framework);
    launch_.emplace_back(ops.launch);
    task_head_.push_back(fmt::format(R"({{"name": "{}", "pid": {}, "tid": {}, "ts": ")", spec.name,
                                     hardware_pid_, kComputeStreamId));
    task_args_.push_back(fmt::format(
        R"(, "args": {{"Model Id": 4294967295, "Task Type": "{}", "{}": {}, "Task Id": )",
        CoreName(spec.core), stream_key, kComputeStreamId));
  }
}

Status TraceViewWriter::Open(const std::string& path) {
  TS_RETURN_IF_ERROR(file_.Open(path));
  file_.buffer().push_back('[');
  Metadata();
  return file_.MaybeFlush();
}

Status TraceViewWriter::Close() {
  file_.buffer().push_back(']');
  return file_.Close();
}

void TraceViewWriter::Begin() {
  if (!first_event_) AppendStr(file_.buffer(), ", ");
  first_event_ = false;
}

void TraceViewWriter::Ts(int64_t ns) {
  fmt::memory_buffer& b = file_.buffer();
  AppendStr(b, R"("ts": ")");
  AppendUs(b, ns, 3);
  b.push_back('"');
}

// Metadata as torch_npu writes it: the Python process with the framework's
// key order, the NPU processes with CANN's.
void TraceViewWriter::Metadata() {
  fmt::memory_buffer& b = file_.buffer();
  auto host = [&](const char* name, int64_t tid, const char* arg, std::string_view value,
                  bool quoted) {
    Begin();
    fmt::format_to(std::back_inserter(b),
                   R"({{"ph": "M", "name": "{}", "pid": {}, "tid": {}, "args": {{"{}": {}{}{}}}}})",
                   name, host_pid_, tid, arg, quoted ? "\"" : "", value, quoted ? "\"" : "");
  };
  host("process_name", 0, "name", "Python", true);
  host("process_labels", 0, "labels", "CPU", true);
  host("process_sort_index", 0, "sort_index", "0", false);
  for (int64_t tid : {host_pid_, autograd_tid_}) {
    host("thread_name", tid, "name", fmt::format("Thread {}", tid), true);
    host("thread_sort_index", tid, "sort_index", fmt::format("{}", tid), false);
  }

  auto npu = [&](int64_t pid, const char* name, int64_t tid, const char* arg,
                 std::string_view value, bool quoted) {
    Begin();
    fmt::format_to(std::back_inserter(b),
                   R"({{"name": "{}", "pid": {}, "tid": {}, "args": {{"{}": {}{}{}}}, "ph": "M"}})",
                   name, pid, tid, arg, quoted ? "\"" : "", value, quoted ? "\"" : "");
  };
  // "NPU <id>" since CANN 8.x; plain "NPU" before (the device is then the
  // pid's low 5 bits).
  const std::string label = modern_ ? fmt::format("NPU {}", device_id_) : std::string("NPU");
  auto process = [&](int64_t pid, const char* name, int64_t sort_index,
                     const std::vector<std::pair<int64_t, std::string>>& threads) {
    npu(pid, "process_name", 0, "name", name, true);
    for (const auto& [tid, thread] : threads) {
      npu(pid, "thread_name", tid, "name", thread, true);
      npu(pid, "thread_sort_index", tid, "sort_index", fmt::format("{}", tid), false);
    }
    npu(pid, "process_labels", 0, "labels", label, true);
    npu(pid, "process_sort_index", 0, "sort_index", fmt::format("{}", sort_index), false);
  };
  process(hardware_pid_, "Ascend Hardware", kSortHardware,
          {{kComputeStreamId, fmt::format("Stream {}", kComputeStreamId)}});
  // msprof renamed HCCL -> Communication and names groups by hash (2025-02).
  process(comm_pid_, modern_ ? "Communication" : "HCCL", kSortCommunication,
          {{0, modern_ ? fmt::format("Group {} Communication", kHashAllReduce)
                       : std::string("Group 0 Communication")},
           {1, modern_ ? fmt::format("Group {} Communication", kHashFsdp)
                       : std::string("Group 1 Communication")}});
  process(
      overlap_pid_, "Overlap Analysis", kSortOverlap,
      {{0, "Computing"}, {1, "Communication"}, {2, "Communication(Not Overlapped)"}, {3, "Free"}});
}

void TraceViewWriter::PlaceMarks(int64_t from, int64_t to) {
  if (marks_.empty()) return;
  const int64_t step = (to - from) / static_cast<int64_t>(marks_.size() + 1);
  for (size_t j = 0; j < marks_.size(); ++j) {
    const int64_t t = from + step * static_cast<int64_t>(j + 1);
    FrameTimes& f = frame_times_[marks_[j].first];
    switch (marks_[j].second) {
      case Mark::kOpenModule:
        f.module_open = t;
        break;
      case Mark::kOpen:
        f.open = t;
        break;
      case Mark::kClose:
        f.close = t;
        break;
      case Mark::kCloseModule:
        f.module_close = t;
        break;
    }
  }
}

void TraceViewWriter::Layout(const StepPlan& plan, int64_t host_start_ns, int64_t host_end_ns) {
  const size_t n = plan.compute.size();
  const std::vector<HostFrame>& frames = plan.frames;
  ops_.assign(n, OpTimes{});
  frame_times_.assign(frames.size(), FrameTimes{});
  open_.clear();
  size_t next = 0;
  int backward = 0;  // open kBackward frames
  int64_t cursor = host_start_ns;
  for (size_t k = 0; k <= n; ++k) {
    marks_.clear();
    while (!open_.empty() && frames[open_.back()].end <= k) {
      const size_t f = open_.back();
      open_.pop_back();
      marks_.emplace_back(f, Mark::kClose);
      if (NamesOf(frames[f].kind).module != nullptr) marks_.emplace_back(f, Mark::kCloseModule);
      if (frames[f].kind == FrameKind::kBackward) --backward;
    }
    if (k == n) {
      PlaceMarks(cursor, host_end_ns);
      break;
    }
    for (; next < frames.size() && frames[next].begin <= k; ++next) {
      const HostFrame& f = frames[next];
      if (f.end <= f.begin) continue;  // no kernel inside: not written
      if (NamesOf(f.kind).module != nullptr) marks_.emplace_back(next, Mark::kOpenModule);
      marks_.emplace_back(next, Mark::kOpen);
      open_.push_back(next);
      if (f.kind == FrameKind::kBackward) ++backward;
    }
    // The op ends a launch latency before its kernel starts and fits in the
    // host time since the previous op (at least the 1.5 us dispatch gap plus
    // the previous kernel), leaving >= 3/8 of it for the frame marks.
    const int64_t start = plan.compute[k].start_ns;
    const int64_t room = start - cursor;
    const int64_t latency = std::min(DrawNs(rng_, kLatencyUs), room / 8);
    const int64_t length = std::min(DrawNs(rng_, kOpUs), room / 2);
    ops_[k] = {start - latency - length, start - latency, backward > 0};
    PlaceMarks(cursor, ops_[k].start);
    cursor = ops_[k].end;
  }
}

void TraceViewWriter::FlowPoint(char ph, int64_t id, int64_t pid, int64_t tid, int64_t ts_ns) {
  fmt::memory_buffer& b = file_.buffer();
  Begin();
  AppendStr(b, R"({"ph": ")");
  b.push_back(ph);
  AppendStr(b, R"(", "bp": "e", "name": "torch_to_npu", "id": )");
  AppendInt(b, id);
  AppendStr(b, R"(, "pid": )");
  AppendInt(b, pid);
  AppendStr(b, R"(, "tid": )");
  AppendInt(b, tid);
  AppendStr(b, ", ");
  Ts(ts_ns);
  AppendStr(b, R"(, "cat": "async_npu"})");
}

void TraceViewWriter::HostEvent(std::string_view name_prefix, std::string_view name, int64_t tid,
                                int64_t start, int64_t end, std::string_view cat) {
  fmt::memory_buffer& b = file_.buffer();
  Begin();
  AppendStr(b, R"({"ph": "X", "name": ")");
  AppendStr(b, name_prefix);
  AppendStr(b, name);
  AppendStr(b, R"(", "pid": )");
  AppendInt(b, host_pid_);
  AppendStr(b, R"(, "tid": )");
  AppendInt(b, tid);
  AppendStr(b, ", ");
  Ts(start);
  AppendStr(b, R"(, "dur": )");
  AppendUs(b, end - start, 3);
  AppendStr(b, R"(, "cat": ")");
  AppendStr(b, cat);
  b.push_back('"');
}

// The nn.Module and function events of |frame| (python_function, with the
// tracer's Python ids); |stack| holds the open frames and their ids.
void TraceViewWriter::Frames(const StepPlan& plan, size_t frame,
                             std::vector<std::pair<size_t, int64_t>>* stack) {
  const HostFrame& f = plan.frames[frame];
  const FrameTimes& t = frame_times_[frame];
  const FrameNames names = NamesOf(f.kind);
  fmt::memory_buffer& b = file_.buffer();
  int64_t parent = stack->empty() ? 0 : stack->back().second;
  auto event = [&](std::string_view prefix, std::string_view name, int64_t start, int64_t end) {
    const int64_t id = ++python_id_;
    HostEvent(prefix, name, host_pid_, start, end, "python_function");
    AppendStr(b, R"(, "args": {"Python id": )");
    AppendInt(b, id);
    AppendStr(b, R"(, "Python parent id": )");
    AppendInt(b, parent);
    AppendStr(b, "}}");
    parent = id;
  };
  if (names.module != nullptr) {
    event("nn.Module: ", fmt::format("{}_{}", names.module, f.instance), t.module_open,
          t.module_close);
  }
  event("", names.function, t.open, t.close);
  stack->emplace_back(frame, parent);
}

void TraceViewWriter::Kernel(const PlantedKernel& k, const OpTimes& op) {
  fmt::memory_buffer& b = file_.buffer();
  const int64_t tid = op.backward ? autograd_tid_ : host_pid_;
  // Forward ops carry the autograd sequence number; backward ops name the
  // forward thread.
  HostEvent("", framework_[k.spec], tid, op.start, op.end, "cpu_op");
  AppendStr(b, R"(, "args": {"Sequence number": )");
  AppendInt(b, op.backward ? -1 : sequence_++);
  AppendStr(b, R"(, "Fwd thread id": )");
  AppendInt(b, op.backward ? host_pid_ : 0);
  AppendStr(b, "}}");
  const int64_t length = op.end - op.start;
  const int64_t launch_start = op.start + length * 3 / 10;
  HostEvent("", launch_[k.spec], tid, launch_start, op.end - length / 10, "cpu_op");
  b.push_back('}');

  FlowPoint('s', k.start_ns, host_pid_, tid, launch_start);

  Begin();
  AppendStr(b, task_head_[k.spec]);
  AppendUs(b, k.start_ns, 3);
  AppendStr(b, R"(", "dur": )");
  AppendUs(b, k.dur_ns, 3);
  AppendStr(b, task_args_[k.spec]);
  AppendInt(b, task_id_);
  task_id_ = task_id_ == 65535 ? 0 : task_id_ + 1;
  AppendStr(b, R"(, "Batch Id": 0, "Subtask Id": 4294967295, "connection_id": )");
  AppendInt(b, connection_id_++);
  AppendStr(b, R"(}, "ph": "X"})");

  FlowPoint('f', k.start_ns, hardware_pid_, kComputeStreamId, k.start_ns);
}

void TraceViewWriter::Collective(const PlantedKernel& k) {
  fmt::memory_buffer& b = file_.buffer();
  const Chains& c = catalog_.chains();
  const KernelSpec& spec = catalog_.spec(k.spec);
  const bool all_reduce = k.spec == c.comm_all_reduce;
  Begin();
  fmt::format_to(std::back_inserter(b), R"({{"name": "{}{}_1", "pid": {}, "tid": {}, )", spec.name,
                 k.seq, comm_pid_, all_reduce ? 0 : 1);
  Ts(k.start_ns);
  AppendStr(b, R"(, "dur": )");
  AppendUs(b, k.dur_ns, 3);
  fmt::format_to(std::back_inserter(b),
                 R"(, "args": {{"connection_id": {}, "model id": 4294967295, "data_type": "{}", )"
                 R"("alg_type": "MESH-RING", "count": {}}}, "ph": "X"}})",
                 connection_id_++, k.spec == c.comm_all_gather ? "BF16" : "FP32",
                 all_reduce ? 1 : FsdpCount(options_));
}

Status TraceViewWriter::Overlap(const StepPlan& plan) {
  fmt::memory_buffer& b = file_.buffer();
  const StepSegments s = ComputeStepSegments(plan);
  const std::pair<const char*, const std::vector<TimeInterval>*> lanes[] = {
      {"Computing", &s.computing},
      {"Communication", &s.communication},
      {"Communication(Not Overlapped)", &s.comm_not_overlapped},
      {"Free", &s.free}};
  for (size_t tid = 0; tid < 4; ++tid) {
    for (const TimeInterval& i : *lanes[tid].second) {
      Begin();
      fmt::format_to(std::back_inserter(b), R"({{"name": "{}", "pid": {}, "tid": {}, )",
                     lanes[tid].first, overlap_pid_, tid);
      Ts(i.begin);
      AppendStr(b, R"(, "dur": )");
      AppendUs(b, i.end - i.begin, 3);
      AppendStr(b, R"(, "ph": "X"})");
      TS_RETURN_IF_ERROR(file_.MaybeFlush());  // two segments per kernel at most
    }
  }
  return Status::Ok();
}

Status TraceViewWriter::WriteStep(int step, const StepPlan& plan, int64_t host_start_ns,
                                  int64_t loader_extra_ns) {
  const int64_t host_end_ns = plan.end_ns + DrawNs(rng_, kStepTailUs);
  const int64_t loader_start_ns = host_start_ns - DrawNs(rng_, kLoaderUs) - loader_extra_ns;
  Layout(plan, host_start_ns, host_end_ns);
  HostEvent("ProfilerStep#", fmt::format("{}", step), host_pid_, loader_start_ns, host_end_ns,
            "cpu_op");
  AppendStr(file_.buffer(), R"(, "args": {"Sequence number": -1, "Fwd thread id": 0}})");
  HostEvent("", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", host_pid_,
            loader_start_ns, host_start_ns, "user_annotation");
  AppendStr(file_.buffer(), R"(, "args": {}})");

  std::vector<std::pair<size_t, int64_t>> stack;  // open frames, Python id of each
  size_t next = 0;
  for (size_t k = 0; k < plan.compute.size(); ++k) {
    if (options_.with_stack) {
      while (!stack.empty() && plan.frames[stack.back().first].end <= k) stack.pop_back();
      for (; next < plan.frames.size() && plan.frames[next].begin <= k; ++next) {
        if (plan.frames[next].end > plan.frames[next].begin) Frames(plan, next, &stack);
      }
    }
    Kernel(plan.compute[k], ops_[k]);
    TS_RETURN_IF_ERROR(file_.MaybeFlush());
  }
  for (const PlantedKernel& k : plan.comm) {
    Collective(k);
    TS_RETURN_IF_ERROR(file_.MaybeFlush());
  }
  return Overlap(plan);
}

}  // namespace trainscope::synth
