#include "analysis/step/operator_efficiency.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/common/device_peaks.h"
#include "analysis/step/matmul_shapes.h"
#include "core/numbers.h"

namespace trainscope::analysis {
namespace {

// op type, input shapes, dtypes, output shapes (which settle a matmul's
// contraction axis; kEmpty where unknown)
using Key = std::tuple<StringId, StringId, StringId, StringId>;

struct Accumulator {
  int64_t count = 0;
  int64_t total_ns = 0;
};

// Which host op a trace kernel's shapes come from: the nearest op at or
// above its launch that carries "Input Dims". Memoised: a step launches
// thousands of kernels from a few hundred distinct ops.
class ShapeOwners {
 public:
  explicit ShapeOwners(const model::HostOps& ops) : ops_(ops) {}

  int32_t Of(int32_t launcher) {
    if (launcher < 0 || static_cast<size_t>(launcher) >= ops_.size()) return model::kNoIndex;
    std::vector<int32_t> path;
    int32_t at = launcher;
    int32_t found = model::kNoIndex;
    while (at != model::kNoIndex) {
      if (const auto known = owner_.find(at); known != owner_.end()) {
        found = known->second;
        break;
      }
      path.push_back(at);
      if (ops_.input_dims[static_cast<size_t>(at)] != StringPool::kEmpty) {
        found = at;
        break;
      }
      at = ops_.parent[static_cast<size_t>(at)];
    }
    for (int32_t p : path) owner_[p] = found;
    return found;
  }

 private:
  const model::HostOps& ops_;
  // Only the step's launchers and their ancestors: a table over every host
  // op of the rank would cost the whole trace once per step.
  std::unordered_map<int32_t, int32_t> owner_;
};

// The device the step's events ran on, by the trace's deviceProperties: the
// entry whose id is the events' most common device, else the one name all
// entries share.
std::string DeviceName(const model::RankProfile& profile, int32_t step) {
  const std::vector<model::DeviceProperties>& devices = profile.timeline.devices;
  if (devices.empty()) return {};
  std::map<int32_t, int64_t> by_device;
  for (uint32_t i : profile.device_events.RowsOf(step))
    ++by_device[profile.device_events.device[i]];
  const auto top =
      std::max_element(by_device.begin(), by_device.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  if (top != by_device.end()) {
    for (const model::DeviceProperties& d : devices) {
      if (d.id == top->first) return d.name;
    }
  }
  for (const model::DeviceProperties& d : devices) {
    if (d.name != devices.front().name) return {};
  }
  return devices.front().name;
}

bool Timed(model::ActivityKind kind) {
  return kind == model::ActivityKind::kCompute || kind == model::ActivityKind::kMemset;
}

// Device time per (op, shapes, dtypes) of |step|; calls counted once per
// kernel_details row or per owning host op.
std::map<Key, Accumulator> Accumulate(const model::RankProfile& profile, int32_t step,
                                      OperatorEfficiency* out) {
  const model::DeviceEvents& events = profile.device_events;
  const model::HostOps& ops = profile.timeline.host_ops;
  ShapeOwners owners(ops);
  std::map<Key, Accumulator> by_key;
  auto owner_key = [&ops](size_t o) -> Key {
    return {ops.name[o], ops.input_dims[o], ops.input_types[o], StringPool::kEmpty};
  };
  // A host op's kernels count one call: the owners seen, counted once each
  // after the walk (a set of them allocated a node per owner, thousands a
  // step).
  std::vector<int32_t> owners_seen;
  for (uint32_t i : events.RowsOf(step)) {
    if (!Timed(events.kind[i])) continue;
    AddSaturating(out->device_ns, events.duration_ns[i]);
    if (const model::TensorDescription& tensors = events.tensors_of(i);
        tensors.input_shapes != StringPool::kEmpty) {
      Accumulator& a = by_key[{events.op_type[i], tensors.input_shapes, tensors.input_dtypes,
                               tensors.output_shapes}];
      ++a.count;
      AddSaturating(a.total_ns, events.duration_ns[i]);
      AddSaturating(out->shaped_ns, events.duration_ns[i]);
      continue;
    }
    const int32_t owner = owners.Of(events.launcher[i]);
    if (owner == model::kNoIndex) continue;
    Accumulator& a = by_key[owner_key(static_cast<size_t>(owner))];
    if (owners_seen.empty() || owners_seen.back() != owner) owners_seen.push_back(owner);
    AddSaturating(a.total_ns, events.duration_ns[i]);
    AddSaturating(out->shaped_ns, events.duration_ns[i]);
  }
  std::sort(owners_seen.begin(), owners_seen.end());
  owners_seen.erase(std::unique(owners_seen.begin(), owners_seen.end()), owners_seen.end());
  for (const int32_t owner : owners_seen) ++by_key[owner_key(static_cast<size_t>(owner))].count;
  return by_key;
}

ShapeEfficiency Measure(const model::RankProfile& profile, const Key& key, const Accumulator& a,
                        const std::optional<DevicePeak>& peak) {
  ShapeEfficiency row;
  row.op_type = std::string(profile.strings.Get(std::get<0>(key)));
  row.shapes = std::string(profile.strings.Get(std::get<1>(key)));
  row.dtypes = std::string(profile.strings.Get(std::get<2>(key)));
  row.count = a.count;
  row.total_ns = a.total_ns;
  const std::optional<std::vector<OperandShape>> shapes = ParseShapes(row.shapes);
  if (!shapes) return row;
  const std::vector<std::string> dtypes = ParseDtypes(row.dtypes);
  const std::optional<std::vector<OperandShape>> outputs =
      ParseShapes(profile.strings.Get(std::get<3>(key)));
  const std::optional<MatmulCost> matmul =
      MatmulCostOf(row.op_type, *shapes, outputs ? &*outputs : nullptr);
  if (matmul) {
    row.matmul = true;
    row.flops = matmul->flops;
    if (peak && matmul->a < dtypes.size())
      row.peak_tflops = PeakTflopsFor(*peak, dtypes[matmul->a]);
  }
  row.bytes = BytesMoved(*shapes, dtypes, matmul, &row.bytes_include_output);
  return row;
}

// A's type of a matmul row: the yardstick compares like with like.
std::string MatmulDtype(const ShapeEfficiency& row) {
  const std::optional<std::vector<OperandShape>> shapes = ParseShapes(row.shapes);
  const std::vector<std::string> dtypes = ParseDtypes(row.dtypes);
  if (!shapes) return {};
  const std::optional<MatmulCost> m = MatmulCostOf(row.op_type, *shapes);
  return m && m->a < dtypes.size() ? NormalisedDtype(dtypes[m->a]) : std::string();
}

void SetYardsticks(std::vector<ShapeEfficiency>* rows, int64_t matmul_ns, double min_share) {
  std::map<std::string, const ShapeEfficiency*> best;  // by dtype
  std::vector<std::string> dtype_of(rows->size());
  for (size_t r = 0; r < rows->size(); ++r) {
    const ShapeEfficiency& row = (*rows)[r];
    if (!row.matmul) continue;
    dtype_of[r] = MatmulDtype(row);
    const double share = matmul_ns > 0 ? static_cast<double>(row.total_ns) / matmul_ns : 0;
    if (share < min_share || !row.Tflops()) continue;
    const ShapeEfficiency*& b = best[dtype_of[r]];
    if (b == nullptr || *row.Tflops() > *b->Tflops()) b = &row;
  }
  std::map<std::string, std::pair<double, std::string>> yardstick;
  for (const auto& [dtype, row] : best) {
    yardstick[dtype] = {*row->Tflops(), row->op_type + " " + row->shapes};
  }
  for (size_t r = 0; r < rows->size(); ++r) {
    auto found = yardstick.find(dtype_of[r]);
    if (!(*rows)[r].matmul || found == yardstick.end()) continue;
    (*rows)[r].yardstick_tflops = found->second.first;
    (*rows)[r].yardstick_shapes = found->second.second;
  }
}

void Cut(std::vector<ShapeEfficiency>* rows, const OperatorEfficiencyOptions& options) {
  std::sort(rows->begin(), rows->end(), [](const ShapeEfficiency& a, const ShapeEfficiency& b) {
    return std::tie(b.total_ns, a.op_type, a.shapes, a.dtypes) <
           std::tie(a.total_ns, b.op_type, b.shapes, b.dtypes);
  });
  std::vector<ShapeEfficiency> kept;
  size_t matmuls = 0, others = 0;
  for (ShapeEfficiency& row : *rows) {
    size_t& n = row.matmul ? matmuls : others;
    if (n >= (row.matmul ? options.max_matmul_rows : options.max_other_rows)) continue;
    ++n;
    kept.push_back(std::move(row));
  }
  // Kept at its size: every step's rows live until the job's step is
  // chosen, and the list grew by doubling.
  kept.shrink_to_fit();
  *rows = std::move(kept);
}

}  // namespace

std::optional<double> ShapeEfficiency::Tflops() const {
  if (!flops || total_ns <= 0) return std::nullopt;
  return *flops * static_cast<double>(count) / static_cast<double>(total_ns) / 1e3;
}
std::optional<double> ShapeEfficiency::Gbps() const {
  if (!bytes || total_ns <= 0) return std::nullopt;
  return *bytes * static_cast<double>(count) / static_cast<double>(total_ns);
}
std::optional<double> ShapeEfficiency::FlopsPerByte() const {
  if (!flops || !bytes || *bytes <= 0) return std::nullopt;
  return *flops / *bytes;
}
std::optional<double> ShapeEfficiency::PeakPct() const {
  const std::optional<double> achieved = Tflops();
  if (!achieved || !peak_tflops || *peak_tflops <= 0) return std::nullopt;
  return *achieved / *peak_tflops * 100;
}
std::optional<double> ShapeEfficiency::RelativePct() const {
  const std::optional<double> achieved = Tflops();
  if (!achieved || !yardstick_tflops || *yardstick_tflops <= 0) return std::nullopt;
  return *achieved / *yardstick_tflops * 100;
}
double ShapeEfficiency::MeanNs() const {
  return count > 0 ? static_cast<double>(total_ns) / static_cast<double>(count) : 0;
}

std::optional<OperatorEfficiency> ComputeOperatorEfficiency(
    const model::RankProfile& profile, int32_t step, const OperatorEfficiencyOptions& options) {
  OperatorEfficiency out;
  const std::map<Key, Accumulator> by_key = Accumulate(profile, step, &out);
  if (by_key.empty()) return std::nullopt;
  out.device = DeviceName(profile, step);
  const std::optional<DevicePeak> peak = FindDevicePeak(out.device);
  if (peak) {
    out.peak_device = std::string(peak->device);
    out.peak_gbps = peak->bandwidth_gbps;
  }
  out.shapes = static_cast<int64_t>(by_key.size());
  out.rows.reserve(by_key.size());
  for (const auto& [key, a] : by_key) {
    out.rows.push_back(Measure(profile, key, a, peak));
    if (out.rows.back().matmul) AddSaturating(out.matmul_ns, a.total_ns);
  }
  SetYardsticks(&out.rows, out.matmul_ns, options.yardstick_min_share);
  Cut(&out.rows, options);
  return out;
}

}  // namespace trainscope::analysis
