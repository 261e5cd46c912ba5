#include "analysis/job/rank_result_io.h"

#include <fmt/format.h>

#include <array>
#include <concepts>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/byte_reader.h"
#include "core/byte_writer.h"

namespace trainscope::analysis {
namespace {

// One field list per struct, used by the writer and the reader alike, so
// the two cannot drift apart. The structured binding names every member:
// it does not compile when the struct has more or fewer members than the
// list, so a field added to a struct cannot be forgotten here.
#define TS_FIELDS(visitor, object, ...) \
  auto& [__VA_ARGS__] = object;         \
  visitor.Fields(#object, __VA_ARGS__)

// S is T or const T: the writer visits const objects, the reader mutable ones.
template <class S, class T>
concept Is = std::same_as<std::remove_const_t<S>, T>;

template <class V, Is<RowIssueSample> S>
void VisitFields(V& v, S& sample) {
  TS_FIELDS(v, sample, line, reason, detail);
}
template <class V, Is<model::InputFile> S>
void VisitFields(V& v, S& file) {
  TS_FIELDS(v, file, path, read, reason);
}
template <class V, Is<FileHealth> S>
void VisitFields(V& v, S& health) {
  TS_FIELDS(v, health, file, rows_read, rows_used, rows_skipped, skipped_by_reason, notes_by_reason,
            samples);
}
template <class V, Is<RankSteps> S>
void VisitFields(V& v, S& steps) {
  TS_FIELDS(v, steps, rank, present, spans_ns, iterations);
}
template <class V, Is<StepChoice> S>
void VisitFields(V& v, S& choice) {
  TS_FIELDS(v, choice, step, reason);
}
template <class V, Is<KernelSummary> S>
void VisitFields(V& v, S& kernels) {
  TS_FIELDS(v, kernels, known, count, compute_count, communication_count, copies_known,
            memcpy_count, memset_count, memcpy_time_ns, memset_time_ns, span_ns,
            mean_issue_interval_ns, total_time_ns, p50_ns, p90_ns, p99_ns, max_ns, share_le_50us,
            share_le_100us);
}
template <class V, Is<DensityBin> S>
void VisitFields(V& v, S& bin) {
  TS_FIELDS(v, bin, lo_ns, hi_ns, count, density_per_decade);
}
template <class V, Is<DurationDensity> S>
void VisitFields(V& v, S& density) {
  TS_FIELDS(v, density, bins_per_decade, min_ns, max_ns, below_min, above_max, bins);
}
template <class V, Is<FamilyStat> S>
void VisitFields(V& v, S& family) {
  TS_FIELDS(v, family, name, count, total_ns, share_count, share_time);
}
template <class V, Is<OperatorStat> S>
void VisitFields(V& v, S& op) {
  TS_FIELDS(v, op, op_type, family, count, total_ns, max_ns, share_time, type_derived);
}
template <class V, Is<StepTraceSummary> S>
void VisitFields(V& v, S& trace) {
  TS_FIELDS(v, trace, computing_ns, communication_not_overlapped_ns, overlapped_ns,
            communication_ns, free_ns, stage_ns, bubble_ns, preparing_ns);
}
template <class V, Is<TimeBudget> S>
void VisitFields(V& v, S& budget) {
  TS_FIELDS(v, budget, activities, window_start_ns, window_end_ns, total_ns, busy_ns,
            computation_ns, communication_ns, exposed_communication_ns, memcpy_ns,
            exposed_memcpy_ns, memset_ns, exposed_memset_ns, idle_ns);
}
template <class V, Is<StepBudget> S>
void VisitFields(V& v, S& step_budget) {
  TS_FIELDS(v, step_budget, source, scope, budget, replaced, span, host_step_ns,
            device_busy_span_ns);
}
template <class V, Is<Motif> S>
void VisitFields(V& v, S& motif) {
  TS_FIELDS(v, motif, kernels, occurrences, period_ns, total_ns, share_of_step, fingerprint,
            variant, instance_starts_ns, stream, framework_op, source, attribution, derived_types);
}
template <class V, Is<HostSyncStats> S>
void VisitFields(V& v, S& host_sync) {
  TS_FIELDS(v, host_sync, syncs, item_calls, sync_ns, idle_ns, blocking_copies, site_op,
            site_source, site_idle_ns);
}
template <class V, Is<InputBoundStats> S>
void VisitFields(V& v, S& data_loader) {
  TS_FIELDS(v, data_loader, calls, single_process_calls, loader_ns, idle_ns, idle_in_window_ns,
            step_ns);
}
template <class V, Is<ShapeEfficiency> S>
void VisitFields(V& v, S& row) {
  TS_FIELDS(v, row, op_type, shapes, dtypes, matmul, count, total_ns, flops, bytes,
            bytes_include_output, peak_tflops, yardstick_tflops, yardstick_shapes);
}
template <class V, Is<OperatorEfficiency> S>
void VisitFields(V& v, S& efficiency) {
  TS_FIELDS(v, efficiency, device, peak_device, peak_gbps, device_ns, shaped_ns, matmul_ns, shapes,
            rows);
}
template <class V, Is<LaunchGapStats> S>
void VisitFields(V& v, S& launch_gaps) {
  TS_FIELDS(v, launch_gaps, gaps, idle_ns, gaps_with_launch, launch_bound_gaps, launch_bound_ns,
            median_launch_delay_ns);
}
template <class V, Is<StreamMemory> S>
void VisitFields(V& v, S& pool) {
  TS_FIELDS(v, pool, stream, samples, allocations, live_at_peak_bytes);
}
template <class V, Is<MemoryHolder> S>
void VisitFields(V& v, S& holder) {
  TS_FIELDS(v, holder, name, bytes, allocations);
}
template <class V, Is<ModuleMemory> S>
void VisitFields(V& v, S& module) {
  TS_FIELDS(v, module, component, reserved_bytes);
}
template <class V, Is<MemoryCurvePoint> S>
void VisitFields(V& v, S& point) {
  TS_FIELDS(v, point, ts_ns, allocated_bytes, reserved_bytes);
}
template <class V, Is<MemoryUsage> S>
void VisitFields(V& v, S& memory) {
  TS_FIELDS(v, memory, window_start_ns, window_end_ns, window_from, samples_from, samples,
            peak_allocated_bytes, peak_allocated_ns, peak_reserved_bytes, gap_at_peak_bytes,
            gap_min_bytes, gap_max_bytes, gap_mean_bytes, ge_peak_allocated_bytes,
            ge_peak_reserved_bytes, app_peak_reserved_bytes, streams, live_at_peak_bytes,
            top_holders, modules, start_allocated_bytes, backward_start_ns,
            backward_allocated_bytes, activation_bytes, elementwise_live_at_peak_bytes,
            capacity_bytes, capacity_from, headroom_bytes, curve);
}
template <class V, Is<ModuleNode> S>
void VisitFields(V& v, S& node) {
  TS_FIELDS(v, node, name, parent, calls, host_ns, kernels, kernel_ns, fingerprints);
}
template <class V, Is<ModuleTree> S>
void VisitFields(V& v, S& tree) {
  TS_FIELDS(v, tree, nodes, kernels, outside_kernels, outside_ns);
}
template <class V, Is<OwnedKernel> S>
void VisitFields(V& v, S& kernel) {
  TS_FIELDS(v, kernel, name, op_type, count, total_ns);
}
template <class V, Is<FrameworkOpStat> S>
void VisitFields(V& v, S& op) {
  TS_FIELDS(v, op, name, shapes, shape_variants, calls, kernels, kernel_ns, top_kernels,
            fingerprints);
}
template <class V, Is<FrameworkOps> S>
void VisitFields(V& v, S& framework_ops) {
  TS_FIELDS(v, framework_ops, ops, modules, kernels, kernel_ns, owned_kernels, owned_ns);
}
template <class V, Is<StepDistribution> S>
void VisitFields(V& v, S& distribution) {
  TS_FIELDS(v, distribution, step, kernels, density, families, top_operators, step_trace, breakdown,
            motifs, host_sync, data_loader, operator_efficiency, launch_gaps, memory, module_tree,
            framework_ops, timeline_set_aside);
}
template <class V, Is<TimelineKernel> S>
void VisitFields(V& v, S& kernel) {
  TS_FIELDS(v, kernel, start_ns, duration_ns, lane, op_type, name, family);
}
template <class V, Is<FreeGap> S>
void VisitFields(V& v, S& gap) {
  TS_FIELDS(v, gap, start_ns, duration_ns, before, after);
}
template <class V, Is<ZoomWindow> S>
void VisitFields(V& v, S& zoom) {
  TS_FIELDS(v, zoom, width_ns, start_ns, kernel_count, kernels, requested_width_ns);
}
template <class V, Is<OverviewRun> S>
void VisitFields(V& v, S& run) {
  TS_FIELDS(v, run, first_column, end_column, family, time_ns, kernels);
}
template <class V, Is<ColumnRange> S>
void VisitFields(V& v, S& range) {
  TS_FIELDS(v, range, first_column, end_column);
}
template <class V, Is<TimelineOverview> S>
void VisitFields(V& v, S& overview) {
  TS_FIELDS(v, overview, columns, ns_per_column, lanes, free);
}
template <class V, Is<TrackInstance> S>
void VisitFields(V& v, S& instance) {
  TS_FIELDS(v, instance, motif, start_ns, end_ns);
}
template <class V, Is<TrackLaunch> S>
void VisitFields(V& v, S& launch) {
  TS_FIELDS(v, launch, kernel, start_ns, duration_ns);
}
template <class V, Is<TimelineTrack> S>
void VisitFields(V& v, S& track) {
  TS_FIELDS(v, track, kernels, instance, instances, launches, dropped);
}
template <class V, Is<StepTimeline> S>
void VisitFields(V& v, S& timeline) {
  TS_FIELDS(v, timeline, step, step_start_ns, span_ns, kernel_count, compute_ns, comm_ns, other_ns,
            comm_not_overlapped_ns, p2p_not_overlapped_ns, all_to_all_not_overlapped_ns,
            tensor_parallel_not_overlapped_ns, free_ns, step_start_idle_ns, step_start_waits_for,
            step_start_wait_collective_ns, longest_gaps, zooms, zoom_centre, overview, strings,
            track, drawn, set_aside);
}
template <class V, Is<RankEvidence> S>
void VisitFields(V& v, S& rank_evidence) {
  TS_FIELDS(v, rank_evidence, rank, title, occurrences, estimated_gain_pct, gain_withheld,
            evidence_values);
}
template <class V, Is<Finding> S>
void VisitFields(V& v, S& finding) {
  TS_FIELDS(v, finding, id, title, ranks, occurrences, evidence, evidence_values, root_cause,
            remedy, estimated_gain_pct, gain_model, gain_withheld, gain_replayed, per_rank, variant,
            template_entry, text_values, text_labels);
}
template <class V, Is<RankStepResult> S>
void VisitFields(V& v, S& rank_step_result) {
  TS_FIELDS(v, rank_step_result, distribution, timeline, fingerprint_findings, threshold_findings);
}
template <class V, Is<CommInstance> S>
void VisitFields(V& v, S& op) {
  TS_FIELDS(v, op, key, type, step, start_ns, duration_ns, bytes, rank_bytes, group_size,
            group_size_source, transit_ns, wait_ns, sync_ns, compute_before_ns, compute_during_ns,
            host_idle_before);
}
template <class V, Is<RankStepComm> S>
void VisitFields(V& v, S& rank_step_comm) {
  TS_FIELDS(v, rank_step_comm, step, first_start_ns, last_end_ns, iteration_ns, step_start_wait_ns,
            comm_ns, exposed_ns, pseudo_overlap_ns, pseudo_overlap_count, all_gathers, collectives,
            small_collectives, small_ns, compute_after_last_ns, host_idle_after_last,
            host_idle_before_start);
}
template <class V, Is<RankComm> S>
void VisitFields(V& v, S& comm) {
  TS_FIELDS(v, comm, rank, ops, steps, wait_ratio, sync_ratio, host_known);
}
template <class V, Is<HostIdleTimes> S>
void VisitFields(V& v, S& times) {
  TS_FIELDS(v, times, data_loader_ns, host_sync_ns, launch_ns);
}
template <class V, Is<HostIdleSpan> S>
void VisitFields(V& v, S& span) {
  TS_FIELDS(v, span, start_ns, end_ns, kind);
}
template <class V, Is<model::CommLinkRecord> S>
void VisitFields(V& v, S& link) {
  TS_FIELDS(v, link, step, p2p, op_type, statistic, group_hash, src, dst, transport, size_mb,
            time_ms, bandwidth_gbps, op_name);
}
template <class V, Is<RankLinks> S>
void VisitFields(V& v, S& rank_links) {
  TS_FIELDS(v, rank_links, rank, links);
}
template <class V, Is<L2CacheOp> S>
void VisitFields(V& v, S& op) {
  TS_FIELDS(v, op, name, tasks, mean_hit_rate);
}
template <class V, Is<L2CacheSummary> S>
void VisitFields(V& v, S& l2) {
  TS_FIELDS(v, l2, tasks, tasks_with_hit_rate, mean_hit_rate, mean_victim_rate,
            time_weighted_hit_rate, lowest_hit_ops);
}
template <class V, Is<RankHeader> S>
void VisitFields(V& v, S& rank_header) {
  TS_FIELDS(v, rank_header, rank, source, torch_npu_version, cann_version, profiler_level, platform,
            device_name, workload, workload_evidence, parallel_sizes, pipeline_stage, steps_from,
            files, missing_files, warnings, inventory, l2_cache);
}
template <class V, Is<RankResult> S>
void VisitFields(V& v, S& rank_result) {
  TS_FIELDS(v, rank_result, header, steps_info, own_step, steps, comm, links);
}
template <class V, Is<RunIdentity> S>
void VisitFields(V& v, S& identity) {
  TS_FIELDS(v, identity, rank, source, torch_npu_version, cann_version, device, world_size,
            first_ns, last_ns);
}
template <class V, Is<GatheredRank> S>
void VisitFields(V& v, S& gathered) {
  TS_FIELDS(v, gathered, index, identity, ok, result, error_code, error);
}

#undef TS_FIELDS

// The largest value of each serialised enum. No default: an enum added to a
// serialised struct without its entry here does not compile.
template <class E>
struct EnumMax;
template <>
struct EnumMax<Lane> {
  static constexpr uint64_t value = static_cast<uint64_t>(Lane::kOther);
};
template <>
struct EnumMax<HostIdleKind> {
  static constexpr uint64_t value = static_cast<uint64_t>(HostIdleKind::kLaunch);
};
template <>
struct EnumMax<CollectiveType> {
  static constexpr uint64_t value = kCollectiveTypes - 1;
};
template <>
struct EnumMax<GroupSizeSource> {
  static constexpr uint64_t value = static_cast<uint64_t>(GroupSizeSource::kLinks);
};
template <>
struct EnumMax<model::Platform> {
  static constexpr uint64_t value = static_cast<uint64_t>(model::Platform::kMtia);
};
template <>
struct EnumMax<StatusCode> {
  static constexpr uint64_t value = static_cast<uint64_t>(StatusCode::kInternal);
};
template <class E>
constexpr uint64_t kEnumMax = EnumMax<E>::value;

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

// The fewest bytes one value of T takes, to bound counts by the bytes left.
template <class T>
constexpr size_t kMinBytes = std::is_same_v<T, double> ? 8 : 1;

class Writer {
 public:
  template <class... F>
  void Fields(const char* /*struct_name*/, const F&... fields) {
    (Put(fields), ...);
  }

  void Put(bool value) { out_.Byte(value ? 1 : 0); }
  void Put(double value) { out_.Double(value); }
  void Put(const std::string& value) { out_.String(value); }
  template <std::signed_integral T>
  void Put(T value) {
    out_.SignedVarint(value);
  }
  template <std::unsigned_integral T>
  void Put(T value) {
    out_.Varint(value);
  }
  template <class E>
  requires std::is_enum_v<E>
  void Put(E value) { out_.Varint(static_cast<uint64_t>(value)); }
  template <class T>
  void Put(const std::optional<T>& value) {
    Put(value.has_value());
    if (value) Put(*value);
  }
  template <class A, class B>
  void Put(const std::pair<A, B>& pair) {
    Put(pair.first);
    Put(pair.second);
  }
  template <class T>
  void Put(const std::vector<T>& items) {
    out_.Varint(items.size());
    for (const T& item : items) Put(item);
  }
  template <class K, class T>
  void Put(const std::map<K, T>& items) {
    out_.Varint(items.size());
    for (const auto& [key, value] : items) {
      Put(key);
      Put(value);
    }
  }
  template <class T, size_t N>
  void Put(const std::array<T, N>& items) {
    for (const T& item : items) Put(item);
  }
  template <class T>
  requires std::is_class_v<T>
  void Put(const T& object) { VisitFields(*this, object); }

  ByteWriter& out() { return out_; }

 private:
  ByteWriter out_;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : in_(bytes) {}

  template <class... F>
  void Fields(const char* struct_name, F&... fields) {
    const char* outer = struct_name_;
    struct_name_ = struct_name;
    (Get(fields), ...);
    // On failure the innermost struct stays named in the message.
    if (in_.ok()) struct_name_ = outer;
  }

  void Get(bool& value) {
    const size_t at = in_.offset();
    const uint8_t byte = in_.Byte();
    if (byte > 1) in_.FailAt(at, "bool byte " + std::to_string(byte) + " is neither 0 nor 1");
    value = byte == 1;
  }
  void Get(double& value) { value = in_.Double(); }
  void Get(std::string& value) { value = std::string(in_.String()); }
  template <std::signed_integral T>
  void Get(T& value) {
    const size_t at = in_.offset();
    const int64_t wide = in_.SignedVarint();
    if (!std::in_range<T>(wide)) {
      in_.FailAt(at, "integer " + std::to_string(wide) + " out of range for its field");
    }
    value = static_cast<T>(wide);
  }
  template <std::unsigned_integral T>
  void Get(T& value) {
    const size_t at = in_.offset();
    const uint64_t wide = in_.Varint();
    if (!std::in_range<T>(wide)) {
      in_.FailAt(at, "integer " + std::to_string(wide) + " out of range for its field");
    }
    value = static_cast<T>(wide);
  }
  template <class E>
  requires std::is_enum_v<E>
  void Get(E& value) {
    const size_t at = in_.offset();
    const uint64_t number = in_.Varint();
    if (number > kEnumMax<E>) {
      in_.FailAt(at, "enum value " + std::to_string(number) + " is not defined (largest " +
                         std::to_string(kEnumMax<E>) + ")");
    }
    value = in_.ok() ? static_cast<E>(number) : E{};
  }
  template <class T>
  void Get(std::optional<T>& value) {
    bool present = false;
    Get(present);
    if (!present || !in_.ok()) return value.reset();
    Get(value.emplace());
  }
  template <class A, class B>
  void Get(std::pair<A, B>& pair) {
    Get(pair.first);
    Get(pair.second);
  }
  template <class T>
  void Get(std::vector<T>& items) {
    const uint64_t count = in_.Count(kMinBytes<T>, "vector");
    items.clear();
    // Only flat items are reserved up front (bounded by the bytes left);
    // structs grow as they are read, so memory follows the bytes consumed.
    if constexpr (std::is_arithmetic_v<T>) items.reserve(count);
    for (uint64_t i = 0; i < count && in_.ok(); ++i) Get(items.emplace_back());
  }
  template <class K, class T>
  void Get(std::map<K, T>& items) {
    const uint64_t count = in_.Count(2, "map");
    items.clear();
    for (uint64_t i = 0; i < count && in_.ok(); ++i) {
      const size_t at = in_.offset();
      K key{};
      Get(key);
      if (!items.empty() && !(items.rbegin()->first < key)) {
        in_.FailAt(at, "map keys not strictly ascending");
      }
      Get(items[key]);
    }
  }
  template <class T, size_t N>
  void Get(std::array<T, N>& items) {
    for (T& item : items) Get(item);
  }
  template <class T>
  requires std::is_class_v<T>
  void Get(T& object) {
    const size_t at = in_.offset();
    VisitFields(*this, object);
    if (in_.ok()) Check(object, at);
  }

  ByteReader& in() { return in_; }
  const char* struct_name() const { return struct_name_; }

 private:
  // What a consumer would index with: a timeline's string ids must name
  // one of its strings (StepTimeline::Str does not check).
  void Check(const StepTimeline& timeline, size_t at) {
    const size_t strings = timeline.strings.size();
    auto bad = [&](uint32_t index) { return index >= strings; };
    bool ok = true;
    for (const ZoomWindow& zoom : timeline.zooms) {
      for (const TimelineKernel& kernel : zoom.kernels) {
        ok = ok && !bad(kernel.op_type) && !bad(kernel.name) && !bad(kernel.family);
      }
    }
    for (const auto& lane : timeline.overview.lanes) {
      for (const OverviewRun& run : lane) ok = ok && !bad(run.family);
    }
    const TimelineTrack& track = timeline.track;
    for (const TimelineKernel& kernel : track.kernels) {
      ok = ok && !bad(kernel.op_type) && !bad(kernel.name) && !bad(kernel.family);
    }
    ok = ok && (track.kernels.empty() ? track.instance.empty()
                                      : track.instance.size() == track.kernels.size());
    const auto instances = static_cast<int64_t>(track.instances.size());
    for (const int32_t instance : track.instance) ok = ok && instance >= -1 && instance < instances;
    for (const TrackLaunch& launch : track.launches)
      ok = ok && launch.kernel < track.kernels.size();
    if (!ok) {
      in_.FailAt(at, "a timeline string index is not below its " + std::to_string(strings) +
                         " strings, or a track's instance or kernel index is out of range");
    }
  }
  // A module's parent comes before it (a consumer walks up by index).
  void Check(const ModuleTree& tree, size_t at) {
    for (size_t n = 0; n < tree.nodes.size(); ++n) {
      const int32_t parent = tree.nodes[n].parent;
      if (parent < -1 || parent >= static_cast<int64_t>(n)) {
        in_.FailAt(at, "module " + std::to_string(n) + "'s parent " + std::to_string(parent) +
                           " is not an earlier module");
        return;
      }
    }
  }
  template <class T>
  void Check(const T& /*object*/, size_t /*at*/) {}

  ByteReader in_;
  const char* struct_name_ = "rank_result";
};

}  // namespace

namespace {

template <class T>
std::string Serialize(const T& value, std::string_view magic) {
  Writer writer;
  writer.out().Raw(magic);
  writer.out().Varint(kRankResultFormatVersion);
  writer.Put(value);
  return writer.out().Take();
}

template <class T>
Result<T> Deserialize(std::string_view bytes, std::string_view magic, const char* what) {
  const std::string hint = fmt::format(
      "; hint: the bytes are truncated or corrupt, or were not written by trainscope's "
      "Serialize{}",
      what);
  Reader reader(bytes);
  ByteReader& in = reader.in();
  if (in.Raw(magic.size(), "magic") != magic) {
    return InvalidInput(fmt::format("{}: byte 0 of {}: not a serialised {} (no \"{}\" magic){}",
                                    what, bytes.size(), what, magic, hint));
  }
  const uint64_t version = in.Varint();
  if (!in.ok()) return InvalidInput(fmt::format("{}: {}{}", what, in.error(), hint));
  if (version != kRankResultFormatVersion) {
    return InvalidInput(fmt::format(
        "{}: byte 4 of {}: format version {} is not supported (this build reads version {}); "
        "hint: gather results with one trainscope build on every process",
        what, bytes.size(), version, kRankResultFormatVersion));
  }
  T value;
  reader.Get(value);
  if (in.ok() && in.left() > 0) {
    in.Fail(fmt::format("{} trailing bytes after the {}", in.left(), what));
  }
  if (!in.ok()) {
    return InvalidInput(
        fmt::format("{}: {} (in {}){}", what, in.error(), reader.struct_name(), hint));
  }
  return value;
}

constexpr std::string_view kResultMagic(kRankResultMagic, sizeof kRankResultMagic);
constexpr std::string_view kGatheredMagic(kGatheredRankMagic, sizeof kGatheredRankMagic);

}  // namespace

std::string SerializeRankResult(const RankResult& result) {
  return Serialize(result, kResultMagic);
}

Result<RankResult> DeserializeRankResult(std::string_view bytes) {
  return Deserialize<RankResult>(bytes, kResultMagic, "RankResult");
}

std::string SerializeGatheredRank(const GatheredRank& rank) {
  return Serialize(rank, kGatheredMagic);
}

Result<GatheredRank> DeserializeGatheredRank(std::string_view bytes) {
  return Deserialize<GatheredRank>(bytes, kGatheredMagic, "GatheredRank");
}

}  // namespace trainscope::analysis
