#include "model/kernel_names.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace trainscope::model
