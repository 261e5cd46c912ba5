// Input-bound steps: the host is inside the data loader
// (PyTorch's `enumerate(DataLoader)#<iterator>.__next__` record_function,
// in Kineto traces and torch_npu's trace_view.json) while the device has
// nothing to run. That idle is the input pipeline's cost, told apart from a
// host that dispatches too slowly (host-bound) or waits for the device
// (host-sync): free time alone is not a diagnosis.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/common/breakdown_intervals.h"
#include "model/rank_profile.h"

namespace trainscope::analysis {

struct InputBoundStats {
  int64_t calls = 0;                 // data-loader __next__ calls starting in the step
  int64_t single_process_calls = 0;  // of them, _SingleProcessDataLoaderIter (num_workers=0)
  int64_t loader_ns = 0;             // host time inside them
  // Device idle while the host is inside them: no device event of any step
  // (kernel, collective, copy, memset) on any stream. Counted from the
  // capture's first device event on: before it the device is not recorded.
  int64_t idle_ns = 0;
  // Of idle_ns, the part inside the step's device window (first device
  // event to last): the budget's idle counts it too, so host-bound leaves it
  // to input-bound. The rest lies before the step's first device event,
  // outside every budget.
  int64_t idle_in_window_ns = 0;
  // The iteration the shares are of: the step's host window (ProfilerStep#N)
  // and its device window together, first start to last end; the loader
  // usually runs before the step's first kernel, outside the device window.
  int64_t step_ns = 0;
};

// One data-loader call on the host, nested and duplicated records of it
// (a cpu_op and a user_annotation copy, a DataPipe inside another) folded
// into one.
struct DataLoaderCall {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool single_process = false;
};

// Found once per rank: a trace has millions of host ops and a step one or
// two loader calls.
struct DataLoaderCalls {
  std::vector<DataLoaderCall> calls;  // disjoint, by start
  // Every device event of the rank as a union (what runs while the loader
  // works may be the previous step's); empty when there are no calls.
  std::vector<Interval> device_busy;
};

DataLoaderCalls FindDataLoaderCalls(const model::RankProfile& profile);

// nullopt when the profile has no host ops (no trace) or the step has no
// device events; a step with host ops and no loader call has calls == 0.
// |loader| from FindDataLoaderCalls.
std::optional<InputBoundStats> ComputeInputBound(const model::RankProfile& profile, int32_t step,
                                                 const DataLoaderCalls& loader);

// Whether |name| is the record_function PyTorch puts around a data loader's
// __next__ ("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__")
// or a DataPipe's ("enumerate(DataPipe)#..."): the rule of the Kineto
// TensorBoard plugin's DataLoader role.
bool IsDataLoaderCall(std::string_view name);

}  // namespace trainscope::analysis
