#include "synth/ground_truth.h"

#include <optional>
#include <vector>

#include "synth/host_frames.h"
#include "synth/out_file.h"

namespace trainscope::synth {
namespace {

// The variants as ground_truth.json spells them (underscores, unlike the
// --header option's kHeaderVariantNames).
constexpr EnumNames<HeaderVariant, 4> kGroundTruthVariantNames{
    {{{HeaderVariant::kLegacy2023, "legacy2023"},
      {HeaderVariant::kLevel1_2025, "level1_2025"},
      {HeaderVariant::kCann83, "cann83"},
      {HeaderVariant::kCann2026, "cann2026"}}},
    "cann83"};

class JsonOut {
 public:
  explicit JsonOut(fmt::memory_buffer& b) : b_(b) {}
  void Raw(std::string_view text) { AppendStr(b_, text); }
  void Us(int64_t ns) { AppendUs(b_, ns, 3); }
  void Types(const KernelCatalog& catalog, const std::vector<const Chain*>& chains) {
    Raw("[");
    bool first = true;
    for (const Chain* chain : chains) {
      for (SpecId id : *chain) {
        fmt::format_to(std::back_inserter(b_), "{}\"{}\"", first ? "" : ", ",
                       catalog.spec(id).type);
        first = false;
      }
    }
    Raw("]");
  }

 private:
  fmt::memory_buffer& b_;
};

size_t Length(const std::vector<const Chain*>& chains) {
  size_t n = 0;
  for (const Chain* c : chains) n += c->size();
  return n;
}

struct PatternEntry {
  const char* id;
  const char* remedy_option;  // the SynthOptions field that removes it
  bool planted;
  int64_t instances;
  std::vector<const Chain*> sequence;
  size_t fused_length;
  int64_t backward_instances;
  std::vector<const Chain*> backward_sequence;
  size_t backward_fused_length;
  // The Python frame around each forward instance (trace_view.json with
  // with_stack); none for the communication patterns.
  std::optional<FrameKind> frame = std::nullopt;
};

void WritePattern(JsonOut& out, fmt::memory_buffer& b, const KernelCatalog& catalog,
                  const PatternEntry& p, bool with_stack, bool last) {
  fmt::format_to(std::back_inserter(b),
                 "    {{\"id\": \"{}\", \"remedy_option\": \"{}\", \"planted\": {}, "
                 "\"instances_per_step_per_rank\": {}, \"kernels_per_instance\": {}, "
                 "\"removed_kernels_per_instance\": {},\n     \"type_sequence\": ",
                 p.id, p.remedy_option, p.planted ? "true" : "false", p.instances,
                 Length(p.sequence), Length(p.sequence) - p.fused_length);
  out.Types(catalog, p.sequence);
  if (p.backward_sequence.size() > 0) {
    fmt::format_to(
        std::back_inserter(b),
        ",\n     \"backward_instances_per_step_per_rank\": {}, \"backward_kernels_per_instance\": "
        "{}, "
        "\"backward_removed_kernels_per_instance\": {},\n     \"backward_type_sequence\": ",
        p.backward_instances, Length(p.backward_sequence),
        Length(p.backward_sequence) - p.backward_fused_length);
    out.Types(catalog, p.backward_sequence);
  }
  if (with_stack) {
    // The innermost user frame around every forward instance: what a source
    // attribution must report. Backward chains run on the autograd thread,
    // outside any Python frame.
    if (p.frame) {
      const FrameNames names = NamesOf(*p.frame);
      fmt::format_to(std::back_inserter(b),
                     ",\n     \"source_lines\": [\"{}\"], \"module\": ", names.function);
      out.Raw(names.module != nullptr ? fmt::format("\"{}\"", names.module) : "null");
    } else {
      out.Raw(",\n     \"source_lines\": [], \"module\": null");
    }
  }
  out.Raw(last ? "}\n" : "},\n");
}

// "generator" to "effective": the options the job was made with and what
// they came to.
void WriteTruthOptions(const JobTruth& truth, fmt::memory_buffer& b) {
  const SynthOptions& o = truth.options;
  auto flag = [](bool v) { return v ? "true" : "false"; };
  fmt::format_to(
      std::back_inserter(b),
      "{{\n  \"generator\": \"trainscope synth\",\n  \"format_version\": 1,\n"
      "  \"options\": {{\"seed\": {}, \"ranks\": {}, \"layers\": {}, \"micro_batches\": {}, "
      "\"steps\": {}, \"first_step\": {}, \"hidden\": {}, \"vocab\": {}, \"scale\": {}, "
      "\"header\": \"{}\", \"name\": \"{}\",\n    \"fused_rmsnorm\": {}, \"fused_gated_norm\": {}, "
      "\"fused_swiglu\": {}, \"fused_cross_entropy\": {}, \"native_custom_op\": {}, "
      "\"unshard_on_compute_stream\": {}, \"numa_bound\": {}, \"fused_optimizer\": {}{}}},\n"
      "  \"effective\": {{\"layers\": {}, \"micro_batches\": {}, \"loss_chunks\": {}, "
      "\"optimizer_tensors\": {}}},\n",
      o.seed, o.ranks, o.layers, o.micro_batches, o.steps, o.first_step, o.hidden, o.vocab, o.scale,
      kGroundTruthVariantNames.Name(o.header), o.name, flag(o.fused_rmsnorm),
      flag(o.fused_gated_norm), flag(o.fused_swiglu), flag(o.fused_cross_entropy),
      flag(o.native_custom_op), flag(o.unshard_on_compute_stream), flag(o.numa_bound),
      flag(o.fused_optimizer),
      // Only when on, so that runs without trace_view.json keep their bytes.
      o.trace_view ? fmt::format(", \"trace_view\": true, \"with_stack\": {}", flag(o.with_stack))
                   : std::string(),
      truth.shape.layers, truth.shape.micro_batches, truth.shape.loss_chunks,
      truth.shape.layers * truth.shape.optimizer_tensors_per_layer + 2);
}

// The cluster faults and memory facts planted.
void WriteTruthPlanted(const JobTruth& truth, fmt::memory_buffer& b) {
  const SynthOptions& o = truth.options;
  // Cluster faults planted (not remedies): what the cluster analysis must find.
  fmt::format_to(std::back_inserter(b),
                 "  \"cluster\": {{\"straggler_rank\": {}, \"straggler_slowdown\": {}, "
                 "\"late_rank\": {}, \"late_ms\": {}, "
                 "\"slow_link\": {}, \"collectives_coupled\": true{}}},\n",
                 o.straggler_rank, o.straggler_slowdown, o.late_rank, o.late_ms,
                 o.slow_link ? fmt::format("{{\"src\": {}, \"dst\": {}, \"bandwidth_factor\": {}}}",
                                           o.slow_link_src, o.slow_link_dst, o.slow_link_share)
                             : std::string("null"),
                 o.host_bound_rank >= 0
                     ? fmt::format(", \"host_bound_rank\": {}, \"dispatch_us\": {}",
                                   o.host_bound_rank, o.dispatch_us)
                     : std::string());
  if (o.memory) {
    const MemoryTruth& m = truth.memory;
    fmt::format_to(std::back_inserter(b),
                   "  \"memory\": {{\"stream_pools\": {}, \"stream_pool_offset_bytes\": {}, "
                   "\"peak_holder\": {}, \"peak_holder_bytes\": {}, "
                   "\"peak_allocated_bytes\": {}, \"peak_reserved_bytes\": {}}},\n",
                   m.stream_pools, m.stream_pool_offset_bytes,
                   m.peak_holder.empty() ? std::string("null") : "\"" + m.peak_holder + "\"",
                   m.peak_holder_bytes, m.peak_allocated_bytes, m.peak_reserved_bytes);
  }
}

// Each remedy's pattern: planted or not, its chains and counts.
void WriteTruthPatterns(const KernelCatalog& catalog, const JobTruth& truth, JsonOut& out,
                        fmt::memory_buffer& b) {
  const SynthOptions& o = truth.options;
  const Chains& c = catalog.chains();
  const PatternCounts& n = truth.counts;
  out.Raw("  \"patterns\": [\n");
  const Chain all_gather{c.comm_all_gather};
  const Chain all_reduce{c.comm_all_reduce};
  const Chain custom{c.custom_op};
  const Chain custom_grad{c.custom_op_grad};
  const Chain lm_head{c.mm_lm_head};
  const Chain lm_head_grads{c.mm_lm_head_dx, c.mm_lm_head_dw};
  const bool skew_planted = !o.numa_bound && o.ranks > 1;
  const PatternEntry patterns[] = {
      {"unfused-rmsnorm",
       "fused_rmsnorm",
       !o.fused_rmsnorm,
       n.rmsnorm_fwd,
       {&c.rmsnorm_fwd[0]},
       c.rmsnorm_fwd[1].size(),
       n.rmsnorm_bwd,
       {&c.rmsnorm_bwd[0]},
       c.rmsnorm_bwd[1].size(),
       FrameKind::kRmsNorm},
      {"unfused-gated-norm",
       "fused_gated_norm",
       !o.fused_gated_norm,
       n.gated_norm_fwd,
       {&c.gated_norm_fwd[0]},
       c.gated_norm_fwd[1].size(),
       n.gated_norm_bwd,
       {&c.gated_norm_bwd[0]},
       c.gated_norm_bwd[1].size(),
       FrameKind::kGatedNorm},
      {"unfused-swiglu",
       "fused_swiglu",
       !o.fused_swiglu,
       n.swiglu_fwd,
       {&c.swiglu_fwd[0]},
       c.swiglu_fwd[1].size(),
       n.swiglu_bwd,
       {&c.swiglu_bwd[0]},
       c.swiglu_bwd[1].size(),
       FrameKind::kMlp},
      {"unfused-cross-entropy",
       "fused_cross_entropy",
       !o.fused_cross_entropy,
       n.cross_entropy_fwd,
       {&lm_head, &c.loss_fwd[0]},
       c.loss_fwd[1].size(),
       n.cross_entropy_bwd,
       {&c.loss_bwd[0], &lm_head_grads},
       c.loss_bwd[1].size(),
       FrameKind::kLossChunk},
      {"glue-around-custom-op",
       "native_custom_op",
       !o.native_custom_op,
       n.glue_fwd,
       {&c.glue_fwd_before, &custom, &c.glue_fwd_after},
       1,
       n.glue_bwd,
       {&c.glue_bwd_before, &custom_grad, &c.glue_bwd_after},
       1,
       FrameKind::kChunkRule},
      {"pseudo-overlap",
       "unshard_on_compute_stream",
       !o.unshard_on_compute_stream,
       n.pseudo_overlap,
       {&all_gather},
       1,
       0,
       {},
       0},
      {"step-start-skew",
       "numa_bound",
       skew_planted,
       skew_planted ? 1 : 0,
       {&all_reduce},
       1,
       0,
       {},
       0},
  };
  const size_t count = sizeof(patterns) / sizeof(patterns[0]);
  for (size_t i = 0; i < count; ++i) {
    WritePattern(out, b, catalog, patterns[i], o.with_stack, i + 1 == count);
  }
}

// Per rank and step: kernels, skew and the step's time budget.
void WriteTruthRanks(const JobTruth& truth, JsonOut& out, fmt::memory_buffer& b) {
  for (size_t r = 0; r < truth.ranks.size(); ++r) {
    const RankTruth& rank = truth.ranks[r];
    const RankStepTruth& first = rank.steps.front();
    fmt::format_to(std::back_inserter(b),
                   "    {{\"rank\": {}, \"device_id\": {}, \"dir\": \"{}\", \"skew_us\": ",
                   rank.rank, rank.device_id, rank.dir);
    out.Us(first.skew_ns);
    out.Raw(", \"step_start_wait_us\": ");
    out.Us(first.start_wait_ns);
    fmt::format_to(std::back_inserter(b), ", \"kernels_per_step\": {},\n     \"steps\": [\n",
                   first.compute_kernels + first.comm_kernels);
    for (size_t s = 0; s < rank.steps.size(); ++s) {
      const RankStepTruth& st = rank.steps[s];
      const StepTrace& t = st.trace;
      fmt::format_to(
          std::back_inserter(b),
          "      {{\"step\": {}, \"kernels\": {}, \"compute_kernels\": {}, \"comm_kernels\": {}, "
          "\"skew_us\": ",
          st.step, st.compute_kernels + st.comm_kernels, st.compute_kernels, st.comm_kernels);
      out.Us(st.skew_ns);
      out.Raw(", \"step_start_wait_us\": ");
      out.Us(st.start_wait_ns);
      out.Raw(", \"window_start_us\": ");
      out.Us(t.window_start_ns);
      out.Raw(", \"stage_us\": ");
      out.Us(t.stage_ns());
      out.Raw(", \"computing_us\": ");
      out.Us(t.computing_ns);
      out.Raw(", \"communication_us\": ");
      out.Us(t.communication_ns);
      out.Raw(", \"comm_not_overlapped_us\": ");
      out.Us(t.comm_not_overlapped_ns);
      out.Raw(", \"free_us\": ");
      out.Us(t.free_ns);
      out.Raw(s + 1 == rank.steps.size() ? "}\n" : "},\n");
    }
    out.Raw(r + 1 == truth.ranks.size() ? "     ]}\n" : "     ]},\n");
  }
}

}  // namespace

Status WriteGroundTruth(const std::string& path, const KernelCatalog& catalog,
                        const JobTruth& truth) {
  fmt::memory_buffer b;
  JsonOut out(b);
  WriteTruthOptions(truth, b);
  WriteTruthPlanted(truth, b);
  WriteTruthPatterns(catalog, truth, out, b);
  out.Raw("  ],\n  \"ranks\": [\n");
  WriteTruthRanks(truth, out, b);
  out.Raw("  ]\n}\n");
  return WriteWholeFile(path, std::string_view(b.data(), b.size()));
}

}  // namespace trainscope::synth
