#include "analysis/common/family_rules.h"

#include <gtest/gtest.h>

#include "model/kernel_names.h"

namespace trainscope::analysis {
namespace {

using model::ActivityKind;

std::string FamilyOf(const FamilyRules& rules, std::string_view type, std::string_view name = "",
                     ActivityKind kind = ActivityKind::kCompute) {
  return rules.families()[rules.Classify(type, name, kind)];
}

TEST(FamilyRulesTest, GlobMatchIsCaseInsensitiveWithStars) {
  EXPECT_TRUE(GlobMatch("matmul*", "MatMulV3"));
  EXPECT_TRUE(GlobMatch("*attention*", "FlashAttentionScoreGrad"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYY"));
  EXPECT_FALSE(GlobMatch("cast", "Casts"));
  EXPECT_TRUE(GlobMatch("pad", "PAD"));
}

TEST(FamilyRulesTest, BuiltinTableClassifiesTheArticleFamilies) {
  const FamilyRules& rules = FamilyRules::Builtin();
  EXPECT_EQ(FamilyOf(rules, "MatMulV3"), "matmul/attention");
  EXPECT_EQ(FamilyOf(rules, "FlashAttentionScoreGrad"), "matmul/attention");
  EXPECT_EQ(FamilyOf(rules, "RmsNorm"), "norm");
  EXPECT_EQ(FamilyOf(rules, "Cast"), "glue/data movement");
  EXPECT_EQ(FamilyOf(rules, "StridedSlice"), "glue/data movement");
  EXPECT_EQ(FamilyOf(rules, "PadV3"), "glue/data movement");
  EXPECT_EQ(FamilyOf(rules, "Mul"), "elementwise");
  EXPECT_EQ(FamilyOf(rules, "Silu"), "elementwise");
  EXPECT_EQ(FamilyOf(rules, "Rsqrt"), "elementwise");
  EXPECT_EQ(FamilyOf(rules, "LogSoftmaxV2"), "loss");
  EXPECT_EQ(FamilyOf(rules, "NLLLossGrad"), "loss");
  EXPECT_EQ(FamilyOf(rules, "ApplyAdamW"), "optimizer");
  EXPECT_EQ(
      FamilyOf(rules, "hcom_allReduce_", "hcom_allReduce__586_0_1", ActivityKind::kCommunication),
      "communication");
  EXPECT_EQ(FamilyOf(rules, "ChunkGatedDeltaRule"), "custom/linear attention");
  EXPECT_EQ(FamilyOf(rules, "SomethingNobodyKnows"), "other");
  // GPU kernels are classified by name.
  EXPECT_EQ(
      FamilyOf(rules, "", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
      "communication");
  EXPECT_EQ(FamilyOf(rules, "", "void at::native::vectorized_elementwise_kernel<4, ...>"),
            "elementwise");
  EXPECT_EQ(FamilyOf(rules, "", "sm90_xmma_gemm_bf16bf16_bf16f32"), "matmul/attention");
  EXPECT_EQ(FamilyOf(rules, "", "dpsk::ep::internode::dispatch<...>"), "communication");
}

// Representative kernel names of each GPU library, as Kineto records them
// (from the corpus traces where one has them, else the library's own naming
// scheme), with the op type the trace reader derives from them.
struct LibraryKernel {
  const char* library;
  const char* name;
  const char* family;
};

TEST(FamilyRulesTest, BuiltinTableNamesTheKernelsOfGpuLibraries) {
  const LibraryKernel kernels[] = {
      {"Tensile", "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_K1", "matmul/attention"},
      {"hipBLASLt", "Cijk_Ailk_Bljk_HHS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1",
       "matmul/attention"},
      {"CK", "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<...>, true>()",
       "matmul/attention"},
      {"CK conv", "void ck::kernel_grouped_conv_fwd_multiple_abd_xdl_cshuffle<...>()",
       "matmul/attention"},
      {"CK fmha", "void ck_tile::kentry<64, 2, ck_tile::FmhaFwdKernel<...> >(...)",
       "matmul/attention"},
      {"aiter fmha", "_ZN5aiter18fmha_fwd_hd128_fp8E", "matmul/attention"},
      {"aiter mla", "_ZN5aiter41mla_dec_stage1_bf16_a16w16_subQ16_mqa16E", "matmul/attention"},
      {"aiter fmoe", "_ZN5aiter47fmoe_bf16_blockscaleFp8_g1u1_vs_silu_1tg_32x256E",
       "matmul/attention"},
      {"ROCm Triton flash attention", "attn_fwd", "matmul/attention"},
      {"SageAttention Triton", "_attn_fwd", "matmul/attention"},
      {"SageAttention CUDA",
       "void qk_int_sv_f8_attn_kernel<128u, 64u, 32u, 64u, 128u, (DataType)1>(signed char*, ...)",
       "matmul/attention"},
      {"SageAttention sage_fwd", "sage_fwd", "matmul/attention"},
      {"SageAttention sage_bwd", "sage_bwd_dq_dk_dv", "matmul/attention"},
      // The vLLM B200 trace of the corpus: a paged attention kernel whose
      // name holds "Chunked", which the linear-attention rule *chunk* took.
      {"TensorRT-LLM fmha (Chunked)",
       "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvSlidingOrChunkedCausalP16VarSeqQ128Kv128"
       "PersistentContext",
       "matmul/attention"},
      {"vLLM paged attention",
       "void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128>(...)",
       "matmul/attention"},
      {"vLLM ROCm paged attention",
       "void paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, 128, 16>(...)",
       "matmul/attention"},
      {"vLLM Triton unified attention (ROCm V1)", "kernel_unified_attention_2d",
       "matmul/attention"},
      {"SGLang Triton decode attention", "_fwd_grouped_kernel_stage1", "matmul/attention"},
      {"SGLang Triton decode attention reduce", "_fwd_kernel_stage2", "matmul/attention"},
      {"cuBLAS nvjet", "nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN", "matmul/attention"},
      {"cuBLASLt epilogue",
       "void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, "
       "cublasLtEpilogue_t, int)",
       "matmul/attention"},
      {"cuBLAS gemv", "void gemv2T_kernel_val<int, int, float, float, float, 128, 16>(float)",
       "matmul/attention"},
      {"CUTLASS", "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(...)",
       "matmul/attention"},
      {"CUTLASS 3", "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<...> >(...)",
       "matmul/attention"},
      {"FlashAttention 2",
       "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, false>(...)",
       "matmul/attention"},
      {"FlashAttention 2 bwd",
       "void flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<...> >()",
       "matmul/attention"},
      {"FlashAttention 3",
       "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<...> > >()",
       "matmul/attention"},
      {"trtllm-gen",
       "bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_"
       "TN_transOut_schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f",
       "matmul/attention"},
      {"cuDNN conv", "cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", "matmul/attention"},
      {"cuDNN dgrad",
       "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int)",
       "matmul/attention"},
      {"TransformerEngine attention",
       "void transformer_engine::fused_attn::cu_seqlens_to_offsets()", "matmul/attention"},
      {"TransformerEngine norm",
       "void transformer_engine::normalization::rmsnorm_fwd_tuned_kernel<...>(...)", "norm"},
      {"TransformerEngine cast", "void transformer_engine::cast_transpose_kernel<...>(...)",
       "glue/data movement"},
      {"cuDNN batch norm",
       "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 128, true, 1, true>(float)",
       "norm"},
      {"MIOpen batch norm", "MIOpenBatchNormFwdTrainSpatial", "norm"},
      {"cuDNN layout", "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>(...)",
       "glue/data movement"},
      {"vLLM KV cache", "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16>(...)",
       "glue/data movement"},
      {"TensorRT-LLM MoE routing",
       "void moe::dev::routing::routingIndicesHistogramKernel<...>(...)", "glue/data movement"},
      {"Inductor pointwise", "triton_poi_fused_add_mul_0", "elementwise"},
      {"Inductor reduction", "triton_red_fused__softmax_1", "elementwise"},
      {"Inductor old naming", "triton__0d1d2d3d4d5d6d", "elementwise"},
      {"Inductor template", "triton_tem_fused_mm_0", "matmul/attention"},
      {"NCCL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       "communication"},
      {"RCCL", "ncclKernel_AllReduce_RING_LL_Sum_bf16(ncclDevComm*, unsigned long, ncclWork*)",
       "communication"},
      {"PyTorch pooling", "void at::native::(anonymous namespace)::max_pool_forward_nchw<float>()",
       "elementwise"},
      {"vLLM rotary", "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)",
       "elementwise"},
  };
  const FamilyRules& rules = FamilyRules::Builtin();
  for (const LibraryKernel& k : kernels) {
    // The op type a trace gives the kernel: its display form, matched normalised.
    const std::string op_type = model::KernelOpType(k.name);
    EXPECT_EQ(FamilyOf(rules, op_type, k.name), k.family) << k.library << ": " << k.name;
  }
}

TEST(FamilyRulesTest, TypeRulesMatchTheNormalisedOpType) {
  // A type rule on the template's name covers every instance of it, whatever
  // the template arguments say.
  auto user = FamilyRules::Parse("fused-cast\ttype\tcuda::cast_back_impl\n", "user.tsv");
  ASSERT_TRUE(user.ok());
  const FamilyRules rules = FamilyRules::Merge(user.value(), FamilyRules::Builtin());
  for (const char* name : {"void cuda::cast_back_impl<__nv_fp8x2_e4m3>(void const*)",
                           "void cuda::cast_back_impl<__nv_fp8x2_e5m2>(void const*)"}) {
    EXPECT_EQ(FamilyOf(rules, model::KernelOpType(name), name), "fused-cast") << name;
  }
  // Template arguments are not matched by type rules: "Gemm" in an argument
  // does not make a fill kernel a GEMM.
  const char* fill = "void at::native::vectorized_elementwise_kernel<4, GemmFill<float> >(int)";
  EXPECT_EQ(FamilyOf(FamilyRules::Builtin(), model::KernelOpType(fill), "elementwise_kernel"),
            "elementwise");
}

TEST(FamilyRulesTest, BuiltinTableHasTheNineFamiliesOfTheMethod) {
  const auto& names = FamilyRules::Builtin().families();
  for (const char* family : {"matmul/attention", "custom/linear attention", "norm", "elementwise",
                             "glue/data movement", "loss", "optimizer", "communication", "other"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), family), names.end()) << family;
  }
}

TEST(FamilyRulesTest, UserRulesComeFirstAndCanAddFamilies) {
  auto user =
      FamilyRules::Parse("# mine\nmy kernels\ttype\tMyFused*\nnorm  type  Cast\n", "user.tsv");
  ASSERT_TRUE(user.ok()) << user.status().message();
  FamilyRules merged = FamilyRules::Merge(*user, FamilyRules::Builtin());
  EXPECT_EQ(FamilyOf(merged, "MyFusedThing"), "my kernels");
  EXPECT_EQ(FamilyOf(merged, "Cast"), "norm");
  EXPECT_EQ(FamilyOf(merged, "MatMulV2"), "matmul/attention");
}

TEST(FamilyRulesTest, BadRuleFileNamesFileLineAndHint) {
  auto bad = FamilyRules::Parse("norm\ttype\tRmsNorm\nnorm\twhatever\tX\n", "rules.tsv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("rules.tsv:2"), std::string::npos);
  EXPECT_NE(bad.status().message().find("hint"), std::string::npos);
  auto columns = FamilyRules::Parse("only-two\ttype\n", "rules.tsv");
  ASSERT_FALSE(columns.ok());
  EXPECT_NE(columns.status().message().find("rules.tsv:1"), std::string::npos);
}

}  // namespace
}  // namespace trainscope::analysis
