// The seeds' per-tensor gradient clipping and MoE token permute/unpermute
// chains: every spelling a real profile shows (CANN
// generations, torch_npu's aclnn names, the GPU kernels of PyTorch), casts
// interleaved, counted per instance; the fused forms and unrelated chains of
// the same ops are not matched; remedies name the profile's platform only.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/motif_sequence.h"
#include "finding_lookup.h"

namespace trainscope::analysis {
namespace {

using testing::EvidenceValue;
using testing::FindingWithId;

// A rank with one compute stream running |types| back to back, 10 us each;
// a type is also the kernel's name. A GPU kernel's op type is derived from
// its name (as the Kineto reader does), so two kernels of one template stay
// two tokens.
model::RankProfile ProfileOfTypes(const std::vector<std::string>& types) {
  model::RankProfile p;
  int64_t t = 1'000'000;
  for (const auto& type : types) {
    model::DeviceEvent row;
    row.step = 1;
    row.op_type = p.strings.Intern(type);
    row.name = p.strings.Intern(type);
    row.op_type_derived =
        type.find('<') != std::string::npos || type.find('(') != std::string::npos;
    row.stream = 2;
    row.start_ns = t;
    row.duration_ns = 10'000;
    p.device_events.Append(row);
    t += 12'000;
  }
  return p;
}

bool SameInstances(const std::vector<FingerprintInstance>& a,
                   const std::vector<FingerprintInstance>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const FingerprintInstance& x, const FingerprintInstance& y) {
                      return x.fingerprint == y.fingerprint && x.begin == y.begin &&
                             x.end == y.end && x.kept == y.kept;
                    });
}

// Every chain test also checks that a rank's memo of the members' answers
// (shared by its steps: one memo over all the sequences here) matches
// exactly what asking every glob gives.
std::map<std::string, int> CountMatches(const std::vector<std::string>& types) {
  const auto& lib = FingerprintLibrary::Builtin();
  FingerprintAcceptMemo memo(lib);
  std::map<std::string, int> counts;
  for (const auto& seq : BuildKernelSequences(ProfileOfTypes(types), 1, lib, 1)) {
    const std::vector<FingerprintInstance> matches = MatchFingerprints(seq, lib);
    EXPECT_TRUE(SameInstances(MatchFingerprints(seq, lib, &memo), matches));
    for (const auto& m : matches) {
      ++counts[lib.fingerprints()[m.fingerprint].id + "/" +
               lib.fingerprints()[m.fingerprint].variant];
    }
  }
  return counts;
}

void Append(std::vector<std::string>* to, const std::vector<std::string>& what, int times = 1) {
  for (int i = 0; i < times; ++i) to->insert(to->end(), what.begin(), what.end());
}

JobAnalysis AnalyzeOne(model::RankProfile profile) {
  std::vector<model::RankProfile> profiles;
  profiles.push_back(std::move(profile));
  auto job = AnalyzeJob(profiles, FamilyRules::Builtin(), AnalysisOptions{}, 1);
  EXPECT_TRUE(job.ok()) << job.status().message();
  return job.ok() ? std::move(job).value() : JobAnalysis{};
}

// Ascend: MindSpeed's Python fallback for apex's multi_tensor_l2norm and
// multi_tensor_scale (the corpus Qwen3-0.6B rank: LpNormV2 Pows Add per
// tensor, then Mul TensorMove per tensor), the older CANN split of LpNormV2
// (msprof-analyze's test data: MemSet LpNormReduceV2 LpNormUpdateV2 Square
// Add), a norm decomposed into Abs Pow ReduceSum Pow, casts in between.
TEST(FingerprintChains, PerTensorGradientClippingOnAscend) {
  std::vector<std::string> step = {"MatMulV3", "ApplyAdamWV2"};
  Append(&step, {"LpNormV2", "Pows", "Adds"}, 3);
  Append(&step, {"MemSet", "LpNormReduceV2", "LpNormUpdateV2", "Square", "Add"}, 2);
  Append(&step, {"Abs", "Pows", "ReduceSum", "Pows", "Square", "Add"});
  Append(&step, {"Cast", "LpNormV2", "Cast", "Pows", "Add"});  // casts anywhere
  Append(&step, {"Pows", "Pows"});                             // the total norm
  Append(&step, {"Muls", "TensorMove"}, 4);
  Append(&step, {"Mul", "Cast", "TensorMove"});
  const auto counts = CountMatches(step);
  EXPECT_EQ(counts.at("per-tensor-grad-clip/norm"), 7);
  EXPECT_EQ(counts.at("per-tensor-grad-clip/scale"), 5);
  EXPECT_EQ(counts.size(), 2u) << "no other chain among these kernels";
}

// GPU: Megatron without apex (torch.norm(g) ** 2 accumulated per tensor):
// a NormTwoOps reduction, a pow and an add per tensor, copy kernels (casts)
// in between.
TEST(FingerprintChains, PerTensorGradientClippingOnGpu) {
  const std::string norm =
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
      "at::native::NormTwoOps<float, float, float>, unsigned int, float, 4> >(float)";
  const std::string pow =
      "void at::native::vectorized_elementwise_kernel<4, "
      "at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>>(int)";
  const std::string add =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3> >(int)";
  const std::string cast =
      "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
      "TensorIteratorBase&)::{lambda()#3}>(int)";
  std::vector<std::string> step = {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"};
  Append(&step, {norm, pow, add}, 3);
  Append(&step, {norm, cast, pow, add});
  const auto counts = CountMatches(step);
  EXPECT_EQ(counts.at("per-tensor-grad-clip/gpu-norm"), 4);
  EXPECT_EQ(counts.size(), 1u);
}

// Fused clipping and unrelated uses of the same ops are not the pattern:
// torch_npu's ForeachNorm / ForeachMulScalar, apex's multi-tensor kernels,
// a norm alone (F.normalize), a loss-scale Mul per tensor, Mul then Add.
TEST(FingerprintChains, FusedClippingAndLookAlikesAreClean) {
  std::vector<std::string> ascend = {"ForeachNorm", "Pows", "ForeachMulScalar", "ForeachAddList"};
  Append(&ascend, {"LpNormV2", "RealDiv", "MatMulV3"}, 3);  // F.normalize
  Append(&ascend, {"Muls"}, 6);                             // loss-scale unscale per tensor
  Append(&ascend, {"Mul", "Add", "MatMulV3"}, 2);
  EXPECT_EQ(CountMatches(ascend).count("per-tensor-grad-clip/norm"), 0u);
  EXPECT_EQ(CountMatches(ascend).count("per-tensor-grad-clip/scale"), 0u);
  const std::vector<std::string> gpu = {
      "void multi_tensor_apply_kernel<TensorListMetadata<1>, L2NormFunctor<float, 8, 4>, float*>()",
      "void cleanup<float, 8, 4>(float*)",
      "void multi_tensor_apply_kernel<TensorListMetadata<2>, ScaleFunctor<float, float>, float*>()",
      "void multi_tensor_apply_kernel<TensorListMetadata<1>, L2NormFunctor<float, 8, 4>, float*>()",
      "void cleanup<float, 8, 4>(float*)"};
  EXPECT_TRUE(CountMatches(gpu).empty());
}

// Ascend: Megatron's unfused permute (argsort of the top-k expert ids, an
// index_select of the tokens: Sort, a FloorDiv, GatherV3 as torch_npu names
// aclnnIndexSelect) or its routing-map form (MaskedSelect, index_select);
// unpermute as index_copy, Mul by the probabilities and a sum over top-k, or
// Mul and scatter_add (aclnnScatterAdd runs ScatterElementsV2).
TEST(FingerprintChains, MoeTokenPermuteAndUnpermuteOnAscend) {
  std::vector<std::string> step;
  for (int layer = 0; layer < 3; ++layer) {
    Append(&step,
           {"Sort", "Cast", "FloorDiv", "GatherV3", "GroupedMatmul", "SwiGlu", "GroupedMatmul",
            "ZerosLike", "ScatterUpdate", "Cast", "Mul", "ReduceSum", "Add"});
  }
  Append(&step,
         {"Transpose", "MaskedSelectV3", "GatherV2", "GroupedMatmul", "SwiGlu", "GroupedMatmul",
          "MaskedSelectV3", "Muls", "ZerosLike", "ScatterElementsV2", "Add"},
         2);
  const auto counts = CountMatches(step);
  EXPECT_EQ(counts.at("moe-token-permute/permute"), 5);
  EXPECT_EQ(counts.at("moe-token-permute/unpermute"), 5);
  EXPECT_EQ(counts.size(), 2u);
}

// GPU: argsort as radix-sort kernels, the iota, index_select; unpermute as
// a Mul by the probabilities, a fill of the output and scatter_add.
TEST(FingerprintChains, MoeTokenPermuteAndUnpermuteOnGpu) {
  const std::vector<std::string> permute = {
      "void at_cuda_detail::cub::DeviceRadixSortHistogramKernel<Policy900, false, long, int>()",
      "void at_cuda_detail::cub::DeviceRadixSortExclusiveSumKernel<Policy900, int>()",
      "void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<Policy900, false, long, long>()",
      "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<long, long, "
      "long, at::native::binary_internal::div_floor_kernel_cuda>>()",
      "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, "
      "unsigned int, 2, 2, -2, true>()"};
  const std::vector<std::string> unpermute = {
      "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
      "float, at::native::binary_internal::MulFunctor<float> >>()",
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>()",
      "void at::native::_scatter_gather_elementwise_kernel<128, 4, "
      "at::native::_cuda_scatter_gather_internal_kernel<true, float>::operator()>()"};
  const std::string gemm = "void cutlass::device_kernel<grouped_gemm::GemmKernel>()";
  std::vector<std::string> step;
  for (int layer = 0; layer < 4; ++layer) {
    Append(&step, permute);
    Append(&step, {gemm, gemm});
    Append(&step, unpermute);
  }
  const auto counts = CountMatches(step);
  EXPECT_EQ(counts.at("moe-token-permute/gpu-permute"), 4);
  EXPECT_EQ(counts.at("moe-token-permute/gpu-unpermute"), 4);
  EXPECT_EQ(counts.size(), 2u);
}

// The fused kernels alone (MindSpeed --moe-permute-fusion; MoeInitRouting /
// MoeFinalizeRouting; TransformerEngine's and DeepEP-style fused mapping on
// GPU) and the per-expert loop (its own finding) are not permute chains.
TEST(FingerprintChains, FusedPermuteAndExpertLoopsAreNotPermuteChains) {
  std::vector<std::string> ascend;
  Append(&ascend,
         {"MoeTokenPermute", "GroupedMatmul", "SwiGlu", "GroupedMatmul", "MoeTokenUnpermute",
          "MoeInitRoutingV2", "GroupedMatmul", "MoeFinalizeRoutingV2", "Sort", "MemSet",
          "EmbeddingDenseGradV2"},  // an embedding backward sorts, then no gather
         3);
  EXPECT_TRUE(CountMatches(ascend).empty());
  const std::vector<std::string> gpu = {
      "void cuda::get_fused_mapping<512>(long const*, int*)",
      "cuda::expand_to_fused_with_scales_impl(int4 const*, int4*)",
      "void cutlass::device_kernel<grouped_gemm::GemmKernel>()",
      "void cuda::reduce_fused_impl<__nv_bfloat16, false, false>(int4 const*)",
      "void transformer_engine::moe_permute_kernel<__nv_bfloat16>()",
      "void transformer_engine::moe_unpermute_kernel<__nv_bfloat16>()"};
  EXPECT_TRUE(CountMatches(gpu).empty());
  std::vector<std::string> loop;
  Append(&loop, {"GatherV2", "MatMulV2", "Swish", "Mul", "MatMulV2", "Muls", "IndexAdd"}, 4);
  const auto counts = CountMatches(loop);
  EXPECT_EQ(counts.at("moe-expert-loop/fwd"), 4);
  EXPECT_EQ(counts.size(), 1u);
}

// Eager F.cross_entropy on CUDA/ROCm as real traces spell it: the 2021
// tbplugin ResNet trace (softmax_warp_forward with is_log_softmax = true and
// five template arguments, then cunn_ClassNLLCriterion_updateOutput_kernel;
// backward cunn_ClassNLLCriterion_updateGradInput_kernel then
// softmax_warp_backward), the current PyTorch spelling (six template
// arguments, nll_loss_forward_reduce_cuda_kernel_2d in Loss.cu) and the wide
// vocabulary path of SoftMax.cu (cunn_SoftMaxForward / cunn_SoftMaxBackward
// with the LogSoftMax epilogues). Forward and backward count under one id.
TEST(FingerprintChains, EagerCrossEntropyInCudaSpelling) {
  const std::string warp_fwd_2021 =
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, "
      "float const*, int, int, int)";
  const std::string warp_bwd_2021 =
      "void (anonymous namespace)::softmax_warp_backward<float, float, float, 10, true>(float*, "
      "float const*, float const*, int, int, int)";
  const std::string nll_fwd_2021 =
      "void cunn_ClassNLLCriterion_updateOutput_kernel<float, float>(float*, float*, float*, "
      "long*, float*, int, int, int, int, long)";
  const std::string nll_bwd_2021 =
      "void cunn_ClassNLLCriterion_updateGradInput_kernel<float>(float*, float*, long*, float*, "
      "float*, int, int, int, int, long)";
  const std::string warp_fwd =
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, "
      "false>(float*, float const*, int, int, int, bool const*, int, bool)";
  const std::string warp_bwd =
      "void (anonymous namespace)::softmax_warp_backward<float, float, float, 10, true, "
      "false>(float*, float const*, float const*, int, int, int, bool const*)";
  const std::string nll_fwd =
      "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
      "float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, "
      "long)";
  const std::string nll_bwd =
      "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, "
      "long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, "
      "long)";
  const std::string wide_fwd =
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, "
      "float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, "
      "c10::BFloat16 const*, int)";
  const std::string wide_bwd =
      "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, c10::BFloat16, float, "
      "float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(c10::BFloat16*, "
      "float const*, float const*, long)";
  const std::string gemm = "volta_sgemm_64x32_sliced1x4_tn";
  const std::string fill =
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1>)";
  std::vector<std::string> step;
  Append(&step, {gemm, warp_fwd_2021, nll_fwd_2021, fill, nll_bwd_2021, warp_bwd_2021, gemm});
  Append(&step, {gemm, warp_fwd, nll_fwd, fill, nll_bwd, warp_bwd, gemm}, 2);
  Append(&step, {gemm, wide_fwd, nll_fwd, fill, nll_bwd, wide_bwd, gemm});
  const auto counts = CountMatches(step);
  EXPECT_EQ(counts.at("unfused-cross-entropy/gpu-fwd"), 4);
  EXPECT_EQ(counts.at("unfused-cross-entropy/gpu-bwd"), 4);
  EXPECT_EQ(counts.size(), 2u);

  model::RankProfile gpu = ProfileOfTypes(step);
  gpu.timeline.devices.push_back(model::DeviceProperties{0, "Tesla V100-SXM2-16GB"});
  const JobAnalysis job = AnalyzeOne(std::move(gpu));
  const Finding* ce = FindingWithId(job, "unfused-cross-entropy");
  ASSERT_NE(ce, nullptr);
  EXPECT_EQ(EvidenceValue(*ce, "instances_gpu-fwd"), 4);
  EXPECT_EQ(EvidenceValue(*ce, "instances_gpu-bwd"), 4);
  // The gain is the saving of both directions: 16 chains of two kernels.
  EXPECT_EQ(EvidenceValue(*ce, "instances"), 8);
}

// A plain softmax (is_log_softmax = false) or a masked softmax
// (<..., false, true>) before an NLL kernel is not a cross-entropy; a
// log_softmax with no NLL after it (a hand-written loss) is not the chain.
TEST(FingerprintChains, SoftmaxThatIsNotLogSoftmaxIsNotCrossEntropy) {
  const std::string plain =
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, "
      "false>(float*, float const*, int, int, int, bool const*, int, bool)";
  const std::string masked =
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, "
      "true>(float*, float const*, int, int, int, bool const*, int, bool)";
  const std::string log_fwd =
      "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, "
      "false>(float*, float const*, int, int, int, bool const*, int, bool)";
  const std::string nll_fwd =
      "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
      "float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, "
      "long)";
  const std::string mul =
      "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
      "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> "
      ">(int)";
  std::vector<std::string> step = {"volta_sgemm_64x32_sliced1x4_tn", plain, nll_fwd};
  Append(&step, {"volta_sgemm_64x32_sliced1x4_tn", masked, nll_fwd});
  Append(&step, {"volta_sgemm_64x32_sliced1x4_tn", log_fwd, mul});
  EXPECT_TRUE(CountMatches(step).empty());
}

// Fused kernels are the remedy, not the pattern: Inductor's triton kernels,
// Liger, Apex and TransformerEngine never fill a member of an unfused
// chain, so a chain of them (or eager kernels with one member fused) is
// not reported.
TEST(FingerprintChains, FusedKernelsAreNeverMembersOfAnUnfusedChain) {
  const std::string pow =
      "void at::native::vectorized_elementwise_kernel<4, "
      "at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<float, float>>(int)";
  const std::string mean =
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
      "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(float)";
  const std::string add =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3> >(int)";
  const std::string rsqrt =
      "void at::native::vectorized_elementwise_kernel<4, "
      "at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}>(int)";
  const std::string mul =
      "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
      "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> "
      ">(int)";
  const std::string gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n";
  // The eager chain itself is matched (the control).
  EXPECT_EQ(
      CountMatches({gemm, pow, mean, add, rsqrt, mul, mul, gemm}).count("unfused-rmsnorm/gpu-fwd"),
      1u);
  std::vector<std::string> step;
  // Inductor kernels whose names hold the op names the eager globs look for.
  Append(&step, {gemm, pow, mean, "triton_poi_fused_add_0", "triton_poi_fused_rsqrt_1", mul, mul});
  Append(&step, {gemm, "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_2",
                 "triton_per_fused_add_mean_mul_pow_rsqrt_3", "triton_poi_fused_mul_silu_4"});
  // Liger, Apex and TransformerEngine forms.
  Append(&step,
         {gemm, "_rms_norm_forward_kernel", "_cross_entropy_kernel", "_rms_norm_backward_kernel"});
  Append(&step, {gemm,
                 "void cuApplyRMSNorm<float, float, float>(float*, float*, float const*, int, "
                 "int, float, float const*)",
                 "void transformer_engine::normalization::rmsnorm_fwd_tuned_kernel<float>(int)"});
  Append(&step, {gemm, pow, mean, add, "triton_poi_fused_rsqrt_5", mul, mul});
  EXPECT_TRUE(CountMatches(step).empty());
}

// End to end: the finding's id, its per-variant counts, and a remedy with
// only the detected platform's switches.
TEST(FingerprintChains, FindingsNameThePlatformsRemedy) {
  std::vector<std::string> ascend_step = {"MatMulV3"};
  Append(&ascend_step, {"LpNormV2", "Pows", "Add"}, 7);
  Append(&ascend_step, {"Muls", "TensorMove"}, 6);
  model::RankProfile ascend = ProfileOfTypes(ascend_step);
  ascend.info.cann_version = "8.3.RC1";
  const JobAnalysis on_npu = AnalyzeOne(std::move(ascend));
  const Finding* clip = FindingWithId(on_npu, "per-tensor-grad-clip");
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(clip->occurrences, 13);
  EXPECT_EQ(EvidenceValue(*clip, "instances_norm"), 7);
  EXPECT_EQ(EvidenceValue(*clip, "instances_scale"), 6);
  EXPECT_NE(clip->remedy.find("ForeachNorm"), std::string::npos) << clip->remedy;
  EXPECT_EQ(clip->remedy.find("GPU"), std::string::npos) << clip->remedy;

  const std::string sort = "void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<P, long>()";
  const std::string select = "void at::native::indexSelectLargeIndex<c10::BFloat16, long>()";
  const std::string gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n";
  std::vector<std::string> gpu_step;
  Append(&gpu_step, {sort, select, gemm}, 3);
  model::RankProfile gpu = ProfileOfTypes(gpu_step);
  gpu.timeline.devices.push_back(model::DeviceProperties{0, "NVIDIA H100 80GB HBM3"});
  const JobAnalysis on_gpu = AnalyzeOne(std::move(gpu));
  const Finding* permute = FindingWithId(on_gpu, "moe-token-permute");
  ASSERT_NE(permute, nullptr);
  EXPECT_EQ(EvidenceValue(*permute, "instances_gpu-permute"), 3);
  EXPECT_NE(permute->remedy.find("--moe-permute-fusion"), std::string::npos) << permute->remedy;
  EXPECT_EQ(permute->remedy.find("torch_npu"), std::string::npos) << permute->remedy;
  EXPECT_EQ(permute->remedy.find("MindSpeed"), std::string::npos) << permute->remedy;
}

TEST(FingerprintAcceptMemo, OneAnswerListPerEntryAndOnlyForItsOwnLibrary) {
  const FingerprintLibrary& lib = FingerprintLibrary::Builtin();
  FingerprintAcceptMemo memo(lib);
  const std::vector<uint8_t>& cast = memo.Accepts("cast", "cast");
  size_t members = 0;
  for (const Fingerprint& fp : lib.fingerprints()) members += fp.members.size();
  EXPECT_EQ(cast.size(), members);
  EXPECT_GT(std::count(cast.begin(), cast.end(), 1), 0) << "casts sit in several chains";
  EXPECT_EQ(&memo.Accepts("cast", "cast"), &cast) << "asked once, kept";
  EXPECT_NE(&memo.Accepts("cast", "castx"), &cast) << "the name is part of the entry";
  // A memo made for another library is not used: the answers are the
  // sequence's own.
  const FingerprintLibrary ascend = lib.WithoutNameOnlyRows();
  FingerprintAcceptMemo other(ascend);
  std::vector<std::string> types;
  Append(&types, {"Cast", "Mul", "Cast", "MatMulV3"}, 4);
  for (const auto& seq : BuildKernelSequences(ProfileOfTypes(types), 1, lib, 1)) {
    EXPECT_TRUE(SameInstances(MatchFingerprints(seq, lib, &other), MatchFingerprints(seq, lib)));
  }
}

}  // namespace
}  // namespace trainscope::analysis
