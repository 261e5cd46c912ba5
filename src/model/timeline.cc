#include "model/timeline.h"

namespace trainscope::model {
namespace {

template <typename T>
void PermuteColumn(std::vector<T>* column, const std::vector<uint32_t>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (uint32_t old_index : order) out.push_back((*column)[old_index]);
  column->swap(out);
}

}  // namespace

const char* ActivityKindName(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::kCompute:
      return "compute";
    case ActivityKind::kCommunication:
      return "communication";
    case ActivityKind::kMemcpy:
      return "memcpy";
    case ActivityKind::kMemset:
      return "memset";
    case ActivityKind::kOther:
      return "other";
  }
  return "?";
}

void DeviceActivities::Append(const DeviceActivity& a) {
  device.push_back(a.device);
  stream.push_back(a.stream);
  start_ns.push_back(a.start_ns);
  duration_ns.push_back(a.duration_ns);
  name.push_back(a.name);
  category.push_back(a.category);
  kind.push_back(a.kind);
  correlation.push_back(a.correlation);
  external_id.push_back(a.external_id);
  collective.push_back(a.collective);
  launcher.push_back(a.launcher);
  step.push_back(a.step);
}

DeviceActivity DeviceActivities::Row(size_t i) const {
  DeviceActivity a;
  a.device = device[i];
  a.stream = stream[i];
  a.start_ns = start_ns[i];
  a.duration_ns = duration_ns[i];
  a.name = name[i];
  a.category = category[i];
  a.kind = kind[i];
  a.correlation = correlation[i];
  a.external_id = external_id[i];
  a.collective = collective[i];
  a.launcher = launcher[i];
  a.step = step[i];
  return a;
}

void DeviceActivities::Permute(const std::vector<uint32_t>& order) {
  PermuteColumn(&device, order);
  PermuteColumn(&stream, order);
  PermuteColumn(&start_ns, order);
  PermuteColumn(&duration_ns, order);
  PermuteColumn(&name, order);
  PermuteColumn(&category, order);
  PermuteColumn(&kind, order);
  PermuteColumn(&correlation, order);
  PermuteColumn(&external_id, order);
  PermuteColumn(&collective, order);
  PermuteColumn(&launcher, order);
  PermuteColumn(&step, order);
}

void HostOps::Append(const HostOp& op) {
  pid.push_back(op.pid);
  tid.push_back(op.tid);
  start_ns.push_back(op.start_ns);
  duration_ns.push_back(op.duration_ns);
  name.push_back(op.name);
  category.push_back(op.category);
  depth.push_back(op.depth);
  parent.push_back(op.parent);
  external_id.push_back(op.external_id);
  correlation.push_back(op.correlation);
}

HostOp HostOps::Row(size_t i) const {
  HostOp op;
  op.pid = pid[i];
  op.tid = tid[i];
  op.start_ns = start_ns[i];
  op.duration_ns = duration_ns[i];
  op.name = name[i];
  op.category = category[i];
  op.depth = depth[i];
  op.parent = parent[i];
  op.external_id = external_id[i];
  op.correlation = correlation[i];
  return op;
}

void HostOps::Permute(const std::vector<uint32_t>& order) {
  PermuteColumn(&pid, order);
  PermuteColumn(&tid, order);
  PermuteColumn(&start_ns, order);
  PermuteColumn(&duration_ns, order);
  PermuteColumn(&name, order);
  PermuteColumn(&category, order);
  PermuteColumn(&depth, order);
  PermuteColumn(&parent, order);
  PermuteColumn(&external_id, order);
  PermuteColumn(&correlation, order);
}

}  // namespace trainscope::model
