// ASCEND_PROFILER_OUTPUT/trace_view.json of one rank (ascend-formats §2.11)
// as torch_npu writes it for a Level1 profile: a top-level JSON array of
// Chrome-trace events, ts as decimal strings of µs with 3 decimals, pids
// named by process_name metadata.
//
//   Python            ProfilerStep#N (cpu_op) around the step's host work; per
//                     compute kernel a framework op (aten::mul, npu::npu_rms_norm)
//                     with its launch op (aclnnMul) inside; forward ops on the
//                     main thread, backward ops on the autograd thread; with
//                     with_stack the python_function frames of host_frames.h
//   Ascend Hardware   one task per compute kernel (kernel_details.csv's row:
//                     same name, start, duration, Task Id), tid = Stream ID
//   Communication     one op per HCCL kernel on "Group <hash> Communication"
//     (HCCL before 2025)
//   Overlap Analysis  per step the Computing / Communication /
//                     Communication(Not Overlapped) / Free segments whose
//                     lengths are step_trace_time.csv's columns
//
// Flows torch_to_npu (cat async_npu) link each launch op to its task, with
// id = the task's start in ns (> 2^53, a JSON number) as torch_npu does.
//
// Host times are laid out just in time: a kernel's framework op ends a
// launch latency before the kernel starts and sits in the host time left
// since the previous op; the frames that close or open between two ops are
// spread over the rest of that gap. The writer draws from its own PRNG
// stream, so the other files are the same with and without it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "synth/kernel_catalog.h"
#include "synth/model_schedule.h"
#include "synth/out_file.h"
#include "synth/rng.h"
#include "synth/synth.h"

namespace trainscope::synth {

class TraceViewWriter {
 public:
  TraceViewWriter(const KernelCatalog& catalog, const SynthOptions& options, int rank,
                  int device_id);

  // Creates the file and writes the process and thread metadata.
  Status Open(const std::string& path);
  // Writes one step. Its host work starts at |host_start_ns| (before the
  // step's first device task: step_trace_time.csv's Preparing); before it the
  // data loader hands over the batch (PyTorch's
  // `enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__`, at the
  // top of the loop, so inside ProfilerStep#|step|): a short call, longer by
  // |loader_extra_ns| (a late rank's slow loader). ProfilerStep#|step| starts
  // with the loader call and ends a little after the step's last kernel.
  Status WriteStep(int step, const StepPlan& plan, int64_t host_start_ns, int64_t loader_extra_ns);
  Status Close();

  uint64_t bytes_written() const { return file_.bytes_written(); }

 private:
  struct OpTimes {
    int64_t start = 0;  // the framework op; the launch op lies inside
    int64_t end = 0;
    bool backward = false;  // on the autograd thread
  };
  struct FrameTimes {
    int64_t module_open = 0;  // the nn.Module frame, when the frame has one
    int64_t open = 0;         // the function frame
    int64_t close = 0;
    int64_t module_close = 0;
  };
  enum class Mark : uint8_t { kOpenModule, kOpen, kClose, kCloseModule };

  void Layout(const StepPlan& plan, int64_t host_start_ns, int64_t host_end_ns);
  void PlaceMarks(int64_t from, int64_t to);
  void Begin();  // separator before an event
  void Ts(int64_t ns);
  // One end of a torch_to_npu flow ('s' at the launch op, 'f' at the task).
  void FlowPoint(char ph, int64_t id, int64_t pid, int64_t tid, int64_t ts_ns);
  // A Python-process X event up to its "cat" (the caller closes it).
  void HostEvent(std::string_view name_prefix, std::string_view name, int64_t tid, int64_t start,
                 int64_t end, std::string_view cat);
  void Metadata();
  void Frames(const StepPlan& plan, size_t frame, std::vector<std::pair<size_t, int64_t>>* stack);
  void Kernel(const PlantedKernel& k, const OpTimes& op);
  void Collective(const PlantedKernel& k);
  Status Overlap(const StepPlan& plan);

  const KernelCatalog& catalog_;
  const SynthOptions& options_;
  int device_id_;
  Rng rng_;
  OutFile file_;
  bool first_event_ = true;
  bool modern_;  // the CANN 8.x names: process Communication, labels "NPU <id>"
  int64_t host_pid_;
  int64_t autograd_tid_;
  int64_t hardware_pid_;
  int64_t comm_pid_;
  int64_t overlap_pid_;
  // Per spec: the fixed parts of its events.
  std::vector<std::string> task_head_;  // {"name": ..., "pid": ..., "tid": 2, "ts": "
  std::vector<std::string> task_args_;  // , "args": {... "Task Id":
  std::vector<std::string> framework_;  // framework op name
  std::vector<std::string> launch_;     // launch op name
  uint32_t task_id_ = 2001;             // as kernel_details.csv's Task ID
  int64_t connection_id_ = 10000;
  int64_t sequence_ = 0;  // forward ops' "Sequence number"
  int64_t python_id_ = 0;
  // Per step, reused.
  std::vector<OpTimes> ops_;
  std::vector<FrameTimes> frame_times_;
  std::vector<size_t> open_;
  std::vector<std::pair<size_t, Mark>> marks_;
};

}  // namespace trainscope::synth
