// Hand-built profiles for the analyses' unit tests: device events and host
// ops appended one by one, as a reader would (header only).
#pragma once

#include <cstdint>

#include "model/rank_profile.h"

namespace trainscope::testing {

// A host op [start, end) on the profile's timeline; returns its index.
inline int32_t AddHostOp(model::RankProfile* p, const char* name, int64_t start, int64_t end,
                         int32_t parent = model::kNoIndex) {
  model::HostOp op;
  op.name = p->strings.Intern(name);
  op.start_ns = start;
  op.duration_ns = end - start;
  op.parent = parent;
  p->timeline.host_ops.Append(op);
  return static_cast<int32_t>(p->timeline.host_ops.size() - 1);
}

// A compute kernel [start, end) of step 1, launched by host op |launcher|.
inline void AddKernel(model::RankProfile* p, int64_t start, int64_t end,
                      int32_t launcher = model::kNoIndex) {
  model::DeviceEvent e;
  e.name = p->strings.Intern("gemm");
  e.op_type = e.name;
  e.step = 1;
  e.start_ns = start;
  e.duration_ns = end - start;
  e.launcher = launcher;
  p->device_events.Append(e);
}

}  // namespace trainscope::testing
