#include "synth/synth.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>
#include <vector>

#include "core/atomic_write.h"
#include "synth/ascend_writer.h"
#include "synth/comm_json_writer.h"
#include "synth/ground_truth.h"
#include "synth/kernel_catalog.h"
#include "synth/kernel_details_writer.h"
#include "synth/manifest.h"
#include "synth/memory_writer.h"
#include "synth/model_schedule.h"
#include "synth/parallel_layout.h"
#include "synth/rng.h"
#include "synth/step_trace.h"
#include "synth/trace_view_writer.h"

namespace trainscope::synth {
namespace {

namespace fs = std::filesystem;

// The host's preparation of a step before its first device task (the
// Preparing phase of ProfilerStep), drawn per rank and step.
constexpr double kPrepareMinUs = 120.0;
constexpr double kPrepareMaxUs = 400.0;
// Host skew model (docs/synth.md): unbound ranks drift across NUMA nodes and
// arrive up to SynthOptions::host_skew_ms apart. Binding removes the drift;
// what is left is that ranks prepare the step in different times, so bound
// ranks arrive within the range of the preparation draw. Synth takes no
// number from the detectors (data/thresholds.tsv): the clean twin is clean
// because binding leaves less than a tenth of a percent of its step.
constexpr double kBoundSpreadUs = kPrepareMaxUs - kPrepareMinUs;
constexpr uint64_t kSkewSalt = 0x5CE3;
constexpr uint64_t kMetricSalt = 0xAC0E;

// The hosts and the planted clock offset.
Status ValidateHosts(const SynthOptions& o) {
  if (o.hosts < 1 || o.hosts > o.ranks) return UsageError("synth: hosts must be in [1, ranks]");
  if (o.clock_offset_host >= o.hosts)
    return UsageError("synth: the clock offset's host must be < hosts");
  if (!(std::abs(o.clock_offset_ms) <= 60000.0))
    return UsageError("synth: clock_offset_ms must be within +-60000");
  return Status::Ok();
}

// How much longer rank |r|'s data loader takes than the others' (the late
// rank spends its lateness there).
int64_t LateLoaderNs(const SynthOptions& options, int r, int64_t tick_ns) {
  return r == options.late_rank ? UsToTicks(options.late_ms * 1000.0, tick_ns) : 0;
}

// The planted cluster faults: each names ranks of the job and a size in range.
Status ValidateClusterFaults(const SynthOptions& o) {
  if (o.straggler_rank >= o.ranks) return UsageError("synth: straggler_rank must be < ranks");
  if (o.late_rank >= o.ranks) return UsageError("synth: late_rank must be < ranks");
  if (o.host_bound_rank >= o.ranks) return UsageError("synth: host_bound_rank must be < ranks");
  if (!(o.dispatch_us > 0.0) || o.dispatch_us > 10000.0)
    return UsageError("synth: dispatch_us must be in (0, 10000]");
  if (!(o.slow_link_share > 0.0) || o.slow_link_share > 1.0)
    return UsageError("synth: slow_link_share must be in (0, 1]");
  if (!(o.late_ms >= 0.0) || o.late_ms > 10000.0)
    return UsageError("synth: late_ms must be in [0, 10000]");
  if (!(o.straggler_slowdown >= 1.0) || o.straggler_slowdown > 10.0)
    return UsageError("synth: straggler_slowdown must be in [1, 10]");
  if (o.slow_link &&
      (o.ranks < 2 || o.slow_link_src < 0 || o.slow_link_dst < 0 || o.slow_link_src >= o.ranks ||
       o.slow_link_dst >= o.ranks || o.slow_link_src == o.slow_link_dst))
    return UsageError("synth: slow_link needs two different ranks < ranks");
  return Status::Ok();
}

}  // namespace

Status ValidateSynthOptions(const SynthOptions& o) {
  if (o.ranks < 1 || o.ranks > 16384) return UsageError("synth: ranks must be in [1, 16384]");
  if (o.layers < 1 || o.layers > 100000) return UsageError("synth: layers must be in [1, 100000]");
  if (o.micro_batches < 1) return UsageError("synth: micro_batches must be >= 1");
  if (o.steps < 1 || o.steps > 10000) return UsageError("synth: steps must be in [1, 10000]");
  if (o.first_step < 0) return UsageError("synth: first_step must be >= 0");
  if (o.hidden < 64 || o.hidden > 65536) return UsageError("synth: hidden must be in [64, 65536]");
  if (o.vocab < 1000 || o.vocab > 10000000)
    return UsageError("synth: vocab must be in [1000, 10000000]");
  if (!(o.scale > 0.0) || o.scale > 100000.0)
    return UsageError("synth: scale must be in (0, 100000]");
  if (!(o.host_skew_ms >= 0.0) || o.host_skew_ms > 10000.0)
    return UsageError("synth: host_skew_ms must be in [0, 10000]");
  TS_RETURN_IF_ERROR(ValidateClusterFaults(o));
  TS_RETURN_IF_ERROR(ValidateHosts(o));
  if (o.tp < 1 || o.pp < 1 || o.ep < 1 || o.ranks % (o.tp * o.pp) != 0)
    return UsageError("synth: tp and pp must be >= 1 and tp * pp must divide ranks");
  if ((o.ranks / (o.tp * o.pp)) % o.ep != 0)
    return UsageError("synth: ep must divide the data-parallel size ranks / (tp * pp)");
  if (o.layers % o.pp != 0) return UsageError("synth: pp must divide layers");
  if (!(o.slowdown > 0.0) || o.slowdown > 10.0)
    return UsageError("synth: slowdown must be in (0, 10]");
  if (!(o.slow_op_factor > 0.0) || o.slow_op_factor > 10.0)
    return UsageError("synth: slow_op_factor must be in (0, 10]");
  if (o.with_stack && !o.trace_view)
    return UsageError("synth: with_stack needs trace_view (the frames live in trace_view.json)");
  if (o.name.empty() || o.name.size() > 64 ||
      !std::all_of(o.name.begin(), o.name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
      })) {
    return UsageError("synth: name must be 1-64 characters of [A-Za-z0-9._-]");
  }
  return Status::Ok();
}

namespace {

Status PrepareDir(const std::string& dir, bool create) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(dir, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status))
      return UsageError("synth: " + dir + " exists and is not a directory" +
                        (fs::is_symlink(status) ? " (a symlink)" : "") +
                        "\nhint: give a new or empty directory with --out");
    if (!fs::is_empty(dir, ec))
      return UsageError(
          "synth: " + dir +
          " is not empty\nhint: give a new or empty directory with --out; synth never writes "
          "into a used one");
    return Status::Ok();
  }
  if (!create) return Status::Ok();
  fs::create_directories(dir, ec);
  if (ec) return IoError(fmt::format("synth: cannot create {}: {}", dir, ec.message()));
  return Status::Ok();
}

// A new directory beside |final|, named as AtomicFileWriter names its
// temporaries (.NAME.trainscope-tmp-PID-N), so that a killed run's is
// recognised and removed by the next one.
Result<std::string> MakeStagingDir(const fs::path& parent, const std::string& name) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string staging =
        (parent / fmt::format(".{}.trainscope-tmp-{}-{}", name, ::getpid(), counter.fetch_add(1)))
            .string();
    if (::mkdir(staging.c_str(), 0777) == 0) return staging;
    if (errno != EEXIST) {
      return IoError(
          fmt::format("synth: cannot create a directory in {}: {}\nhint: nothing was "
                      "written",
                      parent.string(), std::strerror(errno)));
    }
  }
  return IoError(fmt::format("synth: cannot create a directory in {}: {}", parent.string(),
                             std::strerror(EEXIST)));
}

// Per-rank arrival offsets of one step: the spread between the first and the
// last rank is the article's, the order of ranks is random.
std::vector<int64_t> DrawSkews(int ranks, bool numa_bound, double host_skew_ms, int64_t tick_ns,
                               Rng& rng) {
  std::vector<int64_t> skews(ranks, 0);
  if (ranks < 2) return skews;
  const double spread_us =
      (numa_bound ? kBoundSpreadUs : host_skew_ms * 1000.0) * rng.Uniform(0.95, 1.05);
  std::vector<double> u(ranks);
  for (double& x : u) x = rng.Uniform();
  const auto [lo, hi] = std::minmax_element(u.begin(), u.end());
  const double lo_v = *lo;
  const double range = std::max(1e-9, *hi - lo_v);
  const long earliest = lo - u.begin();
  for (int r = 0; r < ranks; ++r) {
    skews[r] = r == earliest ? 0 : UsToTicks((u[r] - lo_v) / range * spread_us, tick_ns);
  }
  return skews;
}

// Builds one step on every rank with collectives coupled across ranks: a
// collective ends only when the last rank has done its part. Starts depend
// on earlier collectives' ends, so the floors are iterated to a fixed point
// (they only grow; each round settles at least one more collective). The
// PRNG state is replayed each round, so durations are identical every round.
// Per rank and comm op, the latest of |value_of(plan, k)| over every rank's
// op with the same key (StepPlan::comm_key).
template <typename ValueOf>
std::vector<std::vector<int64_t>> LatestPerKey(const std::vector<StepPlan>& plans,
                                               ValueOf value_of) {
  std::map<uint64_t, int64_t> latest;
  for (const StepPlan& plan : plans) {
    for (size_t k = 0; k < plan.comm_key.size(); ++k) {
      auto [it, inserted] = latest.try_emplace(plan.comm_key[k], value_of(plan, k));
      if (!inserted) it->second = std::max(it->second, value_of(plan, k));
    }
  }
  std::vector<std::vector<int64_t>> out(plans.size());
  for (size_t r = 0; r < plans.size(); ++r) {
    for (uint64_t key : plans[r].comm_key) out[r].push_back(latest[key]);
  }
  return out;
}

// Where each rank sits in the layout, as the schedule needs it.
std::vector<RankRole> RolesOf(const SynthOptions& options, const KernelCatalog& catalog) {
  const ParallelLayout layout(options);
  const Chains& c = catalog.chains();
  std::vector<RankRole> roles(options.ranks);
  for (int r = 0; r < options.ranks; ++r) {
    RankRole& role = roles[r];
    const RankPlace& place = layout.place(r);
    auto group = [&](GroupKind kind) {
      return static_cast<uint64_t>(place.group_index[static_cast<int>(kind)]);
    };
    role.stage = place.stage;
    role.stages = layout.pp();
    role.tp = layout.tp();
    role.fsdp = layout.fsdp();
    role.moe = layout.ep() > 1;
    role.tp_group = group(GroupKind::kTensor);
    role.pp_group = group(GroupKind::kPipeline);
    role.ep_group = group(GroupKind::kExpert);
    role.dp_group = group(GroupKind::kData);
    if (!c.comm_tp_all_reduce.empty()) role.tp_all_reduce = c.comm_tp_all_reduce[role.tp_group];
    if (!c.comm_p2p.empty()) role.p2p = c.comm_p2p[role.pp_group];
    if (!c.comm_all_to_all.empty()) role.all_to_all = c.comm_all_to_all[role.ep_group];
    role.has_dp_all_reduce = !c.comm_dp_all_reduce.empty();
    if (role.has_dp_all_reduce) role.dp_all_reduce = c.comm_dp_all_reduce[role.dp_group];
  }
  return roles;
}

template <typename Ranks>
void BuildCoupledStep(const KernelCatalog& catalog, const SynthOptions& options,
                      const ScheduleShape& shape, int64_t step_base,
                      const std::vector<int64_t>& skews, int64_t barrier_end,
                      const std::vector<RankRole>& roles, Ranks& ranks,
                      std::vector<StepPlan>* plans) {
  const size_t n = ranks.size();
  std::vector<RankState> saved;
  saved.reserve(n);
  for (auto& out : ranks) saved.push_back(out.state);
  std::vector<StepCoupling> coupling(n);
  for (size_t r = 0; r < n; ++r) {
    if (static_cast<int>(r) == options.straggler_rank) {
      coupling[r].compute_slowdown = options.straggler_slowdown;
    }
    if (static_cast<int>(r) == options.host_bound_rank) {
      coupling[r].dispatch_ns = std::llround(options.dispatch_us * 1000.0);
    }
    if (options.slow_link && (static_cast<int>(r) == options.slow_link_src ||
                              static_cast<int>(r) == options.slow_link_dst)) {
      coupling[r].world_comm_slowdown = 1.0 / options.slow_link_share;
    }
  }
  std::vector<std::vector<int64_t>> floors(n);
  for (int round = 0; round < 1000; ++round) {
    for (size_t r = 0; r < n; ++r) {
      ranks[r].state = saved[r];
      coupling[r].floors = floors[r];
      BuildStep(catalog, options, shape, step_base + skews[r], barrier_end, &ranks[r].state,
                &(*plans)[r], coupling[r], roles[r]);
    }
    if (n < 2) return;
    std::vector<std::vector<int64_t>> next =
        LatestPerKey(*plans, [](const StepPlan& plan, size_t k) { return plan.comm_own_end[k]; });
    if (next == floors) return;
    floors = std::move(next);
  }
}

struct RankOutput {
  std::string dir;
  std::unique_ptr<KernelDetailsWriter> writer;
  std::unique_ptr<CommJsonWriter> comm_json;
  std::unique_ptr<TraceViewWriter> trace_view;  // null unless options.trace_view
  std::unique_ptr<MemoryWriter> memory;         // null unless options.memory
  std::vector<StepTraceRow> trace_rows;
  RankState state;
};

}  // namespace

SynthOptions AllFused(SynthOptions options) {
  options.fused_rmsnorm = true;
  options.fused_gated_norm = true;
  options.fused_swiglu = true;
  options.fused_cross_entropy = true;
  options.native_custom_op = true;
  options.unshard_on_compute_stream = true;
  options.numa_bound = true;
  return options;
}

namespace {

// The first rank's process id in the directory names (any plausible pid).
constexpr int kFirstPid = 41200;

// Ranks fill the hosts in order, ceil(ranks / hosts) each.
int HostOfRank(const SynthOptions& options, int rank) {
  const int per_host = (options.ranks + options.hosts - 1) / std::max(1, options.hosts);
  return rank / std::max(1, per_host);
}

// torch_npu's {worker_name}_{timestamp}_ascend_pt, worker_name being
// {hostname}_{pid}, once the job has hosts; else the rank in the name.
std::string RankDirName(const SynthOptions& options, int rank, std::string_view timestamp) {
  if (options.hosts <= 1)
    return fmt::format("{}_rank{}_{}_ascend_pt", options.name, rank, timestamp);
  return fmt::format("{}-node{}_{}_{}_ascend_pt", options.name, HostOfRank(options, rank),
                     kFirstPid + rank, timestamp);
}

// Every time of |plan| read on a clock |offset_ns| ahead.
void ShiftPlan(int64_t offset_ns, StepPlan* plan) {
  for (PlantedKernel& k : plan->compute) k.start_ns += offset_ns;
  for (PlantedKernel& k : plan->comm) k.start_ns += offset_ns;
  for (int64_t& end : plan->comm_own_end) end += offset_ns;
  plan->end_ns += offset_ns;
}

// The job's files, into |out_dir| (empty).
Status WriteJobFiles(const SynthOptions& options, const std::string& out_dir) {
  const KernelCatalog catalog(options);
  ScheduleShape shape;
  shape.layers = options.layers;
  shape.micro_batches =
      static_cast<int>(std::max<long long>(1, std::llround(options.micro_batches * options.scale)));
  const VariantTraits traits = TraitsOf(options.header);

  JobTruth truth;
  truth.options = options;
  truth.shape = shape;
  std::vector<RankOutput> ranks;
  ranks.reserve(options.ranks);
  for (int r = 0; r < options.ranks; ++r) {
    RankOutput out{RankDirName(options, r, traits.dir_timestamp),
                   nullptr,
                   std::make_unique<CommJsonWriter>(catalog, options, r),
                   nullptr,
                   nullptr,
                   {},
                   RankState(Rng(options.seed, static_cast<uint64_t>(r) + 1))};
    const int device_id = r % 8;
    const std::string profiler_dir = out_dir + "/" + out.dir + "/ASCEND_PROFILER_OUTPUT";
    std::error_code ec;
    fs::create_directories(profiler_dir, ec);
    if (ec) return IoError(fmt::format("synth: cannot create {}: {}", profiler_dir, ec.message()));
    out.writer = std::make_unique<KernelDetailsWriter>(
        catalog, options.header, device_id,
        Rng(options.seed ^ kMetricSalt, static_cast<uint64_t>(r) + 1));
    TS_RETURN_IF_ERROR(out.writer->Open(profiler_dir + "/kernel_details.csv"));
    if (options.trace_view) {
      out.trace_view = std::make_unique<TraceViewWriter>(catalog, options, r, device_id);
      TS_RETURN_IF_ERROR(out.trace_view->Open(profiler_dir + "/trace_view.json"));
    }
    if (options.memory) {
      out.memory = std::make_unique<MemoryWriter>(options, shape.micro_batches, device_id);
      TS_RETURN_IF_ERROR(out.memory->Open(profiler_dir));
    }
    truth.ranks.push_back({r, device_id, out.dir, {}});
    ranks.push_back(std::move(out));
  }

  Rng skew_rng(options.seed, kSkewSalt);
  const int64_t tick_ns = TickNs(options);
  int64_t step_base = traits.epoch_base_ns;
  std::vector<StepPlan> plans(options.ranks);
  const std::vector<RankRole> roles = RolesOf(options, catalog);
  for (int s = 0; s < options.steps; ++s) {
    const int step = options.first_step + s;
    std::vector<int64_t> skews =
        DrawSkews(options.ranks, options.numa_bound, options.host_skew_ms, tick_ns, skew_rng);
    if (options.late_rank >= 0)
      skews[options.late_rank] += UsToTicks(options.late_ms * 1000.0, tick_ns);
    const int64_t latest = step_base + *std::max_element(skews.begin(), skews.end());
    // The step-start all-reduce is a barrier: it completes everywhere once
    // the latest rank has arrived and the (small) payload has moved.
    const int64_t barrier_end = latest + UsToTicks(skew_rng.Uniform(140.0, 180.0), tick_ns);
    int64_t step_end = barrier_end;
    BuildCoupledStep(catalog, options, shape, step_base, skews, barrier_end, roles, ranks, &plans);
    // The last arrival at each collective, for communication.json's wait.
    const std::vector<std::vector<int64_t>> last_arrival =
        LatestPerKey(plans, [](const StepPlan& plan, size_t k) { return plan.comm[k].start_ns; });
    // The step's end and the waits are read on the true clock; then each
    // host's ranks write their times on their own.
    for (const StepPlan& plan : plans) step_end = std::max(step_end, plan.end_ns);
    if (options.clock_offset_host >= 0) {
      const int64_t offset = UsToTicks(options.clock_offset_ms * 1000.0, tick_ns);
      for (int r = 0; r < options.ranks; ++r) {
        if (HostOfRank(options, r) == options.clock_offset_host) ShiftPlan(offset, &plans[r]);
      }
    }
    for (int r = 0; r < options.ranks; ++r) {
      RankOutput& out = ranks[r];
      const int64_t arrival = step_base + skews[r];
      const StepPlan& plan = plans[r];
      TS_RETURN_IF_ERROR(out.writer->WriteStep(step, plan));
      out.comm_json->AddStep(step, plan, last_arrival[r]);
      const StepTrace trace = ComputeStepTrace(plan);
      const int64_t preparing = UsToTicks(skew_rng.Uniform(kPrepareMinUs, kPrepareMaxUs), tick_ns);
      out.trace_rows.push_back({step, trace, preparing});
      // The host's work begins Preparing before the first device task; a
      // late rank spent its lateness in its data loader.
      if (out.trace_view) {
        TS_RETURN_IF_ERROR(out.trace_view->WriteStep(step, plan, trace.window_start_ns - preparing,
                                                     LateLoaderNs(options, r, tick_ns)));
      }
      if (out.memory) {
        TS_RETURN_IF_ERROR(out.memory->WriteStep(trace.window_start_ns, trace.window_end_ns));
      }
      truth.ranks[r].steps.push_back({step, static_cast<int64_t>(plan.compute.size()),
                                      static_cast<int64_t>(plan.comm.size()), skews[r],
                                      latest - arrival, trace});
      if (s == 0 && r == 0) truth.counts = plan.counts;
    }
    // Host-side step boundary: logging, data loader, next ProfilerStep.
    step_base = step_end + UsToTicks(skew_rng.Uniform(1500.0, 3000.0), tick_ns);
  }

  for (int r = 0; r < options.ranks; ++r) {
    RankOutput& out = ranks[r];
    const std::string rank_dir = out_dir + "/" + out.dir;
    const int device_id = truth.ranks[r].device_id;
    TS_RETURN_IF_ERROR(out.writer->Close());
    if (out.trace_view) TS_RETURN_IF_ERROR(out.trace_view->Close());
    if (out.memory) {
      TS_RETURN_IF_ERROR(out.memory->Close(traits.epoch_base_ns, step_base));
      truth.memory = out.memory->truth();
    }
    const std::string profiler_dir = rank_dir + "/ASCEND_PROFILER_OUTPUT";
    TS_RETURN_IF_ERROR(out.comm_json->Write(profiler_dir));
    TS_RETURN_IF_ERROR(WriteStepTraceTime(profiler_dir + "/step_trace_time.csv", options.header,
                                          device_id, out.trace_rows));
    TS_RETURN_IF_ERROR(WriteOpStatistic(profiler_dir + "/op_statistic.csv", options.header,
                                        device_id, catalog, out.writer->totals()));
    TS_RETURN_IF_ERROR(WriteProfilerInfo(fmt::format("{}/profiler_info_{}.json", rank_dir, r),
                                         options.header, r, traits.epoch_base_ns, step_base,
                                         options.with_stack));
    TS_RETURN_IF_ERROR(WriteProfilerMetadata(rank_dir + "/profiler_metadata.json", r, options));
  }
  return WriteGroundTruth(out_dir + "/ground_truth.json", catalog, truth);
}

}  // namespace

Status WriteSynthJob(const SynthOptions& options, const std::string& out_dir) {
  TS_RETURN_IF_ERROR(ValidateSynthOptions(options));
  if (out_dir.empty()) {
    return UsageError("synth: the output directory is empty\nhint: give a directory with --out");
  }
  fs::path final_dir(out_dir);
  if (!final_dir.has_filename()) final_dir = final_dir.parent_path();  // "job/"
  const std::string name = final_dir.filename().string();
  if (name.empty() || name == "." || name == "..") {
    // Written in place: "." cannot be renamed onto.
    TS_RETURN_IF_ERROR(PrepareDir(out_dir, /*create=*/true));
    Status written = WriteJobFiles(options, out_dir);
    // Also after a failure (full disk, say): the manifest then lists the
    // part that was written, so `demo --out` can still clear it.
    Status manifest = WriteManifest(out_dir);
    return written.ok() ? manifest : written;
  }
  TS_RETURN_IF_ERROR(PrepareDir(out_dir, /*create=*/false));
  // The job is written into a hidden directory beside DIR, with its
  // manifest, and renamed onto DIR (absent or empty) when complete: a killed
  // run leaves no partial job under DIR, only that directory, which the next
  // run removes (RemoveStaleTemporaries).
  fs::path parent = final_dir.parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return IoError(fmt::format("synth: cannot create {}: {}", parent.string(), ec.message()));
  RemoveStaleTemporaries(parent.string());
  TS_ASSIGN_OR_RETURN(const std::string staging, MakeStagingDir(parent, name));
  Status written = WriteJobFiles(options, staging);
  if (written.ok()) written = WriteManifest(staging);
  if (written.ok() && ::rename(staging.c_str(), final_dir.c_str()) != 0) {
    written =
        IoError(fmt::format("synth: cannot move the finished job onto {}: {}\nhint: it "
                            "must be absent or an empty directory",
                            out_dir, std::strerror(errno)));
  }
  if (!written.ok()) fs::remove_all(staging, ec);  // ours: made by mkdir above
  return written;
}

}  // namespace trainscope::synth
