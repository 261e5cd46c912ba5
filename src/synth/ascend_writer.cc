#include "synth/ascend_writer.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "synth/out_file.h"
#include "synth/parallel_layout.h"
#include "synth/synth.h"

namespace trainscope::synth {

VariantTraits TraitsOf(HeaderVariant variant) {
  switch (variant) {
    case HeaderVariant::kLegacy2023:
      return {1695115378000000000LL, "20230919092258000", nullptr, nullptr, false};
    case HeaderVariant::kLevel1_2025:
      return {1736408883000000000LL, "20250109154803000", "2.1.0.post10", "8.0.0", false};
    case HeaderVariant::kCann83:
      return {1764246877000000000LL, "20251127203437000", "2.7.1", "8.3.RC1", true};
    case HeaderVariant::kCann2026:
      return {1780041600000000000LL, "20260529080000000", "2.8.0", "8.5.RC1", true};
  }
  return {1764246877000000000LL, "20251127203437000", "2.7.1", "8.3.RC1", true};
}

Status WriteStepTraceTime(const std::string& path, HeaderVariant variant, int device_id,
                          const std::vector<StepTraceRow>& rows) {
  const bool has_device = variant == HeaderVariant::kCann83 || variant == HeaderVariant::kCann2026;
  const bool has_preparing = variant != HeaderVariant::kLegacy2023;
  OutFile file;
  TS_RETURN_IF_ERROR(file.Open(path));
  fmt::memory_buffer& b = file.buffer();
  if (has_device) AppendStr(b, "Device_id,");
  AppendStr(
      b,
      "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
      "Communication(Not Overlapped and Exclude Receive)");
  AppendStr(b, has_preparing ? ",Preparing\r\n" : "\r\n");
  for (const StepTraceRow& row : rows) {
    const StepTrace& t = row.trace;
    if (has_device) fmt::format_to(std::back_inserter(b), "{},", device_id);
    AppendInt(b, row.step);
    // Bubble counts hcom_receive only; there is no pipeline parallelism here.
    for (int64_t ns :
         {t.computing_ns, t.comm_not_overlapped_ns, t.overlapped_ns(), t.communication_ns,
          t.free_ns, t.stage_ns(), int64_t{0}, t.comm_not_overlapped_ns}) {
      b.push_back(',');
      AppendUs(b, ns, 3);
    }
    if (has_preparing) {
      b.push_back(',');
      AppendUs(b, row.preparing_ns, 3);
    }
    AppendStr(b, "\r\n");
  }
  return file.Close();
}

Status WriteOpStatistic(const std::string& path, HeaderVariant variant, int device_id,
                        const KernelCatalog& catalog, const std::vector<SpecTotals>& totals) {
  // Several specs share a Type (every MatMulV3 shape): aggregate by (Type, Core).
  std::map<std::pair<std::string, Core>, SpecTotals> by_type;
  int64_t grand_total = 0;
  for (size_t id = 0; id < totals.size(); ++id) {
    const SpecTotals& t = totals[id];
    const KernelSpec& spec = catalog.spec(static_cast<SpecId>(id));
    if (t.count == 0 || spec.IsComm()) continue;
    SpecTotals& agg = by_type[{spec.type, spec.core}];
    agg.min_ns = agg.count == 0 ? t.min_ns : std::min(agg.min_ns, t.min_ns);
    agg.max_ns = std::max(agg.max_ns, t.max_ns);
    agg.count += t.count;
    agg.total_ns += t.total_ns;
    grand_total += t.total_ns;
  }
  using Entry = std::pair<std::pair<std::string, Core>, SpecTotals>;
  std::vector<Entry> entries(by_type.begin(), by_type.end());
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(b.second.total_ns, a.first.first) < std::tie(a.second.total_ns, b.first.first);
  });

  const bool has_device = variant == HeaderVariant::kCann83 || variant == HeaderVariant::kCann2026;
  OutFile file;
  TS_RETURN_IF_ERROR(file.Open(path));
  fmt::memory_buffer& b = file.buffer();
  // op_statistic.csv is copied from CANN's C++ writer: LF line ends.
  if (has_device) AppendStr(b, "Device_id,");
  AppendStr(
      b,
      "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n");
  for (const Entry& e : entries) {
    const SpecTotals& t = e.second;
    if (has_device) fmt::format_to(std::back_inserter(b), "{},", device_id);
    fmt::format_to(std::back_inserter(b), "{},{},{},", e.first.first, CoreName(e.first.second),
                   t.count);
    AppendUs(b, t.total_ns, 3);
    b.push_back(',');
    AppendUs(b, t.min_ns, 3);
    b.push_back(',');
    AppendUs(b, (t.total_ns + t.count / 2) / t.count, 3);
    b.push_back(',');
    AppendUs(b, t.max_ns, 3);
    b.push_back(',');
    // Ratio in thousandths of a percent, rounded.
    const int64_t ratio =
        grand_total == 0 ? 0
                         : static_cast<int64_t>((static_cast<long double>(t.total_ns) * 100000.0L /
                                                 static_cast<long double>(grand_total)) +
                                                0.5L);
    AppendFixed(b, ratio, 3);
    b.push_back('\n');
  }
  return file.Close();
}

Status WriteProfilerInfo(const std::string& path, HeaderVariant variant, int rank, int64_t start_ns,
                         int64_t end_ns, bool with_stack) {
  const VariantTraits traits = TraitsOf(variant);
  const bool legacy = variant == HeaderVariant::kLegacy2023;
  std::string versions;
  if (traits.torch_npu_version != nullptr) {
    versions = fmt::format("    \"torch_npu_version\": \"{}\",\n    \"cann_version\": \"{}\",\n",
                           traits.torch_npu_version, traits.cann_version);
  }
  const std::string rank_id =
      traits.rank_id_as_string ? fmt::format("\"{}\"", rank) : fmt::format("{}", rank);
  const std::string text = fmt::format(
      R"({{
    "config": {{
        "common_config": {{
            "activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"],
            "schedule": {{"wait": 0, "active": 1, "warmup": 1, "repeat": 1, "skip_first": 3}},
            "record_shapes": true,
            "profile_memory": false,
            "with_stack": {},
            "with_flops": false,
            "with_modules": false
        }},
        "experimental_config": {{
            "_profiler_level": "Level1",
            "_aic_metrics": "{}",
            "_l2_cache": false,
            "_msprof_tx": false,
            "_data_simplification": true,
            "record_op_args": false,
            "_export_type": {}
        }}
    }},
    "start_info": {{"syscnt_enable": true, "freq": 100, "start_cnt": {}, "start_monotonic": {}}},
    "end_info": {{"collectionTimeEnd": {}, "MonotonicTimeEnd": {}}},
{}    "rank_id": {}
}}
)",
      with_stack ? "true" : "false",
      legacy ? "ACL_AICORE_ARITHMETIC_UTILIZATION" : "ACL_AICORE_PIPE_UTILIZATION",
      legacy || variant == HeaderVariant::kLevel1_2025 ? "\"text\"" : "[\"text\"]",
      (start_ns / 10) % 1000000000000000LL, start_ns % 10000000000000000LL, end_ns,
      end_ns % 10000000000000000LL, versions, rank_id);
  return WriteWholeFile(path, text);
}

namespace {

// parallel_group_info of |rank| in a parallel layout: each of its groups,
// keyed by the HCCL group name.
std::string LayoutGroupInfo(const ParallelLayout& layout, int rank) {
  std::string groups;
  for (int kind = 0; kind < kGroupKinds; ++kind) {
    const ProcessGroup& g = layout.group_of(rank, static_cast<GroupKind>(kind));
    std::string members;
    int group_rank = 0;
    for (size_t i = 0; i < g.global_ranks.size(); ++i) {
      members += fmt::format("{}{}", i ? ", " : "", g.global_ranks[i]);
      if (g.global_ranks[i] == rank) group_rank = static_cast<int>(i);
    }
    groups +=
        fmt::format(R"({}"{}": {{"group_name": "{}", "group_rank": {}, "global_ranks": [{}]}})",
                    groups.empty() ? "" : ", ", g.hccl_name, g.group_name, group_rank, members);
  }
  return groups;
}

}  // namespace

Status WriteProfilerMetadata(const std::string& path, int rank, const SynthOptions& options) {
  const int world_size = options.ranks;
  const ParallelLayout layout(options);
  std::string ranks;
  for (int r = 0; r < world_size; ++r) ranks += fmt::format("{}{}", r ? ", " : "", r);
  std::string groups = fmt::format(
      R"("group_name_0": {{"group_name": "default_group", "group_rank": {0}, )"
      R"("global_ranks": [{1}]}}, "group_name_5": {{"group_name": "dp", "group_rank": {0}, "global_ranks": [{1}]}})",
      rank, ranks);
  if (!layout.fsdp()) groups = LayoutGroupInfo(layout, rank);
  const std::string text = fmt::format(
      R"({{"distributed_args": {{"tensor_model_parallel_size": {3}, "pipeline_model_parallel_size": {4}, )"
      R"("data_parallel_size": {0}, "context_parallel_size": 1, "expert_model_parallel_size": {5}, )"
      R"("sequence_parallel": false, "rank": {1}, "world_size": {6}}}, )"
      R"("ENV_VARIABLES": {{"ASCEND_GLOBAL_LOG_LEVEL": "3", "HCCL_RDMA_TC": "", "HCCL_RDMA_SL": "", )"
      R"("ACLNN_CACHE_LIMIT": "", "HOST_CACHE_CAPACITY": "", "ASCEND_ENHANCE_ENABLE": "", )"
      R"("PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True", "ASCEND_LAUNCH_BLOCKING": "", "HCCL_ALGO": ""}}, )"
      R"("parallel_group_info": {{{2}}}}})",
      layout.dp(), rank, groups, layout.tp(), layout.pp(), layout.ep(), world_size);
  return WriteWholeFile(path, text + "\n");
}

}  // namespace trainscope::synth
