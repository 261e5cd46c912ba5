#include "model/kernel_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace trainscope::model {
namespace {

// Two CUTLASS 3 GEMMs that differ only in their tile shape (names as Kineto
// records them, shortened to the parts that matter).
constexpr std::string_view kCutlassTile128 =
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
    "int>, "
    "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized"
    "<4, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >>, cute::tuple<cute::C<128>, "
    "cute::C<128>, "
    "cute::C<64> >, cutlass::bfloat16_t> > >(cutlass::gemm::kernel::GemmUniversal<...>::Params)";
constexpr std::string_view kCutlassTile256 =
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
    "int>, "
    "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized"
    "<4, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >>, cute::tuple<cute::C<256>, "
    "cute::C<128>, "
    "cute::C<64> >, cutlass::bfloat16_t> > >(cutlass::gemm::kernel::GemmUniversal<...>::Params)";

TEST(KernelNamesTest, ShortKernelNameDropsArgumentsAndParameters) {
  EXPECT_EQ(ShortKernelName("void at::native::foo<float, 4>(int)"), "at::native::foo");
  EXPECT_EQ(ShortKernelName("void (anonymous namespace)::f<int>(int)"), "(anonymous namespace)::f");
  EXPECT_EQ(ShortKernelName("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT"),
            "nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT");
}

TEST(KernelNamesTest, ShortArgumentsAreKeptCompacted) {
  EXPECT_EQ(KernelOpType("void at::native::vectorized_elementwise_kernel<4, "
                         "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
                         "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"),
            "at::native::vectorized_elementwise_kernel<4,FillFunctor<float>,Array<char*,1>>");
  EXPECT_EQ(KernelOpType("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, "
                         "1>(float, float)"),
            "cudnn::bn_bw_1C11_kernel_new<float,float,float2,512,true,1>");
  EXPECT_EQ(KernelOpType("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, "
                         "1>(float, float)"),
            "cudnn::bn_bw_1C11_kernel_new<float,float,float2,128,true,1>");
}

TEST(KernelNamesTest, CutlassShapesFoldIntoTileNotation) {
  EXPECT_EQ(
      KernelOpType("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::GemmShape<"
                   "128, 256, 32>, cutlass::gemm::GemmShape<64, 64, 32> > >(Params)"),
      "cutlass::Kernel<Gemm<128x256x32,64x64x32>>");
  // Constants "_128" (CuTe) fold as well; a single number stays a template argument.
  EXPECT_EQ(KernelOpType("void k<cute::tuple<cute::_128, cute::_64>, Swizzle<4> >()"),
            "k<128x64,Swizzle<4>>");
}

TEST(KernelNamesTest, NamesWithoutTemplateArgumentsAreTheirShortName) {
  EXPECT_EQ(KernelOpType("attn_fwd"), "attn_fwd");
  EXPECT_EQ(KernelOpType("at::cuda::(anonymous namespace)::spin_kernel(long)"),
            "at::cuda::(anonymous namespace)::spin_kernel");
  EXPECT_EQ(KernelOpType("MatMulV3"), "MatMulV3");
  EXPECT_EQ(KernelOpType("Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_K1"),
            "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8x1_SN_K1");
}

TEST(KernelNamesTest, TwoCutlassTileConfigsGiveTwoOpTypesWithOneNormalisedForm) {
  const std::string a = KernelOpType(kCutlassTile128);
  const std::string b = KernelOpType(kCutlassTile256);
  EXPECT_NE(a, b);
  // Long arguments are abbreviated to their leading template and the tile
  // shapes in them, with the hash of the whole name.
  EXPECT_EQ(a.substr(0, a.find('#')), "cutlass::device_kernel<GemmUniversal,1x1x1,128x128x64...>");
  EXPECT_EQ(b.substr(0, b.find('#')), "cutlass::device_kernel<GemmUniversal,1x1x1,256x128x64...>");
  EXPECT_EQ(a.size() - a.find('#'), 7u);
  EXPECT_EQ(
      a, "cutlass::device_kernel<GemmUniversal,1x1x1,128x128x64...>#3c7e68");  // docs/timelines.md
  EXPECT_EQ(NormalisedOpType(a), "cutlass::device_kernel");
  EXPECT_EQ(NormalisedOpType(b), "cutlass::device_kernel");
  // Deterministic: the same name always gives the same op type.
  EXPECT_EQ(KernelOpType(kCutlassTile128), a);
}

TEST(KernelNamesTest, NormalisedOpTypeDropsArgumentsAndTheIdentitySuffix) {
  EXPECT_EQ(NormalisedOpType("at::native::vectorized_elementwise_kernel<4,FillFunctor<float>>"),
            "at::native::vectorized_elementwise_kernel");
  const std::string hashed = WithNameHash("cuda::expand_impl", "cuda::expand_impl(int4 const*)");
  EXPECT_EQ(hashed.size(), std::string_view("cuda::expand_impl").size() + 7);
  EXPECT_EQ(NormalisedOpType(hashed), "cuda::expand_impl");
  EXPECT_EQ(NormalisedOpType("MatMulV3"), "MatMulV3");
  EXPECT_NE(WithNameHash("f", "f(int)"), WithNameHash("f", "f(float)"));
}

TEST(KernelNamesTest, ATemplatedReturnTypeIsNotTheKernel) {
  // vLLM's fused norm as Kineto records it (tracelens_b200_vllm_moe_tp8 trace).
  constexpr std::string_view kName =
      "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
      "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, float, int, int)";
  EXPECT_EQ(ShortKernelName(kName), "vllm::fused_add_rms_norm_kernel");
  EXPECT_EQ(KernelOpType(kName), "vllm::fused_add_rms_norm_kernel<BFloat16,8>");
  // A space in a name without templates is not a return type.
  EXPECT_EQ(KernelOpType("Memcpy DtoD (Device -> Device)"), "Memcpy DtoD");
}

TEST(KernelNamesTest, HugeNamesStayLinear) {
  // 40,000 shapes and 20,000 nesting levels: one pass each, no quadratic rescans.
  std::string shapes = "void k<";
  for (int i = 0; i < 40000; ++i) shapes += "cutlass::gemm::GemmShape<64, 64, 32>, ";
  shapes += "int>(int)";
  const std::string op = KernelOpType(shapes);
  EXPECT_EQ(op.substr(0, op.find('#')), "k<64x64x32...>");
  std::string nested = "void k" + std::string(20000, '<') + "1" + std::string(20000, '>') + "()";
  EXPECT_EQ(NormalisedOpType(KernelOpType(nested)), "k");
}

TEST(KernelNamesTest, UnbalancedArgumentsDoNotCrash) {
  EXPECT_EQ(KernelOpType("void f<int, g<float>(int)"), "f");
  EXPECT_EQ(KernelOpType("<<<"), "<<<");
  EXPECT_EQ(KernelOpType(""), "");
}

// Names as Kineto records them in the corpus traces: deepseek_v3 (H800,
// cuBLAS sm90 xmma), tracelens_qwen1.5 mi300 (hipBLASLt Tensile Cijk_),
// hta_ddp_2rank a100 (cutlass 2 GEMMs).
constexpr std::string_view kXmmaNn =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas";
constexpr std::string_view kXmmaNt =
    "sm90_xmma_gemm_bf16f32_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas";
constexpr std::string_view kXmmaTn =
    "sm90_xmma_gemm_bf16f32_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas";
constexpr std::string_view kCijk128 =
    "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x224x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
    "AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_"
    "LBSPPA512_LBSPPB128_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT4_7_MO40_NTn1_NTA0_NTB0_"
    "NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_SK0_"
    "SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA4_VWB1_WSGRA0_WSGRB0_WS64_WG32_8_1";
constexpr std::string_view kCijk256 =
    "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_"
    "AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_"
    "LBSPPA1024_LBSPPB512_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT8_4_MO40_NTn1_NTA0_NTB0_"
    "NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW8_SK0_"
    "SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA8_VWB4_WSGRA0_WSGRB0_WS64_WG32_8_1";
constexpr std::string_view kCutlassNn =
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_"
    "tensorop_s1688gemm_256x64_16x4_nn_align4::Params)";
constexpr std::string_view kCutlassTn =
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align4>(cutlass_80_"
    "tensorop_s1688gemm_256x64_16x4_tn_align4::Params)";

TEST(KernelNamesTest, MangledNamesAreDemangled) {
  // ROCm aiter kernels are recorded mangled (tracelens mi300 traces).
  EXPECT_EQ(DemangledKernelName("_ZN5aiter18fmha_fwd_hd128_fp8E"), "aiter::fmha_fwd_hd128_fp8");
  EXPECT_EQ(KernelOpType("_ZN5aiter18fmha_fwd_hd128_fp8E"), "aiter::fmha_fwd_hd128_fp8");
  // A function template: its arguments become the op type's.
  EXPECT_EQ(DemangledKernelName("_Z6kernelILi128ELi64EEvPf"), "void kernel<128, 64>(float*)");
  EXPECT_EQ(KernelOpType("_Z6kernelILi128ELi64EEvPf"), "kernel<128,64>");
  // Not mangled, or not valid: as it is.
  EXPECT_EQ(DemangledKernelName("Cijk_Ailk_Bljk"), "Cijk_Ailk_Bljk");
  EXPECT_EQ(DemangledKernelName("_Z"), "_Z");
  EXPECT_EQ(KernelOpType("_Z"), "_Z");
}

TEST(KernelNamesTest, ElidedNamesKeepTheStartAndTheTail) {
  EXPECT_EQ(ElideName("attn_fwd", 34), "attn_fwd");
  const std::string xmma = ElideName(kXmmaNn, 34);
  EXPECT_EQ(TextColumns(xmma), 34u);
  EXPECT_TRUE(xmma.starts_with("sm90_xmma_gemm_bf")) << xmma;
  EXPECT_TRUE(xmma.ends_with("_cublas")) << xmma;
  // The kernel's name up to its template arguments, then the tile and layout.
  const std::string cutlass = ElideName(KernelOpType(kCutlassNn), 34);
  EXPECT_TRUE(cutlass.starts_with("cutlass::Kernel<…")) << cutlass;
  EXPECT_NE(cutlass.find("16x4_nn_ali"), std::string::npos) << cutlass;
  // Leading namespaces give way to the kernel's own name.
  EXPECT_EQ(
      ElideName("at::native::vectorized_elementwise_kernel<4,FillFunctor<float>,Array<char*,1>>",
                34),
      "vectorized_elemen…,Array<char*,1>>");
  EXPECT_EQ(TextColumns(ElideName(kCijk128, 1)), 1u);
}

TEST(KernelNamesTest, ElidedNamesOfOneTableAreDistinct) {
  const std::vector<std::string> names = {std::string(kXmmaNn),     std::string(kXmmaNt),
                                          std::string(kXmmaTn),     std::string(kCijk128),
                                          std::string(kCijk256),    KernelOpType(kCutlassNn),
                                          KernelOpType(kCutlassTn), std::string(kXmmaNn)};
  for (const size_t columns : {20u, 24u, 34u, 48u}) {
    const std::vector<std::string> shown = DistinctElidedNames(names, columns);
    ASSERT_EQ(shown.size(), names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      EXPECT_LE(TextColumns(shown[i]), columns) << shown[i];
      for (size_t j = 0; j < i; ++j) {
        EXPECT_EQ(shown[i] == shown[j], names[i] == names[j])
            << columns << ": " << shown[i] << " / " << shown[j];
      }
    }
  }
  // Where start and tail agree, the part that differs is shown between them.
  const std::vector<std::string> cijk =
      DistinctElidedNames({std::string(kCijk128), std::string(kCijk256)}, 34);
  EXPECT_NE(cijk[0].find("MT128x224x64"), std::string::npos) << cijk[0];
  EXPECT_NE(cijk[1].find("MT256x128x64"), std::string::npos) << cijk[1];
  EXPECT_TRUE(cijk[0].starts_with("Cijk_")) << cijk[0];
  EXPECT_TRUE(cijk[0].ends_with("WG32_8_1")) << cijk[0];
  const std::vector<std::string> xmma =
      DistinctElidedNames({std::string(kXmmaNt), std::string(kXmmaTn)}, 34);
  EXPECT_NE(xmma[1].find("tn_n"), std::string::npos) << xmma[1];
}

}  // namespace
}  // namespace trainscope::model
