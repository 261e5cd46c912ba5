#include "synth/kernel_details_writer.h"

#include <algorithm>
#include <cmath>

namespace trainscope::synth {
namespace {

constexpr char kPipeMetrics[] =
    "aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),"
    "aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,"
    "aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,"
    "aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),"
    "aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)";
constexpr char kShapeColumns[] =
    "Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Output "
    "Formats,Context ID";
// AI Core clock (MHz) used to turn busy time into cycle counts.
constexpr int64_t kCoreMhz = 1650;
constexpr int kComputeStreamId = 2;

int CountColumns(const std::string& header) {
  return 1 + static_cast<int>(std::count(header.begin(), header.end(), ','));
}

// Columns up to and including Block Dim/Num: the part a comm row fills in.
int LeadingColumns(const std::string& header) {
  size_t pos = header.find(",Block Dim");
  if (pos == std::string::npos) pos = header.find(",Block Num");
  return 1 +
         static_cast<int>(
             std::count(header.begin(), header.begin() + static_cast<long>(pos), ',')) +
         1;
}

// A ratio in thousandths: the spec's value jittered by a random byte.
int64_t Thousandths(double base, uint8_t noise) {
  const int64_t value = std::llround(base * 1000.0) + (static_cast<int>(noise) - 128) / 4;
  return std::clamp<int64_t>(value, 0, 1000);
}

}  // namespace

std::string KernelDetailsHeader(HeaderVariant variant) {
  const std::string common_tail = fmt::format(",{},{}", kShapeColumns, kPipeMetrics);
  switch (variant) {
    case HeaderVariant::kCann83:
      return "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator "
             "Core,Start Time(us),"
             "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible" +
             common_tail;
    case HeaderVariant::kLevel1_2025:
      return "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start "
             "Time(us),"
             "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible" +
             common_tail;
    case HeaderVariant::kCann2026:
      return "Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator "
             "Core,Start Time(us),"
             "Duration(us),Wait Time(us),Block Num,Mix Block Num,HF32 Eligible" +
             common_tail;
    case HeaderVariant::kLegacy2023:
      return std::string(
                 "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start "
                 "Time(us),Duration(us),"
                 "Wait Time(us),Block Dim,Mix Block Dim,") +
             kShapeColumns +
             ",aicore_time(us),aic_total_cycles,aic_mac_fp16_ratio,aic_mac_int8_ratio,aic_cube_"
             "fops,"
             "aic_vector_fops,aiv_time(us),aiv_total_cycles,aiv_vec_fp32_ratio,aiv_vec_fp16_ratio,"
             "aiv_vec_int32_ratio,aiv_vec_misc_ratio,aiv_cube_fops,aiv_vector_fops";
  }
  return "";
}

KernelDetailsWriter::KernelDetailsWriter(const KernelCatalog& catalog, HeaderVariant variant,
                                         int device_id, Rng metric_rng)
    : catalog_(catalog),
      variant_(variant),
      legacy_(variant == HeaderVariant::kLegacy2023),
      rng_(metric_rng),
      totals_(catalog.size()) {
  const bool has_device = variant == HeaderVariant::kCann83 || variant == HeaderVariant::kCann2026;
  row_prefix_ = has_device ? fmt::format(",{},4294967295,", device_id) : ",4294967295,";
  // CANN 8.3 renamed the HCCL task type to COMMUNICATION.
  comm_core_ = has_device ? "COMMUNICATION" : "HCCL";
  for (size_t id = 0; id < catalog.size(); ++id) {
    const KernelSpec& s = catalog.spec(static_cast<SpecId>(id));
    if (legacy_) {
      mid_.push_back(fmt::format(",{},{},{},", s.name, s.type, CoreName(s.core)));
      static_.push_back(fmt::format("{},{},{},{},{},{},{},{},N/A,", s.block_dim, s.mix_block_dim,
                                    s.input_shapes, s.input_types, s.input_formats, s.output_shapes,
                                    s.output_types, s.output_formats));
    } else {
      mid_.push_back(fmt::format(",{},{},dynamic,{},", s.name, s.type, CoreName(s.core)));
      static_.push_back(fmt::format("{},{},NO,{},{},{},{},{},{},N/A,", s.block_dim, s.mix_block_dim,
                                    s.input_shapes, s.input_types, s.input_formats, s.output_shapes,
                                    s.output_types, s.output_formats));
    }
  }
  const std::string header = KernelDetailsHeader(variant);
  const int na = CountColumns(header) - LeadingColumns(header);
  for (int i = 0; i < na; ++i) comm_na_tail_ += ",N/A";
}

Status KernelDetailsWriter::Open(const std::string& path) {
  TS_RETURN_IF_ERROR(file_.Open(path));
  AppendStr(file_.buffer(), KernelDetailsHeader(variant_));
  AppendStr(file_.buffer(), "\r\n");
  return Status::Ok();
}

Status KernelDetailsWriter::WriteStep(int step, const StepPlan& plan) {
  size_t c = 0;
  size_t m = 0;
  while (c < plan.compute.size() || m < plan.comm.size()) {
    const bool take_comm =
        m < plan.comm.size() &&
        (c == plan.compute.size() || plan.comm[m].start_ns <= plan.compute[c].start_ns);
    if (take_comm) {
      CommRow(step, plan.comm[m++]);
    } else {
      ComputeRow(step, plan.compute[c++]);
    }
    TS_RETURN_IF_ERROR(file_.MaybeFlush());
  }
  return Status::Ok();
}

Status KernelDetailsWriter::Close() { return file_.Close(); }

void KernelDetailsWriter::AppendStart(int64_t ns) {
  fmt::memory_buffer& b = file_.buffer();
  if (legacy_) {
    AppendUs(b, ns, 1);  // 2023 data: fewer decimals, no Excel guard
  } else {
    AppendUs(b, ns, 3);
    b.push_back('\t');
  }
}

void KernelDetailsWriter::AppendWait(int64_t ns) {
  fmt::memory_buffer& b = file_.buffer();
  if (ns <= 0) {
    b.push_back('0');
  } else if (variant_ == HeaderVariant::kCann83 || variant_ == HeaderVariant::kCann2026) {
    AppendFixed(b, ns * 1000, 6);  // std::to_string in the 8.3 C++ writer
  } else {
    AppendUs(b, ns, legacy_ ? 1 : 3);
  }
}

void KernelDetailsWriter::ComputeRow(int step, const PlantedKernel& k) {
  fmt::memory_buffer& b = file_.buffer();
  const KernelSpec& spec = catalog_.spec(k.spec);
  SpecTotals& t = totals_[k.spec];
  if (t.count == 0 || k.dur_ns < t.min_ns) t.min_ns = k.dur_ns;
  t.max_ns = std::max(t.max_ns, k.dur_ns);
  ++t.count;
  t.total_ns += k.dur_ns;

  AppendInt(b, step);
  AppendStr(b, row_prefix_);
  AppendInt(b, task_id_);
  task_id_ = task_id_ == 65535 ? 0 : task_id_ + 1;
  b.push_back(',');
  AppendInt(b, kComputeStreamId);
  AppendStr(b, mid_[k.spec]);
  AppendStart(k.start_ns);
  b.push_back(',');
  AppendUs(b, k.dur_ns, legacy_ ? 2 : 3);
  b.push_back(',');
  AppendWait(last_compute_end_ < 0 ? 0 : k.start_ns - last_compute_end_);
  last_compute_end_ = k.start_ns + k.dur_ns;
  b.push_back(',');
  AppendStr(b, static_[k.spec]);
  if (legacy_) {
    AppendArithmeticMetrics(spec, k.dur_ns);
  } else {
    AppendPipeMetrics(spec, k.dur_ns);
  }
  AppendStr(b, "\r\n");
}

void KernelDetailsWriter::CommRow(int step, const PlantedKernel& k) {
  fmt::memory_buffer& b = file_.buffer();
  const KernelSpec& spec = catalog_.spec(k.spec);
  AppendInt(b, step);
  AppendStr(b, row_prefix_);
  AppendStr(b, "N/A,N/A,");
  AppendStr(b, spec.name);
  AppendInt(b, k.seq);
  AppendStr(b, "_1,");
  AppendStr(b, spec.type);
  AppendStr(b, legacy_ ? "," : ",N/A,");
  AppendStr(b, comm_core_);
  b.push_back(',');
  AppendStart(k.start_ns);
  b.push_back(',');
  AppendUs(b, k.dur_ns, legacy_ ? 2 : 3);
  b.push_back(',');
  AppendWait(last_comm_end_ < 0 ? 0 : k.start_ns - last_comm_end_);
  last_comm_end_ = k.start_ns + k.dur_ns;
  AppendStr(b, ",0");
  AppendStr(b, comm_na_tail_);
  AppendStr(b, "\r\n");
}

// PipeUtilization columns. The cube (aic_*) half is zero for vector-only
// kernels and vice versa, as in real data.
void KernelDetailsWriter::AppendPipeMetrics(const KernelSpec& spec, int64_t dur_ns) {
  fmt::memory_buffer& b = file_.buffer();
  const uint64_t noise = rng_.Next();
  auto byte = [noise](int i) { return static_cast<uint8_t>(noise >> (8 * i)); };
  // Busy time is a little below the task duration (launch and completion).
  const int64_t busy_ns = dur_ns - dur_ns * (10 + byte(0) % 60) / 1000;
  const bool cube = spec.core != Core::kAiVectorCore;
  const bool vector = spec.core != Core::kAiCore;
  auto pair = [&](int64_t ratio_milli) {
    AppendUs(b, busy_ns * ratio_milli / 1000, 3);
    b.push_back(',');
    AppendFixed(b, ratio_milli, 3);
    b.push_back(',');
  };
  int64_t mac = 0;
  if (cube) {
    mac = Thousandths(spec.mac, byte(1));
    AppendUs(b, busy_ns, 3);
    b.push_back(',');
    AppendInt(b, busy_ns * kCoreMhz * spec.block_dim / 1000);
    b.push_back(',');
    pair(mac);
    pair(Thousandths(0.06, byte(2)));
    pair(Thousandths(spec.mac * 0.35, byte(3)));
    pair(Thousandths(spec.mte2, byte(4)));
    pair(Thousandths(0.11, byte(5)));
    AppendStr(b, "0.002,");
  } else {
    AppendStr(b, "0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,");
  }
  if (vector) {
    AppendUs(b, busy_ns, 3);
    b.push_back(',');
    AppendInt(
        b, busy_ns * kCoreMhz * (spec.mix_block_dim ? spec.mix_block_dim : spec.block_dim) / 1000);
    b.push_back(',');
    pair(Thousandths(spec.vec, byte(6)));
    pair(Thousandths(0.05, byte(7)));
    pair(Thousandths(spec.mte2, byte(4)));
    pair(Thousandths(spec.mte2 * 0.6, byte(3)));
    AppendStr(b, "0.004,");
  } else {
    AppendStr(b, "0.0,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,");
  }
  AppendFixed(b, cube ? mac * 95 : 0, 3);  // cube_utilization(%)
}

// ArithmeticUtilization columns of the 2023 layout.
void KernelDetailsWriter::AppendArithmeticMetrics(const KernelSpec& spec, int64_t dur_ns) {
  fmt::memory_buffer& b = file_.buffer();
  const uint64_t noise = rng_.Next();
  const int64_t busy_ns = dur_ns - dur_ns * (10 + (noise & 0xff) % 60) / 1000;
  const int64_t cycles = busy_ns * kCoreMhz * std::max(1, spec.block_dim) / 1000;
  if (spec.core != Core::kAiVectorCore) {
    AppendUs(b, busy_ns, 2);
    b.push_back(',');
    AppendInt(b, cycles);
    b.push_back(',');
    AppendFixed(b, Thousandths(spec.mac, static_cast<uint8_t>(noise >> 8)), 3);
    AppendStr(b, ",0.0,");
    AppendInt(b, cycles * 16);
    AppendStr(b, ",0,");
  } else {
    AppendStr(b, "0.0,0,0.0,0.0,0,0,");
  }
  if (spec.core != Core::kAiCore) {
    AppendUs(b, busy_ns, 2);
    b.push_back(',');
    AppendInt(b, cycles);
    b.push_back(',');
    const int64_t vec = Thousandths(spec.vec, static_cast<uint8_t>(noise >> 16));
    AppendFixed(b, vec / 2, 3);
    b.push_back(',');
    AppendFixed(b, vec - vec / 2, 3);
    AppendStr(b, ",0.0,0.01,0,");
    AppendInt(b, cycles * 8);
  } else {
    AppendStr(b, "0.0,0,0.0,0.0,0.0,0.0,0,0");
  }
}

}  // namespace trainscope::synth
