// Fingerprint library, matching, attribution, and the planted patterns of
// synth jobs found with their exact instance counts.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "analysis/motifs/fingerprint_attribution.h"
#include "analysis/motifs/fingerprint_library.h"
#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/motif_sequence.h"
#include "finding_lookup.h"
#include "formats/load_profiles.h"
#include "formats/trace/kineto_reader.h"
#include "formats/trace/trace_view_reader.h"
#include "random_draws.h"
#include "synth/synth.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

using testing::EvidenceValue;
using testing::FindingWithId;

// A rank with one compute stream running |types| back to back, 10 us each.
model::RankProfile ProfileOf(const std::vector<std::string>& types, int32_t step = 1) {
  model::RankProfile p;
  int64_t t = 1'000'000;
  for (const auto& type : types) {
    model::DeviceEvent row;
    row.step = step;
    row.op_type = p.strings.Intern(type);
    row.name = p.strings.Intern("aclnn" + type);
    row.stream = 2;
    row.start_ns = t;
    row.duration_ns = 10'000;
    p.device_events.Append(row);
    t += 12'000;
  }
  return p;
}

std::map<std::string, int> CountMatches(const model::RankProfile& p,
                                        const FingerprintLibrary& lib) {
  std::map<std::string, int> counts;
  for (const auto& seq : BuildKernelSequences(p, 1, lib, 1)) {
    for (const auto& m : MatchFingerprints(seq, lib)) {
      ++counts[lib.fingerprints()[m.fingerprint].id + "/" +
               lib.fingerprints()[m.fingerprint].variant];
    }
  }
  return counts;
}

TEST(FingerprintLibrary, BuiltinParsesWithTheRequiredIds) {
  const auto& lib = FingerprintLibrary::Builtin();
  ASSERT_GT(lib.fingerprints().size(), 10u);
  for (const char* id : {"unfused-rmsnorm", "unfused-gated-norm", "unfused-swiglu", "unfused-rope",
                         "unfused-cross-entropy", "glue-around-custom-op", "unfused-optimizer",
                         "cast-chain", "unfused-attention", "unfused-layernorm", "bias-dropout-add",
                         "moe-expert-loop", "per-tensor-grad-clip", "moe-token-permute"}) {
    const Fingerprint* fp = lib.Find(id);
    ASSERT_NE(fp, nullptr) << id;
    EXPECT_FALSE(fp->remedy.empty()) << id;
    EXPECT_FALSE(fp->formula.empty()) << id;
  }
  EXPECT_EQ(lib.Canonical("Muls"), "mul");
  EXPECT_EQ(lib.Canonical("Swish"), "silu");
  EXPECT_EQ(lib.Canonical("ReduceMean"), "mean");
}

TEST(FingerprintLibrary, ParseErrorsNameTheLine) {
  auto bad = FingerprintLibrary::Parse("# c\nfingerprint\tx\tfwd\tA B\tfuse\tt\n", "user.tsv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("user.tsv:2"), std::string::npos);
  auto action = FingerprintLibrary::Parse("fingerprint\tx\tfwd\tA B\tmelt\tt\tf\tr\tm\n", "u.tsv");
  ASSERT_FALSE(action.ok());
  auto short_pattern =
      FingerprintLibrary::Parse("fingerprint\tx\tfwd\tA B?\tfuse\tt\tf\tr\tm\n", "u.tsv");
  ASSERT_FALSE(short_pattern.ok());
  auto kind = FingerprintLibrary::Parse("pattern\tx\n", "u.tsv");
  ASSERT_FALSE(kind.ok());
}

TEST(FingerprintLibrary, UserEntriesMergeFirst) {
  auto user = FingerprintLibrary::Parse(
      "equiv\tFancyMul\tMul\nfingerprint\tmy-chain\tfwd\tFoo Bar Baz\tfuse\tt\tf\tr\tm\n", "u.tsv");
  ASSERT_TRUE(user.ok()) << user.status().message();
  const auto merged = FingerprintLibrary::Merge(*user, FingerprintLibrary::Builtin());
  EXPECT_EQ(merged.fingerprints().front().id, "my-chain");
  EXPECT_EQ(merged.Canonical("FancyMul"), "mul");
  EXPECT_EQ(merged.Canonical("Muls"), "mul");
  const auto counts =
      CountMatches(ProfileOf({"Foo", "Bar", "Baz", "X", "Foo", "Bar", "Baz"}), merged);
  EXPECT_EQ(counts.at("my-chain/fwd"), 2);
}

TEST(FingerprintMatch, VariantsAndOptionalCasts) {
  const auto& lib = FingerprintLibrary::Builtin();
  // The article's chain, a Pow/Mean/Muls variant without Casts, and the
  // zero-centred one with Adds(1+w): all three are RMSNorms.
  const auto counts = CountMatches(
      ProfileOf({"MatMulV3", "Cast", "Pows",     "ReduceMean", "Adds", "Rsqrt",      "Mul",
                 "Mul",      "Cast", "MatMulV3", "Pow",        "Mean", "Add",        "Rsqrt",
                 "Muls",     "Mul",  "MatMulV3", "Cast",       "Pows", "ReduceMean", "Adds",
                 "Rsqrt",    "Mul",  "Adds",     "Mul",        "Cast", "MatMulV3"}),
      lib);
  EXPECT_EQ(counts.at("unfused-rmsnorm/fwd"), 3);
  EXPECT_EQ(counts.size(), 1u);
}

// The methodology's own diagram of the unfused RMSNorm (seed 000): Hugging
// Face's weight * hidden.to(input_dtype) puts the cast between the two
// multiplications. Casts may sit in any gap of a chain, and the op names
// of other CANN / torch_npu generations (aclnn prefixes, V2/V3 suffixes)
// are the same operators.
TEST(FingerprintMatch, CastsAnywhereAndOtherGenerationsSpellings) {
  const auto& lib = FingerprintLibrary::Builtin();
  const auto seed = CountMatches(ProfileOf({"MatMulV3", "Cast", "Pows", "ReduceMean", "Adds",
                                            "Rsqrt", "Mul", "Cast", "Mul", "MatMulV3"}),
                                 lib);
  EXPECT_EQ(seed.at("unfused-rmsnorm/fwd"), 1);
  EXPECT_EQ(seed.size(), 1u);
  const auto spelled =
      CountMatches(ProfileOf({"MatMulV2", "aclnnCast", "PowsV2", "aclnnMean", "AddV3", "Rsqrt",
                              "aclnnMul", "Cast", "MulV2", "Cast", "BatchMatMulV2"}),
                   lib);
  EXPECT_EQ(spelled.at("unfused-rmsnorm/fwd"), 1);
  // A cast between Silu and Mul still makes a SwiGLU.
  const auto swiglu =
      CountMatches(ProfileOf({"MatMulV3", "Swish", "Cast", "Mul", "MatMulV3"}), lib);
  EXPECT_EQ(swiglu.at("unfused-swiglu/fwd"), 1);
  // Casts alone are still the cast-chain, not absorbed into something else.
  const auto casts = CountMatches(ProfileOf({"MatMulV3", "Cast", "Cast", "MatMulV3"}), lib);
  EXPECT_EQ(casts.at("cast-chain/fwd"), 1);
}

// The seeds' other unfused patterns, in the spellings eager code produces on
// Ascend: attention as bmm-softmax-bmm, a hand-written LayerNorm,
// bias-dropout-add, and MoE experts run one at a time.
TEST(FingerprintMatch, AttentionLayerNormBiasDropoutAddAndExpertLoops) {
  const auto& lib = FingerprintLibrary::Builtin();
  const auto attention =
      CountMatches(ProfileOf({"TransData", "BatchMatMulV2", "Muls", "Add", "SoftmaxV2",
                              "DropOutDoMaskV3", "BatchMatMulV2", "TransData", "BatchMatMulV2",
                              "RealDiv", "SoftmaxV2", "BatchMatMulV2"}),
                   lib);
  EXPECT_EQ(attention.at("unfused-attention/fwd"), 2);
  EXPECT_EQ(attention.size(), 1u);
  const auto layernorm =
      CountMatches(ProfileOf({"MatMulV3", "ReduceMean", "Sub", "Pows", "ReduceMean", "Adds", "Sqrt",
                              "RealDiv", "Mul", "Add", "MatMulV3"}),
                   lib);
  EXPECT_EQ(layernorm.at("unfused-layernorm/fwd"), 1);
  EXPECT_EQ(layernorm.count("unfused-rmsnorm/fwd"), 0u);  // the longer chain wins
  const auto bda =
      CountMatches(ProfileOf({"MatMulV3", "Add", "DropOutDoMaskV3", "Add", "MatMulV3"}), lib);
  EXPECT_EQ(bda.at("bias-dropout-add/fwd"), 1);
  std::vector<std::string> experts;
  for (int e = 0; e < 4; ++e) {
    for (const char* op : {"GatherV2", "MatMulV2", "Swish", "Mul", "MatMulV2", "Muls", "IndexAdd"})
      experts.push_back(op);
  }
  const auto moe = CountMatches(ProfileOf(experts), lib);
  EXPECT_EQ(moe.at("moe-expert-loop/fwd"), 4);
  EXPECT_EQ(moe.count("unfused-swiglu/fwd"), 0u);  // inside each expert's chain
  // Eager attention on a GPU: cuBLAS GEMMs around PyTorch's softmax kernel.
  const auto gpu =
      CountMatches(ProfileOf({"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn",
                              "void at::native::vectorized_elementwise_kernel<4, MulFunctor>",
                              "void softmax_warp_forward<c10::BFloat16, float, 10, false>",
                              "ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_nn"}),
                   lib);
  EXPECT_EQ(gpu.at("unfused-attention/gpu-fwd"), 1);
}

TEST(FingerprintMatch, LongestChainWinsAndInstancesDoNotOverlap) {
  const auto& lib = FingerprintLibrary::Builtin();
  // A gated RMSNorm contains an RMSNorm and a Silu,Mul: only the gated one counts.
  const auto counts =
      CountMatches(ProfileOf({"Cast", "Pows", "ReduceMean", "Adds", "Rsqrt", "Mul", "Mul", "Cast",
                              "Swish", "Mul", "Cast", "MatMulV3", "Swish", "Mul", "MatMulV3"}),
                   lib);
  EXPECT_EQ(counts.at("unfused-gated-norm/fwd"), 1);
  EXPECT_EQ(counts.at("unfused-swiglu/fwd"), 1);
  EXPECT_EQ(counts.count("unfused-rmsnorm/fwd"), 0u);
  // Glue around any op: the op itself is the ANY member.
  const auto glue = CountMatches(ProfileOf({"StridedSlice", "PadV3", "Transpose", "MyCustomOp",
                                            "TransData", "ConcatD", "Add"}),
                                 lib);
  EXPECT_EQ(glue.at("glue-around-custom-op/fwd"), 1);
}

// The member match as first written: each subtree's best returned up the
// recursion, a fresh list of ANY positions per call, the taken member
// preferred on a tie.
int32_t LongestMatchAsFirstWritten(const std::vector<PatternMember>& members,
                                   const std::vector<std::vector<uint8_t>>& accepts,
                                   const std::vector<int32_t>& tokens, size_t k, int32_t pos,
                                   std::vector<int32_t>* path_any, std::vector<int32_t>* best_any) {
  if (k == members.size()) {
    *best_any = *path_any;
    return pos;
  }
  int32_t best = -1;
  if (pos < static_cast<int32_t>(tokens.size()) && accepts[k][tokens[pos]] != 0) {
    if (members[k].any) path_any->push_back(pos);
    std::vector<int32_t> any_here;
    best =
        LongestMatchAsFirstWritten(members, accepts, tokens, k + 1, pos + 1, path_any, &any_here);
    if (best >= 0) *best_any = any_here;
    if (members[k].any) path_any->pop_back();
  }
  if (members[k].optional) {
    std::vector<int32_t> any_skip;
    const int32_t skipped =
        LongestMatchAsFirstWritten(members, accepts, tokens, k + 1, pos, path_any, &any_skip);
    if (skipped > best) {
      best = skipped;
      *best_any = any_skip;
    }
  }
  return best;
}

TEST(FingerprintMatch, MemberMatchIsTheRecursionAsFirstWritten) {
  // Random chains of required, optional and ANY members over a small
  // vocabulary, each member accepting a random third of it, matched at every
  // position of a random stream: the same end and the same ANY positions.
  testing::RandomDraws next(20261207);
  size_t matched = 0;
  size_t with_any = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int32_t vocab = 2 + next(6);
    std::vector<PatternMember> members(static_cast<size_t>(1 + next(7)));
    std::vector<std::vector<uint8_t>> accepts;
    for (PatternMember& member : members) {
      member.optional = next(3) == 0;
      member.any = next(5) == 0;
      std::vector<uint8_t> row(static_cast<size_t>(vocab));
      for (uint8_t& a : row) a = member.any || next(3) == 0 ? 1 : 0;
      accepts.push_back(row);
    }
    std::vector<int32_t> tokens(static_cast<size_t>(next(40)));
    for (int32_t& t : tokens) t = next(static_cast<uint32_t>(vocab));
    for (int32_t pos = 0; pos <= static_cast<int32_t>(tokens.size()); ++pos) {
      std::vector<int32_t> path;
      std::vector<int32_t> expected_any;
      const int32_t expected =
          LongestMatchAsFirstWritten(members, accepts, tokens, 0, pos, &path, &expected_any);
      std::vector<int32_t> any_positions = {-7};  // cleared by the call
      ASSERT_EQ(LongestMemberMatch(members, accepts, tokens, pos, &any_positions), expected)
          << "trial " << trial << " at " << pos;
      if (expected < 0) continue;
      EXPECT_EQ(any_positions, expected_any) << "trial " << trial << " at " << pos;
      matched += expected > pos ? 1 : 0;
      with_any += expected_any.empty() ? 0 : 1;
    }
  }
  EXPECT_GT(matched, 500u);   // chains did match
  EXPECT_GT(with_any, 200u);  // and kept ANY positions
}

TEST(FingerprintAttribution, LauncherLinksGiveModuleAndSourceLine) {
  // Host: a python frame of user code > nn.Module > two aten ops, each
  // launching one kernel; the chain is attributed to the module and line.
  model::RankProfile p = ProfileOf({"Pows", "ReduceMean"});
  auto& tl = p.timeline;
  tl.present = true;
  tl.format = "kineto";
  auto host = [&](const char* name, const char* cat, int64_t start, int64_t dur, int32_t parent,
                  int32_t depth) {
    model::HostOp op;
    op.thread = tl.host_ops.ThreadOf(1, 1);
    op.start_ns = start;
    op.duration_ns = dur;
    op.name = p.strings.Intern(name);
    op.category = p.strings.Intern(cat);
    op.parent = parent;
    op.depth = depth;
    tl.host_ops.Append(op);
    return static_cast<int32_t>(tl.host_ops.size() - 1);
  };
  const int32_t frame =
      host("models/qwen3/modeling_qwen3.py(66): forward", "python_function", 0, 900'000, -1, 0);
  const int32_t module =
      host("nn.Module: Qwen3RMSNorm_3", "python_function", 1'000, 800'000, frame, 1);
  const int32_t pow = host("aten::pow", "cpu_op", 2'000, 100'000, module, 2);
  const int32_t launch1 = host("cudaLaunchKernel", "cuda_runtime", 3'000, 5'000, pow, 3);
  const int32_t mean = host("aten::mean", "cpu_op", 200'000, 100'000, module, 2);
  const int32_t launch2 = host("cudaLaunchKernel", "cuda_runtime", 201'000, 5'000, mean, 3);
  // The launch links the trace joins onto the device events.
  for (size_t k = 0; k < p.device_events.size(); ++k)
    p.device_events.launcher.Set(k, k == 0 ? launch1 : launch2);
  const HostAttributor attributor(p);
  ASSERT_TRUE(attributor.available());
  const auto both =
      attributor.Attribute({p.device_events.start_ns[0], p.device_events.start_ns[1]});
  EXPECT_EQ(both.framework_op, "nn.Module: Qwen3RMSNorm_3");
  EXPECT_EQ(both.source, "models/qwen3/modeling_qwen3.py(66): forward");
  const auto one = attributor.Attribute({p.device_events.start_ns[1]});
  EXPECT_EQ(one.framework_op, "aten::mean");
  // No trace: nothing to attribute.
  const model::RankProfile bare = ProfileOf({"Pows"});
  EXPECT_FALSE(HostAttributor(bare).available());
}

// torch_npu's trace_view.json without Python frames: each framework op
// carries its own "Call stack" and nothing but ProfilerStep#1 encloses the
// chain. The RMSNorm members called from model/qwen3_5.py(29) are
// attributed to that line; a member called from another line of rms_norm
// shares only the frame above it; members of unrelated code share none, and
// the attribution says so.
TEST(FingerprintAttribution, ChainMembersStacksGiveTheSharedInnermostFrame) {
  constexpr const char* kJson = R"J([
{"name": "ProfilerStep#1", "pid": 77, "tid": 77, "ts": "1000.000", "dur": 1000, "ph": "X", "cat": "cpu_op", "args": {}},
{"name": "aten::pow", "pid": 77, "tid": 77, "ts": "1010.000", "dur": 5, "ph": "X", "cat": "cpu_op", "args": {"Call stack": "/usr/lib/python3.9/site-packages/torch/_tensor.py(40): __pow__;\r\nmodel/qwen3_5.py(29): rms_norm;\r\nmodel/qwen3_5.py(80): forward;\r\ntrain.py(40): step"}},
{"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1100000, "pid": 77, "tid": 77, "ts": "1010.000", "cat": "async_npu"},
{"name": "aten::mean", "pid": 77, "tid": 77, "ts": "1020.000", "dur": 5, "ph": "X", "cat": "cpu_op", "args": {"Call stack": "model/qwen3_5.py(29): rms_norm;\r\nmodel/qwen3_5.py(80): forward;\r\ntrain.py(40): step"}},
{"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1110000, "pid": 77, "tid": 77, "ts": "1020.000", "cat": "async_npu"},
{"name": "aten::add", "pid": 77, "tid": 77, "ts": "1030.000", "dur": 5, "ph": "X", "cat": "cpu_op", "args": {"Call stack": "model/qwen3_5.py(31): rms_norm;\r\nmodel/qwen3_5.py(80): forward;\r\ntrain.py(40): step"}},
{"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1120000, "pid": 77, "tid": 77, "ts": "1030.000", "cat": "async_npu"},
{"name": "aten::mul", "pid": 77, "tid": 77, "ts": "1040.000", "dur": 5, "ph": "X", "cat": "cpu_op", "args": {"Call stack": "tools/other.py(5): helper;\r\ntools/other.py(9): main"}},
{"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1130000, "pid": 77, "tid": 77, "ts": "1040.000", "cat": "async_npu"},
{"name": "Pows_1", "pid": 512, "tid": 2, "ts": "1100.000", "dur": 3, "ph": "X", "args": {"Task Type": "AI_VECTOR_CORE"}},
{"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 1100000, "pid": 512, "tid": 2, "ts": "1100.000", "cat": "async_npu"},
{"name": "ReduceMean_1", "pid": 512, "tid": 2, "ts": "1110.000", "dur": 3, "ph": "X", "args": {"Task Type": "AI_VECTOR_CORE"}},
{"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 1110000, "pid": 512, "tid": 2, "ts": "1110.000", "cat": "async_npu"},
{"name": "Adds_1", "pid": 512, "tid": 2, "ts": "1120.000", "dur": 3, "ph": "X", "args": {"Task Type": "AI_VECTOR_CORE"}},
{"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 1120000, "pid": 512, "tid": 2, "ts": "1120.000", "cat": "async_npu"},
{"name": "Muls_1", "pid": 512, "tid": 2, "ts": "1130.000", "dur": 3, "ph": "X", "args": {"Task Type": "AI_VECTOR_CORE"}},
{"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 1130000, "pid": 512, "tid": 2, "ts": "1130.000", "cat": "async_npu"},
{"name": "process_name", "pid": 77, "tid": 0, "ph": "M", "args": {"name": "Python"}},
{"name": "process_name", "pid": 512, "tid": 0, "ph": "M", "args": {"name": "Ascend Hardware"}}
])J";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseTraceView(kJson, "trace_view.json", &p).ok());
  ASSERT_EQ(p.device_events.size(), 4u);
  const HostAttributor attributor(p);
  ASSERT_TRUE(attributor.available());
  const int64_t pow = 1'100'000, mean = 1'110'000, add = 1'120'000, mul = 1'130'000;
  const HostAttribution rmsnorm = attributor.Attribute({pow, mean});
  EXPECT_EQ(rmsnorm.source, "model/qwen3_5.py(29): rms_norm");
  EXPECT_EQ(rmsnorm.framework_op, "aten::pow+aten::mean");
  EXPECT_EQ(rmsnorm.source_note, "");
  EXPECT_EQ(attributor.Attribute({pow, mean, add}).source, "model/qwen3_5.py(80): forward");
  const HostAttribution unrelated = attributor.Attribute({pow, mul});
  EXPECT_EQ(unrelated.source, "");
  EXPECT_EQ(unrelated.source_note, "its ops' call stacks share no user frame");
}

// ---- Synth jobs: every planted pattern with its exact count. ----

struct Planted {
  int64_t forward = 0;
  int64_t backward = 0;
  std::vector<std::string> forward_types;
  std::vector<std::string> backward_types;
};

std::vector<std::string> Types(const std::string& list) {
  std::vector<std::string> out;
  const std::regex item(R"re("([^"]+)")re");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), item); it != std::sregex_iterator();
       ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

// ground_truth.json: each pattern record starts with {"id": ...; the
// counts follow within the record (which spans a few lines).
std::map<std::string, Planted> ReadPlanted(const std::string& job) {
  std::ifstream in(job + "/ground_truth.json");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::map<std::string, Planted> out;
  const std::regex id(R"re(\{"id": "([^"]+)")re");
  const std::regex fwd(R"re("instances_per_step_per_rank": (\d+))re");
  const std::regex bwd(R"re("backward_instances_per_step_per_rank": (\d+))re");
  const std::regex fwd_types(R"re("type_sequence": \[([^\]]*)\])re");
  const std::regex bwd_types(R"re("backward_type_sequence": \[([^\]]*)\])re");
  std::vector<std::pair<size_t, std::string>> starts;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), id); it != std::sregex_iterator();
       ++it) {
    starts.emplace_back(static_cast<size_t>(it->position()), (*it)[1]);
  }
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t end = k + 1 < starts.size() ? starts[k + 1].first : text.size();
    const std::string record = text.substr(starts[k].first, end - starts[k].first);
    Planted p;
    std::smatch v;
    if (std::regex_search(record, v, fwd)) p.forward = std::stoll(v[1]);
    if (std::regex_search(record, v, bwd)) p.backward = std::stoll(v[1]);
    if (std::regex_search(record, v, fwd_types)) p.forward_types = Types(v[1]);
    if (std::regex_search(record, v, bwd_types)) p.backward_types = Types(v[1]);
    out[starts[k].second] = p;
  }
  return out;
}

JobAnalysis Analyze(const synth::SynthOptions& options, const std::string& tag,
                    std::string* dir = nullptr) {
  const std::string job = testing::MakeTempDir(tag);
  EXPECT_TRUE(synth::WriteSynthJob(options, job).ok());
  auto profiles = formats::LoadProfiles({job}, 2);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  auto analysis = AnalyzeJob(profiles->profiles, FamilyRules::Builtin(), AnalysisOptions{}, 2);
  EXPECT_TRUE(analysis.ok()) << analysis.status().message();
  if (dir != nullptr) *dir = job;
  return std::move(analysis).value();
}

const char* const kKernelPatterns[] = {"unfused-rmsnorm", "unfused-gated-norm", "unfused-swiglu",
                                       "unfused-cross-entropy", "glue-around-custom-op"};

struct Size {
  int layers;
  uint64_t seed;
  int hidden;
  int micro_batches;
};

class FingerprintSynth : public ::testing::TestWithParam<Size> {};

TEST_P(FingerprintSynth, EveryPlantedPatternWithItsExactCount) {
  synth::SynthOptions options;
  options.layers = GetParam().layers;
  options.seed = GetParam().seed;
  options.hidden = GetParam().hidden;
  options.micro_batches = GetParam().micro_batches;
  options.steps = 2;
  std::string dir;
  const JobAnalysis job = Analyze(options, "fp_synth", &dir);
  const auto planted = ReadPlanted(dir);
  for (const char* id : kKernelPatterns) {
    SCOPED_TRACE(id);
    const Planted& p = planted.at(id);
    ASSERT_GT(p.forward, 0);
    const Finding* f = FindingWithId(job, id);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(EvidenceValue(*f, "instances_fwd"), static_cast<double>(p.forward));
    EXPECT_EQ(EvidenceValue(*f, "instances_bwd"), static_cast<double>(p.backward));
    EXPECT_EQ(f->occurrences, p.forward + p.backward);
    EXPECT_EQ(f->ranks.size(), static_cast<size_t>(options.ranks));
    EXPECT_GT(f->estimated_gain_pct, 0);
    EXPECT_FALSE(f->gain_model.empty());
    EXPECT_FALSE(f->remedy.empty());
    EXPECT_FALSE(f->root_cause.empty());
    // The same counts in every step's motifs of every rank.
    for (const auto& rank : job.ranks) {
      for (const auto& step : rank.steps) {
        std::map<std::string, int64_t> by_variant;
        for (const auto& m : step.motifs) {
          if (m.fingerprint != id) continue;
          by_variant[*m.variant] += m.occurrences;
          // The chain is the planted Type sequence, kernel for kernel.
          EXPECT_EQ(m.kernels, *m.variant == "fwd" ? p.forward_types : p.backward_types)
              << *m.variant;
        }
        EXPECT_EQ(by_variant["fwd"], p.forward)
            << "rank " << rank.header.rank << " step " << step.step;
        EXPECT_EQ(by_variant["bwd"], p.backward)
            << "rank " << rank.header.rank << " step " << step.step;
      }
    }
  }
  // Per-tensor optimizer loop (not one of the six, always planted here).
  const Finding* opt = FindingWithId(job, "unfused-optimizer");
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->occurrences, options.layers * 8 + 2);
  // Nothing that was not planted.
  EXPECT_EQ(FindingWithId(job, "unfused-rope"), nullptr);
  EXPECT_EQ(FindingWithId(job, "cast-chain"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(FingerprintSizes, FingerprintSynth,
                         ::testing::Values(Size{4, 1, 1024, 2}, Size{8, 7, 2048, 2},
                                           Size{12, 42, 4096, 1}, Size{8, 42, 1024, 3},
                                           Size{12, 7, 2048, 2}));

TEST(FingerprintSynthFused, FusedTwinReportsNoUnfusedOrGlueFinding) {
  synth::SynthOptions options;
  options.steps = 2;
  options.seed = 7;
  const JobAnalysis fused = Analyze(synth::AllFused(options), "fp_fused");
  for (const auto& f : fused.findings) {
    // The optimizer loop is not one of the six remedies: AllFused keeps it.
    if (f.id == "unfused-optimizer") continue;
    EXPECT_NE(f.id.rfind("unfused-", 0), 0u) << f.id << ": " << f.evidence;
    EXPECT_NE(f.id, "glue-around-custom-op") << f.evidence;
  }
  synth::SynthOptions all = synth::AllFused(options);
  all.fused_optimizer = true;
  const JobAnalysis fully = Analyze(all, "fp_fully");
  for (const auto& f : fully.findings) {
    EXPECT_NE(f.id.rfind("unfused-", 0), 0u) << f.id << ": " << f.evidence;
    EXPECT_NE(f.id, "glue-around-custom-op");
    EXPECT_NE(f.id, "cast-chain");
  }
}

}  // namespace
// Backward kernels run on the autograd thread without Python frames; a
// Kineto fwdbwd flow leads back to the forward op and its source line.
TEST(HostAttribution, BackwardKernelsFollowTheFwdBwdFlowToTheForwardSource) {
  const char* json = R"J({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "model.py(12): forward", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
    {"ph": "X", "cat": "python_function", "name": "nn.Module: MyNorm_0", "pid": 1, "tid": 1, "ts": 101, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 102, "dur": 10, "args": {"Sequence number": 7}},
    {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 102, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MulBackward0", "pid": 1, "tid": 2, "ts": 300, "dur": 30},
    {"ph": "f", "id": 7, "pid": 1, "tid": 2, "ts": 300, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 2, "ts": 301, "dur": 20},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 302, "dur": 5, "args": {"correlation": 90}},
    {"ph": "X", "cat": "kernel", "name": "mul_kernel", "pid": 0, "tid": 7, "ts": 310, "dur": 4, "args": {"correlation": 90}},
    {"ph": "f", "id": 99, "pid": 1, "tid": 2, "ts": 305, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"}
  ]})J";
  model::RankProfile p;
  ASSERT_TRUE(formats::ParseKinetoTrace(json, "fwdbwd.json", &p).ok());
  const model::Timeline& tl = p.timeline;
  ASSERT_EQ(tl.fwdbwd.size(), 1u);  // the end without a start (id 99) links nothing
  EXPECT_EQ(p.strings.Get(tl.host_ops.name[tl.fwdbwd[0].forward_op]), "aten::mul");
  EXPECT_EQ(tl.host_ops.tid(static_cast<size_t>(tl.fwdbwd[0].forward_op)), 1);
  EXPECT_EQ(p.strings.Get(tl.host_ops.name[tl.fwdbwd[0].backward_op]),
            "autograd::engine::evaluate_function: MulBackward0");
  EXPECT_EQ(p.ledgers.back().rows_skipped(), 0);  // fwdbwd points are used, not skipped
  const HostAttributor attributor(p);
  const auto a = attributor.Attribute({310'000});
  EXPECT_EQ(a.source, "model.py(12): forward");
  EXPECT_EQ(a.framework_op, "backward of nn.Module: MyNorm_0");
}

}  // namespace trainscope::analysis
