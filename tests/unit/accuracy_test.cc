// trainscope accuracy: the .npy/.npz/dump.json readers on hand-made bytes,
// the element metrics against values computed independently (python3 with
// plain math on the same tiny arrays; numbers pinned below), the call
// alignment, and the whole comparison on synth's small transformer with a
// planted divergence (the first diverging call named exactly).
#include "analysis/accuracy/accuracy.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "analysis/accuracy/accuracy_mapping.h"
#include "analysis/accuracy/op_alignment.h"
#include "analysis/accuracy/tensor_metrics.h"
#include "formats/accuracy/dump_reader.h"
#include "formats/accuracy/npy_reader.h"
#include "synth/accuracy_dump.h"
#include "test_paths.h"

namespace trainscope {
namespace {

using testing::WriteFileBytes;

namespace fs = std::filesystem;
using analysis::AlignSequences;
using analysis::NormalisedOpName;
using model::ElementType;

// A .npy file as numpy writes it (|version| 1, 2 or 3), padded to 64 bytes.
std::string Npy(const std::string& descr, const std::string& shape, const std::string& data,
                int version = 1, bool fortran = false) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape + ", }";
  const size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(version);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((dict.size() >> (8 * i)) & 0xFF);
  return out + dict + data;
}

std::string Floats(const std::vector<float>& v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// ---- element metrics ------------------------------------------------------

// python3: a=[1,2,3,4,-0.5,0]; b=[1.5,2,2.5,4.25,-0.5,0.125]
//   cos = dot/|a||b| = 0.990579038863217, max abs 0.5,
//   max rel = 0.125/1e-6 = 125000 (a = 0: the floor), rmse 0.310409675536486,
//   base rms 2.24536559755125, |d| > 0.2: 3 elements.
TEST(AccuracyMetrics, PinnedAgainstPlainPython) {
  const std::vector<float> a = {1, 2, 3, 4, -0.5F, 0};
  const std::vector<float> b = {1.5F, 2, 2.5F, 4.25F, -0.5F, 0.125F};
  const analysis::TensorMetrics m = analysis::CompareElements(
      a.data(), ElementType::kF32, false, b.data(), ElementType::kF32, false, 6, 0.2);
  ASSERT_TRUE(m.cosine);
  EXPECT_NEAR(*m.cosine, 0.990579038863217, 1e-12);
  EXPECT_DOUBLE_EQ(m.max_abs, 0.5);
  EXPECT_NEAR(m.max_rel, 125000, 1e-6);
  EXPECT_NEAR(m.rmse, 0.310409675536486, 1e-12);
  EXPECT_NEAR(m.base_rms, 2.24536559755125, 1e-12);
  EXPECT_EQ(m.beyond, 3);
  EXPECT_EQ(m.finite_pairs, 6);
}

TEST(AccuracyMetrics, NanAndInfAreCountedPerSideAndLeftOutOfTheSums) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> a = {1, nan, 3, inf};
  const std::vector<float> b = {1, 2, nan, inf};
  const analysis::TensorMetrics m = analysis::CompareElements(
      a.data(), ElementType::kF32, false, b.data(), ElementType::kF32, false, 4, 1e-3);
  EXPECT_EQ(m.nan_base, 1);
  EXPECT_EQ(m.nan_next, 1);
  EXPECT_EQ(m.inf_base, 1);
  EXPECT_EQ(m.inf_next, 1);
  EXPECT_EQ(m.nonfinite_mismatch, 2);  // positions 1 and 2
  EXPECT_EQ(m.finite_pairs, 1);
  EXPECT_DOUBLE_EQ(m.max_abs, 0);
}

TEST(AccuracyMetrics, HalfAndBfloat16Bits) {
  // python3: struct.unpack('>e', b'\x35\x55') = 0.333251953125; 2**-24 = 5.96e-08.
  EXPECT_EQ(analysis::HalfToFloat(0x3C00), 1.0F);
  EXPECT_EQ(analysis::HalfToFloat(0xC000), -2.0F);
  EXPECT_EQ(analysis::HalfToFloat(0x7BFF), 65504.0F);
  EXPECT_EQ(analysis::HalfToFloat(0x3555), 0.333251953125F);
  EXPECT_EQ(analysis::HalfToFloat(0x0001), std::ldexp(1.0F, -24));
  EXPECT_TRUE(std::isinf(analysis::HalfToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(analysis::HalfToFloat(0x7E00)));
  EXPECT_EQ(analysis::Bf16ToFloat(0x3FC0), 1.5F);  // python3: struct.unpack('>f', 3fc00000)
  // float16 against float32 across types: 1.0 and 1.5 vs the same in f32.
  const uint16_t half[] = {0x3C00, 0x3E00};
  const float single[] = {1.0F, 1.5F};
  const analysis::TensorMetrics m = analysis::CompareElements(
      half, ElementType::kF16, false, single, ElementType::kF32, false, 2, 1e-3);
  EXPECT_DOUBLE_EQ(m.max_abs, 0);
  EXPECT_DOUBLE_EQ(*m.cosine, 1);
}

// ---- alignment --------------------------------------------------------------

TEST(AccuracyAlignment, CallCountersAreDropped) {
  EXPECT_EQ(NormalisedOpName("Functional.linear.3.forward"), "Functional.linear.forward");
  EXPECT_EQ(NormalisedOpName("Module.layers.0.mlp.MLP.forward.0"),
            "Module.layers.0.mlp.MLP.forward");
  EXPECT_EQ(NormalisedOpName("Functional.linear.3.forward.output.0"),
            "Functional.linear.forward.output.0");
  EXPECT_EQ(NormalisedOpName("layer0/q.npy"), "layer0/q.npy");
}

TEST(AccuracyAlignment, InsertionsAndDeletionsShiftNothingAfterThem) {
  const std::vector<std::string> base = {"a", "b", "x", "y", "z", "c", "d"};
  const std::vector<std::string> next = {"a", "b", "F", "c", "d", "e"};
  const auto pairs = AlignSequences(base, next);
  std::string shape;
  for (const auto& p : pairs) shape += p.base && p.next ? "M" : p.base ? "B" : "N";
  // a b matched, x y z and F unmatched (one run), c d matched, e NEW only.
  EXPECT_EQ(std::count(shape.begin(), shape.end(), 'M'), 4);
  EXPECT_EQ(std::count(shape.begin(), shape.end(), 'B'), 3);
  EXPECT_EQ(std::count(shape.begin(), shape.end(), 'N'), 2);
  EXPECT_EQ(shape.substr(0, 2), "MM");
  EXPECT_EQ(shape.substr(6, 3), "MMN");
}

TEST(AccuracyAlignment, FallsBackPastTheEditLimit) {
  const std::vector<std::string> base = {"a", "b", "c", "d"};
  const std::vector<std::string> next = {"d", "c", "b", "a"};
  const auto pairs = AlignSequences(base, next, /*max_edits=*/1);
  size_t matched = 0;
  for (const auto& p : pairs) matched += p.base && p.next;
  EXPECT_GE(matched, 1U);
  EXPECT_EQ(pairs.size(), 8 - matched);
}

// ---- .npy -------------------------------------------------------------------

TEST(NpyReader, VersionsDtypesAndOrder) {
  for (int version : {1, 2, 3}) {
    const std::string bytes = Npy("<f4", "(2, 3)", Floats({1, 2, 3, 4, 5, 6}), version);
    auto h = formats::ParseNpyHeader(bytes, "x.npy", false);
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(h->type, ElementType::kF32);
    EXPECT_EQ(h->shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(h->data_offset % 64, 0U);
    EXPECT_EQ(h->data_bytes, 24U);
  }
  auto f = formats::ParseNpyHeader(Npy(">f8", "(3,)", std::string(24, '\0'), 1, true), "y", false);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->big_endian);
  EXPECT_TRUE(f->fortran_order);
  EXPECT_EQ(f->shape, (std::vector<int64_t>{3}));
  auto scalar = formats::ParseNpyHeader(Npy("<i8", "()", std::string(8, '\0')), "s", false);
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(scalar->data_bytes, 8U);
  auto u16 = formats::ParseNpyHeader(Npy("<u2", "(2,)", std::string(4, '\0')), "b", false);
  ASSERT_TRUE(u16.ok());
  EXPECT_EQ(u16->type, ElementType::kU16);
  auto bf16 = formats::ParseNpyHeader(Npy("<u2", "(2,)", std::string(4, '\0')), "b", true);
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->type, ElementType::kBf16);
  auto half = formats::ParseNpyHeader(Npy("<f2", "(2,)", std::string(4, '\0')), "h", false);
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->type, ElementType::kF16);
}

TEST(NpyReader, DamageIsAnErrorNamingTheFileAndByte) {
  const std::string good = Npy("<f4", "(4,)", Floats({1, 2, 3, 4}));
  auto cut = formats::ParseNpyHeader(good.substr(0, good.size() - 3), "cut.npy", false);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("cut.npy: byte 128: truncated: shape (4) of <f4 needs 16"),
            std::string::npos)
      << cut.status().message();
  std::string lying = good;
  lying[8] = '\xff';
  lying[9] = '\x7f';  // header length 32767
  auto lie = formats::ParseNpyHeader(lying, "lie.npy", false);
  ASSERT_FALSE(lie.ok());
  EXPECT_NE(lie.status().message().find("lie.npy: byte 8: truncated: header length 32767"),
            std::string::npos)
      << lie.status().message();
  auto magic = formats::ParseNpyHeader("PK\x03\x04 not numpy", "m.npy", false);
  ASSERT_FALSE(magic.ok());
  EXPECT_NE(magic.status().message().find("m.npy: byte 0: no \\x93NUMPY magic"), std::string::npos);
  auto complex = formats::ParseNpyHeader(Npy("<c8", "(1,)", std::string(8, '\0')), "c.npy", false);
  ASSERT_FALSE(complex.ok());
  EXPECT_NE(complex.status().message().find("unsupported dtype '<c8'"), std::string::npos);
  auto structured = formats::ParseNpyHeader(
      Npy("x", "(1,)", "").replace(Npy("x", "(1,)", "").find("'x'"), 3, "[('a', '<f4')]"), "st",
      false);
  EXPECT_FALSE(structured.ok());
}

// ---- .npz -------------------------------------------------------------------

void Le(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) *out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

// A zip as np.savez (stored) / np.savez_compressed (deflate) writes it.
std::string Zip(const std::vector<std::pair<std::string, std::string>>& members, bool compress) {
  std::string out, central;
  for (const auto& [name, data] : members) {
    std::string stored = data;
    if (compress) {
      z_stream zs{};
      deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
      stored.assign(deflateBound(&zs, data.size()), '\0');
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
      zs.avail_in = static_cast<uInt>(data.size());
      zs.next_out = reinterpret_cast<Bytef*>(stored.data());
      zs.avail_out = static_cast<uInt>(stored.size());
      ::deflate(&zs, Z_FINISH);
      stored.resize(zs.total_out);
      deflateEnd(&zs);
    }
    const uint64_t local = out.size();
    const uint32_t crc =
        crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
    Le(&out, 0x04034b50, 4);
    Le(&out, 20, 2);
    Le(&out, 0, 2);
    Le(&out, compress ? 8 : 0, 2);
    Le(&out, 0, 4);
    Le(&out, crc, 4);
    Le(&out, stored.size(), 4);
    Le(&out, data.size(), 4);
    Le(&out, name.size(), 2);
    Le(&out, 0, 2);
    out += name + stored;
    Le(&central, 0x02014b50, 4);
    Le(&central, 20, 2);
    Le(&central, 20, 2);
    Le(&central, 0, 2);
    Le(&central, compress ? 8 : 0, 2);
    Le(&central, 0, 4);
    Le(&central, crc, 4);
    Le(&central, stored.size(), 4);
    Le(&central, data.size(), 4);
    Le(&central, name.size(), 2);
    Le(&central, 0, 2);
    Le(&central, 0, 2);
    Le(&central, 0, 2);
    Le(&central, 0, 2);
    Le(&central, 0, 4);
    Le(&central, local, 4);
    central += name;
  }
  const uint64_t dir = out.size();
  out += central;
  Le(&out, 0x06054b50, 4);
  Le(&out, 0, 4);
  Le(&out, members.size(), 2);
  Le(&out, members.size(), 2);
  Le(&out, central.size(), 4);
  Le(&out, dir, 4);
  Le(&out, 0, 2);
  return out;
}

TEST(NpzReader, StoredAndDeflatedMembers) {
  const std::string a = Npy("<f4", "(3,)", Floats({1, 2, 3}));
  const std::string b = Npy("<f4", "(2,)", Floats({4, 5}));
  for (const bool deflate : {false, true}) {
    const std::string zip = Zip({{"q.npy", a}, {"k.npy", b}}, deflate);
    auto members = formats::ReadNpzMembers(zip, "t.npz", 1 << 20);
    ASSERT_TRUE(members.ok()) << members.status().message();
    ASSERT_EQ(members->size(), 2U);
    EXPECT_EQ((*members)[0].name, "q.npy");
    EXPECT_TRUE((*members)[0].error.empty()) << (*members)[0].error;
    const std::string_view got =
        deflate ? std::string_view(*(*members)[1].inflated)
                : std::string_view(zip).substr((*members)[1].offset, (*members)[1].size);
    EXPECT_EQ(got, b);
  }
  auto bad = formats::ReadNpzMembers("not a zip at all, no end record here", "x.npz", 1 << 20);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("x.npz: byte"), std::string::npos);
  // A deflated member cut short: that member errs, the archive still lists.
  std::string zip = Zip({{"q.npy", a}}, true);
  zip[40] = static_cast<char>(zip[40] ^ 0x55);
  auto damaged = formats::ReadNpzMembers(zip, "d.npz", 1 << 20);
  ASSERT_TRUE(damaged.ok());
  ASSERT_EQ(damaged->size(), 1U);
}

TEST(NpzReader, HostileArchivesAreRefusedMemberByMember) {
  const std::string a = Npy("<f4", "(3,)", Floats({1, 2, 3}));
  // The local header names method 99, the central directory stored: refused, not read as stored.
  std::string zip = Zip({{"q.npy", a}}, false);
  zip[8] = 99;
  auto method = formats::ReadNpzMembers(zip, "m.npz", 1 << 20);
  ASSERT_TRUE(method.ok());
  ASSERT_EQ(method->size(), 1U);
  EXPECT_NE((*method)[0].error.find("compression method 99 in the local header"), std::string::npos)
      << (*method)[0].error;
  // Two central-directory entries naming one member: the second is refused.
  const std::string one = Zip({{"q.npy", a}}, true);
  const size_t eocd = one.size() - 22;
  const uint32_t dir = static_cast<uint8_t>(one[eocd + 16]) |
                       static_cast<uint32_t>(static_cast<uint8_t>(one[eocd + 17])) << 8;
  const std::string central = one.substr(dir, eocd - dir);
  std::string shared = one.substr(0, dir) + central + central;
  Le(&shared, 0x06054b50, 4);
  Le(&shared, 0, 4);
  Le(&shared, 2, 2);
  Le(&shared, 2, 2);
  Le(&shared, central.size() * 2, 4);
  Le(&shared, dir, 4);
  Le(&shared, 0, 2);
  auto overlap = formats::ReadNpzMembers(shared, "s.npz", 1 << 20);
  ASSERT_TRUE(overlap.ok()) << overlap.status().message();
  ASSERT_EQ(overlap->size(), 2U);
  EXPECT_TRUE((*overlap)[0].error.empty()) << (*overlap)[0].error;
  EXPECT_NE((*overlap)[1].error.find("shares its bytes with member 'q.npy'"), std::string::npos)
      << (*overlap)[1].error;
  // A header of 8 float32 elements (a 128-byte header + 32 bytes) in front of 1 MiB: refused
  // before the 1 MiB is inflated.
  const std::string big = Npy("<f4", "(8,)", std::string(size_t{1} << 20, '\0'));
  auto bomb = formats::ReadNpzMembers(Zip({{"b.npy", big}}, true), "b.npz", uint64_t{1} << 30);
  ASSERT_TRUE(bomb.ok());
  ASSERT_EQ(bomb->size(), 1U);
  EXPECT_FALSE((*bomb)[0].inflated);
  EXPECT_NE((*bomb)[0].error.find("its .npy header describes 160"), std::string::npos)
      << (*bomb)[0].error;
}

// ---- tensor folders and msprobe dump.json -----------------------------------

TEST(TensorFolder, DamagedFilesAreCountedSkipsWithReasons) {
  const fs::path dir = testing::MakeTempDir("acc_folder");
  WriteFileBytes(dir / "layer0" / "q.npy", Npy("<f4", "(2,)", Floats({1, 2})));
  const std::string cut = Npy("<f4", "(8,)", Floats({1, 2, 3, 4, 5, 6, 7, 8}));
  WriteFileBytes(dir / "layer0" / "k.npy", cut.substr(0, cut.size() - 5));
  WriteFileBytes(dir / "layer0" / "v.npy", "garbage");
  WriteFileBytes(dir / "pack.npz", Zip({{"a.npy", Npy("<f4", "(1,)", Floats({1}))}}, true));
  WriteFileBytes(dir / "notes.txt", "ignored");
  auto dump = formats::ReadTensorDump(dir.string(), {});
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(dump->ledgers.size(), 1U);
  const RowLedger& l = dump->ledgers[0];
  EXPECT_EQ(l.rows_read(), 4);
  EXPECT_EQ(l.rows_used(), 2);
  EXPECT_TRUE(l.Balanced());
  EXPECT_EQ(l.skipped_by_reason().at("tensor file truncated"), 1);
  EXPECT_EQ(l.skipped_by_reason().at("bad tensor header"), 1);
  ASSERT_EQ(dump->tensors.size(), 2U);
  EXPECT_EQ(dump->tensors[0].name, "layer0/q");
  EXPECT_EQ(dump->tensors[1].name, "pack/a");
}

TEST(TensorFolder, EmptyFolderIsAClearError) {
  const fs::path dir = testing::MakeTempDir("acc_empty");
  auto dump = formats::ReadTensorDump(dir.string(), {});
  ASSERT_FALSE(dump.ok());
  EXPECT_NE(dump.status().message().find("no dump.json and no .npy/.npz files"), std::string::npos);
}

// Hand-written from msprobe's docs/27.dump_json_instruction.md (L1 example),
// plus Python's bare NaN token and two damaged entries.
constexpr const char* kDumpJson = R"({
 "task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null,
 "data": {
  "Functional.relu.0.forward": {
   "input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [32, 16],
     "Max": 1.38, "Min": -1.33, "Mean": 0.037, "Norm": 236.2, "requires_grad": true},
     {"type": "int", "value": 3}],
   "input_kwargs": {"inplace": {"type": "bool", "value": false}},
   "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [32, 16],
     "Max": NaN, "Min": 0.0, "Mean": Infinity, "Norm": -Infinity}]
  },
  "Functional.linear.0.forward": {
   "input_args": [{"type": "torch.Tensor", "shape": [2]}],
   "output": [[{"type": "torch.Tensor", "dtype": "torch.bfloat16", "shape": [2, 2],
     "Max": 1, "Min": 0, "Mean": 0.5, "Norm": 1.4}]]
  },
  "Tensor.add.0.forward": 7
 }
})";

TEST(MsprobeDump, EntriesStatisticsAndDamage) {
  auto dump = formats::ParseMsprobeDump(kDumpJson, "dump.json", "", {});
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_EQ(dump->task, "statistics");
  EXPECT_EQ(dump->level, "L1");
  ASSERT_EQ(dump->tensors.size(), 3U);
  EXPECT_EQ(dump->tensors[0].name, "Functional.relu.0.forward.input.0");
  EXPECT_EQ(dump->tensors[0].role, "input");
  EXPECT_EQ(dump->tensors[0].shape, (std::vector<int64_t>{32, 16}));
  EXPECT_DOUBLE_EQ(*dump->tensors[0].stats.norm, 236.2);
  EXPECT_EQ(dump->tensors[1].name, "Functional.relu.0.forward.output.0");
  EXPECT_TRUE(std::isnan(*dump->tensors[1].stats.max));
  EXPECT_TRUE(std::isinf(*dump->tensors[1].stats.mean));
  EXPECT_LT(*dump->tensors[1].stats.norm, 0);
  EXPECT_EQ(dump->tensors[2].name, "Functional.linear.0.forward.output.0.0");
  EXPECT_EQ(dump->tensors[2].type, ElementType::kBf16);
  const RowLedger& l = dump->ledgers[0];
  EXPECT_EQ(l.rows_read(), 5);  // 4 tensor objects + the entry that is not an object
  EXPECT_EQ(l.rows_used(), 3);
  EXPECT_EQ(l.skipped_by_reason().at("malformed dump entry"), 2);
  EXPECT_TRUE(l.Balanced());
}

TEST(MsprobeDump, BadJsonNamesTheFile) {
  auto cut =
      formats::ParseMsprobeDump(std::string(kDumpJson).substr(0, 300), "x/dump.json", "", {});
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("x/dump.json: not valid JSON"), std::string::npos);
  auto other = formats::ParseMsprobeDump(R"({"traceEvents": []})", "y.json", "", {});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("no \"data\" object"), std::string::npos);
}

// The dump is walked one API entry at a time (no tree of the whole file): the
// whole document must still be JSON, and the first "data" object is the one read.
TEST(MsprobeDump, EntryWiseWalkKeepsWholeDocumentChecks) {
  const std::string one_entry =
      R"({"task":"statistics","data":{"Functional.relu.0.forward":{"output":[)"
      R"({"type":"torch.Tensor","dtype":"torch.float32","shape":[2],"Max":1.0}]}}})";
  auto whole = formats::ParseMsprobeDump(one_entry, "d.json", "", {});
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_EQ(whole->tensors.size(), 1U);
  EXPECT_EQ(whole->task, "statistics");
  EXPECT_EQ(whole->tensors[0].stats.max, 1.0);

  auto trailing = formats::ParseMsprobeDump(one_entry + " }", "t.json", "", {});
  ASSERT_FALSE(trailing.ok());
  EXPECT_NE(trailing.status().message().find("t.json: not valid JSON"), std::string::npos);

  // Damage inside a later entry fails the whole dump, as a tree parse did.
  const std::string damaged =
      R"({"data":{"a.0.forward":{"output":[{"dtype":"torch.float32","shape":[1]}]},)"
      R"("b.0.forward":{"output":[{"dtype":"torch.float32","shape":[1],"Max":tru}]}}})";
  auto bad = formats::ParseMsprobeDump(damaged, "b.json", "", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("b.json: not valid JSON"), std::string::npos);

  const std::string two_data =
      R"({"data":{"a.0.forward":{"output":[{"dtype":"torch.float32","shape":[1]}]}},)"
      R"("data":{"b.0.forward":{"output":[{"dtype":"torch.float32","shape":[1]}]}}})";
  auto first = formats::ParseMsprobeDump(two_data, "f.json", "", {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->tensors.size(), 1U);
  EXPECT_EQ(first->tensors[0].op, "a.0.forward");
}

TEST(MsprobeDump, ModulePaths) {
  EXPECT_EQ(formats::ModulePathOfModuleName("Module.layers.1.mlp.MLP.forward.0"), "layers.1.mlp");
  EXPECT_EQ(formats::ModulePathOfModuleName("Module.0.conv1.Conv2d.forward.0"), "0.conv1");
  EXPECT_EQ(formats::ModulePathOfModuleName("Cell.conv2.Conv2d.backward.0"), "conv2");
  EXPECT_EQ(formats::ModulePathOfModuleName("Module.conv2.Conv2d.parameters_grad"), "conv2");
  EXPECT_EQ(formats::ModulePathOfModuleName("Functional.relu.0.forward"), "");
}

TEST(MsprobeDump, StepRankLayoutPicksTheLowestOrTheAskedOne) {
  const fs::path dir = testing::MakeTempDir("acc_layout");
  const std::string one = R"({"task":"statistics","level":"L1","data":{"Functional.relu.0.forward":
    {"output":[{"type":"torch.Tensor","dtype":"torch.float32","shape":[1],"Max":1,"Min":1,"Mean":1,"Norm":1}]}}})";
  WriteFileBytes(dir / "step10" / "rank1" / "dump.json", one);
  WriteFileBytes(dir / "step2" / "rank3" / "dump.json", one);
  WriteFileBytes(dir / "step2" / "rank0" / "dump.json", one);
  auto lowest = formats::ReadTensorDump(dir.string(), {});
  ASSERT_TRUE(lowest.ok()) << lowest.status().message();
  EXPECT_EQ(lowest->selected, "step2/rank0");
  formats::DumpReadOptions o;
  o.step = 10;
  auto asked = formats::ReadTensorDump(dir.string(), o);
  ASSERT_TRUE(asked.ok());
  EXPECT_EQ(asked->selected, "step10/rank1");
}

// ---- thresholds ---------------------------------------------------------------

TEST(AccuracyThresholds, BuiltinRowsAndOverride) {
  const auto& t = analysis::AccuracyThresholds::Builtin();
  EXPECT_DOUBLE_EQ(t.For(ElementType::kF32).min_cosine, 0.999);
  EXPECT_DOUBLE_EQ(t.For(ElementType::kF32).max_abs, 1e-3);
  EXPECT_DOUBLE_EQ(t.For(ElementType::kF16).max_abs, std::ldexp(1.0, -9));
  EXPECT_DOUBLE_EQ(t.For(ElementType::kBf16).max_abs, std::ldexp(1.0, -6));
  EXPECT_DOUBLE_EQ(t.ForPair(ElementType::kF32, ElementType::kBf16).max_abs, std::ldexp(1.0, -6));
  EXPECT_DOUBLE_EQ(t.For(ElementType::kI64).max_abs, 1e-3);
  EXPECT_DOUBLE_EQ(t.loss_tolerance(), 0.02);
  analysis::AccuracyThresholds copy = t;
  ASSERT_TRUE(copy.Override("float32  0.99  0.5  0.1  mine\n", "t.tsv").ok());
  EXPECT_DOUBLE_EQ(copy.For(ElementType::kF32).max_abs, 0.5);
  EXPECT_FALSE(copy.Override("float32  2  0.5  0.1\n", "t.tsv").ok());
}

// ---- the whole comparison on synth's transformer ------------------------------

struct Planted {
  analysis::AccuracyComparison c;
  synth::AccuracyDumpResult truth;
};

Planted RunPlant(synth::AccuracyPlant plant, const std::string& tag, bool tensors = true,
                 const char* side_suffix = "") {
  const std::string dir = testing::MakeTempDir(tag);
  synth::AccuracyDumpOptions o;
  o.plant = plant;
  o.tensors = tensors;
  auto truth = synth::WriteAccuracyDumps(dir, o);
  EXPECT_TRUE(truth.ok()) << truth.status().message();
  auto base = formats::ReadTensorDump(dir + "/base" + side_suffix, {});
  auto next = formats::ReadTensorDump(dir + "/new" + side_suffix, {});
  EXPECT_TRUE(base.ok() && next.ok());
  analysis::AccuracyOptions options;
  options.threads = 2;
  return {analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), options),
          *truth};
}

std::string FirstOp(const analysis::AccuracyComparison& c) {
  return c.first_divergence ? c.pairs[*c.first_divergence].op() : "none";
}

TEST(AccuracyCompare, IdenticalDumpsDoNotDiverge) {
  const Planted p = RunPlant(synth::AccuracyPlant::kNone, "acc_none");
  EXPECT_FALSE(p.c.first_divergence);
  EXPECT_EQ(p.c.diverged, 0);
  EXPECT_EQ(p.c.pairs.size(), 175U);
  EXPECT_EQ(p.c.states.at("compared"), 175);
  EXPECT_TRUE(p.c.spans.empty());
}

TEST(AccuracyCompare, Bf16RoundingIsFoundAtQProj) {
  const Planted p = RunPlant(synth::AccuracyPlant::kBf16Rounding, "acc_bf16");
  EXPECT_EQ(p.truth.planted_op, "Functional.linear.7.forward");
  EXPECT_EQ(FirstOp(p.c), p.truth.planted_op);
  const analysis::TensorPair& first = p.c.pairs[*p.c.first_divergence];
  EXPECT_EQ(first.name(), "Functional.linear.7.forward.output.0");
  EXPECT_EQ(first.module(), "layers.1.self_attn.q_proj");
  // bf16 rounding keeps the direction (cosine ~ 1): the max abs error fails.
  EXPECT_GT(*first.metrics->cosine, 0.9999);
  EXPECT_GT(first.metrics->max_abs, 1e-3);
  EXPECT_LT(first.metrics->max_abs, 1.6e-2);  // half a bf16 ulp of values below 4
}

TEST(AccuracyCompare, WrongEpsilonIsFoundAtTheNormsRsqrt) {
  const Planted p = RunPlant(synth::AccuracyPlant::kWrongEpsilon, "acc_eps");
  EXPECT_EQ(p.truth.planted_op, "Torch.rsqrt.3.forward");
  EXPECT_EQ(FirstOp(p.c), "Torch.rsqrt.3.forward");
  EXPECT_EQ(p.c.pairs[*p.c.first_divergence].module(), "layers.1.post_attention_layernorm");
}

TEST(AccuracyCompare, NanIsFoundAtTheActivation) {
  const Planted p = RunPlant(synth::AccuracyPlant::kNan, "acc_nan");
  EXPECT_EQ(FirstOp(p.c), "Functional.silu.1.forward");
  const analysis::TensorPair& first = p.c.pairs[*p.c.first_divergence];
  EXPECT_EQ(first.module(), "layers.1.mlp.act_fn");
  EXPECT_EQ(first.metrics->nan_base, 0);
  EXPECT_EQ(first.metrics->nan_next, 1);
}

TEST(AccuracyCompare, FusedNormIsOneSpanNotACascade) {
  const Planted p = RunPlant(synth::AccuracyPlant::kFused, "acc_fused");
  EXPECT_FALSE(p.c.first_divergence);
  ASSERT_EQ(p.c.spans.size(), 1U);
  const analysis::DifferingSpan& s = p.c.spans[0];
  EXPECT_EQ(s.base_ops, (std::vector<std::string>{"Tensor.pow.2.forward", "Torch.mean.2.forward",
                                                  "Torch.rsqrt.2.forward", "Tensor.mul.5.forward",
                                                  "Tensor.mul.6.forward"}));
  EXPECT_EQ(s.next_ops, (std::vector<std::string>{"NPU.npu_rms_norm.0.forward"}));
  EXPECT_EQ(s.module, "layers.1.input_layernorm");
  EXPECT_EQ(p.c.base_only_ops, 5);
  EXPECT_EQ(p.c.next_only_ops, 1);
}

TEST(AccuracyCompare, PlainNpyFoldersFindTheSameCall) {
  const Planted p = RunPlant(synth::AccuracyPlant::kNan, "acc_nan_npy", true, "_npy");
  EXPECT_EQ(FirstOp(p.c), "Functional.silu.1.forward");
  const Planted f = RunPlant(synth::AccuracyPlant::kFused, "acc_fused_npy", true, "_npy");
  EXPECT_EQ(f.c.spans.size(), 1U);
  EXPECT_FALSE(f.c.first_divergence);
}

TEST(AccuracyCompare, StatisticsOnlyDumpsStillFindTheEpsilon) {
  const Planted p = RunPlant(synth::AccuracyPlant::kWrongEpsilon, "acc_eps_stats", false);
  EXPECT_EQ(p.c.states.count("compared"), 0U);
  EXPECT_EQ(FirstOp(p.c), "Torch.rsqrt.3.forward");
  EXPECT_EQ(p.c.pairs[*p.c.first_divergence].state, analysis::PairState::kStatistics);
  const Planted nan = RunPlant(synth::AccuracyPlant::kNan, "acc_nan_stats", false);
  EXPECT_EQ(FirstOp(nan.c), "Functional.silu.1.forward");
}

TEST(AccuracyCompare, ShapeMismatchAndMissingFilesAreCountedNotCrashes) {
  const fs::path dir = testing::MakeTempDir("acc_mismatch");
  WriteFileBytes(dir / "base" / "a.npy", Npy("<f4", "(2,)", Floats({1, 2})));
  WriteFileBytes(dir / "base" / "b.npy", Npy("<f4", "(2,)", Floats({1, 2})));
  WriteFileBytes(dir / "base" / "only_base.npy", Npy("<f4", "(1,)", Floats({1})));
  WriteFileBytes(dir / "new" / "a.npy", Npy("<f4", "(2,)", Floats({1, 2})));
  WriteFileBytes(dir / "new" / "b.npy", Npy("<f4", "(3,)", Floats({1, 2, 3})));
  auto base = formats::ReadTensorDump((dir / "base").string(), {});
  auto next = formats::ReadTensorDump((dir / "new").string(), {});
  ASSERT_TRUE(base.ok() && next.ok());
  const auto c = analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_EQ(c.states.at("compared"), 1);
  EXPECT_EQ(c.states.at("shape mismatch"), 1);
  EXPECT_EQ(c.base_only_ops, 1);
  // A shape mismatch is a divergence of its own kind, never "within the thresholds".
  ASSERT_TRUE(c.first_divergence);
  EXPECT_EQ(c.pairs[*c.first_divergence].name(), "b");
  EXPECT_EQ(c.pairs[*c.first_divergence].detail, "shape [2] in BASE, [3] in NEW");
  EXPECT_EQ(c.verdict, analysis::Verdict::kDivergence);
}

namespace {
// A one-call msprobe dump.json with the given output tensors (JSON items).
std::string OneCallDump(const std::string& api, const std::string& outputs) {
  return R"({"task":"statistics","level":"L1","framework":"pytorch","data":{")" + api +
         R"(":{"output":[)" + outputs + "]}}}";
}
std::string StatTensor(const std::string& dtype, const std::string& shape, double value) {
  return R"({"type":"torch.Tensor","dtype":")" + dtype + R"(","shape":)" + shape + R"(,"Max":)" +
         std::to_string(value) + R"(,"Min":)" + std::to_string(value) + R"(,"Mean":)" +
         std::to_string(value) + R"(,"Norm":)" + std::to_string(value) + "}";
}
}  // namespace

TEST(AccuracyCompare, DtypeMismatchIsADivergenceButFloatWidthsCompare) {
  auto base = formats::ParseMsprobeDump(
      OneCallDump("Functional.linear.0.forward", StatTensor("torch.float32", "[2]", 1) + "," +
                                                     StatTensor("torch.int64", "[2]", 1)),
      "b", "", {});
  auto next = formats::ParseMsprobeDump(
      OneCallDump("Functional.linear.0.forward", StatTensor("torch.bfloat16", "[2]", 1) + "," +
                                                     StatTensor("torch.int32", "[2]", 1)),
      "n", "", {});
  ASSERT_TRUE(base.ok() && next.ok());
  const auto c = analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_EQ(c.pairs[0].state, analysis::PairState::kStatistics);
  EXPECT_FALSE(c.pairs[0].diverged);
  EXPECT_EQ(c.pairs[1].state, analysis::PairState::kDtypeMismatch);
  EXPECT_TRUE(c.pairs[1].diverged);
  EXPECT_EQ(c.verdict, analysis::Verdict::kDivergence);
}

// A pair refers to the dumps' tensors (their names, calls, dtypes and
// shapes are not copied), and the comparison holds the dumps it refers to.
TEST(AccuracyCompare, PairsReferToTheDumpsTensors) {
  auto base = formats::ParseMsprobeDump(
      OneCallDump("Functional.linear.0.forward", StatTensor("torch.float32", "[2,3]", 1) + "," +
                                                     StatTensor("torch.float32", "[4]", 2)),
      "b", "", {});
  auto next = formats::ParseMsprobeDump(
      OneCallDump("Functional.linear.0.forward", StatTensor("torch.float32", "[2,3]", 1) + "," +
                                                     StatTensor("torch.float32", "[4]", 3)),
      "n", "", {});
  ASSERT_TRUE(base.ok() && next.ok());
  auto base_dump = std::make_shared<const model::TensorDump>(std::move(*base));
  auto next_dump = std::make_shared<const model::TensorDump>(std::move(*next));
  const model::TensorDump* base_at = base_dump.get();
  analysis::AccuracyComparison c = analysis::CompareDumps(
      std::move(base_dump), std::move(next_dump), analysis::AccuracyThresholds::Builtin(), {});
  ASSERT_EQ(c.base_dump.get(), base_at);
  ASSERT_EQ(c.pairs.size(), 2u);
  for (size_t i = 0; i < c.pairs.size(); ++i) {
    const analysis::TensorPair& p = c.pairs[i];
    EXPECT_EQ(p.base_tensor, &c.base_dump->tensors[i]);
    EXPECT_EQ(p.next_tensor, &c.next_dump->tensors[i]);
    EXPECT_EQ(&p.name(), &c.base_dump->tensors[i].name);
    EXPECT_EQ(&p.shape(), &c.base_dump->tensors[i].shape);
  }
  EXPECT_EQ(c.pairs[0].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(c.pairs[1].op(), "Functional.linear.0.forward");
  // A copy of the comparison shares the dumps: its pairs stay valid when
  // the original goes.
  analysis::AccuracyComparison copy = c;
  c = analysis::AccuracyComparison();
  EXPECT_EQ(copy.pairs[1].next_dtype(), "torch.float32");
  EXPECT_EQ(copy.pairs[1].name(), copy.base_dump->tensors[1].name);
  EXPECT_TRUE(copy.pairs[1].diverged);
  // What a pair adds to the two records: no copy of their text.
  EXPECT_LE(sizeof(analysis::TensorPair), 512u);
}

TEST(AccuracyCompare, PartialCoverageCannotConclude) {
  // 3 of 12 BASE calls have a partner: nothing diverges among them, but that is no verdict.
  std::string base_json = R"({"task":"statistics","level":"L1","data":{)";
  std::string next_json = base_json;
  for (int i = 0; i < 12; ++i) {
    base_json += (i ? "," : "") + fmt::format(R"("Functional.op{}.0.forward":{{"output":[{}]}})", i,
                                              StatTensor("torch.float32", "[4]", 1));
  }
  for (int i = 0; i < 3; ++i) {
    next_json += (i ? "," : "") + fmt::format(R"("Functional.op{}.0.forward":{{"output":[{}]}})", i,
                                              StatTensor("Float32", "[4]", 1));
  }
  base_json += "}}";
  next_json += "}}";
  auto base = formats::ParseMsprobeDump(base_json, "b", "", {});
  auto next = formats::ParseMsprobeDump(next_json, "n", "", {});
  ASSERT_TRUE(base.ok() && next.ok());
  const auto c = analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_FALSE(c.first_divergence);
  EXPECT_EQ(c.coverage.paired_calls, 3);
  EXPECT_EQ(c.coverage.base_calls, 12);
  EXPECT_EQ(c.verdict, analysis::Verdict::kCannotConclude);
  EXPECT_NE(c.verdict_reason.find("3 of 12 BASE calls"), std::string::npos) << c.verdict_reason;
}

TEST(AccuracyCompare, NewWithNoTensorsCannotConclude) {
  auto base = formats::ParseMsprobeDump(
      OneCallDump("Functional.relu.0.forward", StatTensor("torch.float32", "[4]", 1)), "b", "", {});
  auto next = formats::ParseMsprobeDump(R"({"task":"statistics","data":{}})", "n", "", {});
  ASSERT_TRUE(base.ok() && next.ok());
  const auto c = analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_EQ(c.verdict, analysis::Verdict::kCannotConclude);
}

TEST(AccuracyCompare, CAgainstFortranOrderIsNotAVerdict) {
  const fs::path dir = testing::MakeTempDir("acc_fortran");
  WriteFileBytes(dir / "base" / "a.npy", Npy("<f4", "(2, 2)", Floats({1, 2, 3, 4})));
  WriteFileBytes(dir / "new" / "a.npy", Npy("<f4", "(2, 2)", Floats({1, 3, 2, 4}), 1, true));
  auto base = formats::ReadTensorDump((dir / "base").string(), {});
  auto next = formats::ReadTensorDump((dir / "new").string(), {});
  ASSERT_TRUE(base.ok() && next.ok());
  const auto c = analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_EQ(c.pairs[0].state, analysis::PairState::kUnreadable);
  EXPECT_NE(c.verdict, analysis::Verdict::kNoDivergence);
}

TEST(MsprobeDump, ProcFoldersAndSeveralRanks) {
  const fs::path dir = testing::MakeTempDir("acc_proc");
  const std::string one =
      OneCallDump("Functional.relu.0.forward", StatTensor("torch.float32", "[1]", 1));
  WriteFileBytes(dir / "a" / "step0" / "proc4242" / "dump.json", one);
  auto proc = formats::ReadTensorDump((dir / "a").string(), {});
  ASSERT_TRUE(proc.ok()) << proc.status().message();
  EXPECT_EQ(proc->selected, "step0/proc4242");
  auto step = formats::ReadTensorDump((dir / "a" / "step0").string(), {});
  ASSERT_TRUE(step.ok()) << step.status().message();
  EXPECT_EQ(step->selected, "proc4242");
  // Ranks win over a proc folder beside them; the ranks not read are listed.
  WriteFileBytes(dir / "b" / "step0" / "rank1" / "dump.json", one);
  WriteFileBytes(dir / "b" / "step0" / "rank0" / "dump.json", one);
  WriteFileBytes(dir / "b" / "step0" / "proc7" / "dump.json", one);
  auto ranks = formats::ReadTensorDump((dir / "b").string(), {});
  ASSERT_TRUE(ranks.ok());
  EXPECT_EQ(ranks->selected, "step0/rank0");
  EXPECT_EQ(ranks->other_ranks, std::vector<std::string>({"rank1"}));
}

TEST(MsprobeDump, NumberOutOfRangeNamesItsByte) {
  const std::string json =
      R"({"data":{"Functional.relu.0.forward":{"output":[{"type":"torch.Tensor","dtype":"torch.float32","shape":[1],"Max":1e400}]}}})";
  auto dump = formats::ParseMsprobeDump(json, "d.json", "", {});
  ASSERT_FALSE(dump.ok());
  const size_t at = json.find("1e400");
  EXPECT_NE(dump.status().message().find(fmt::format("d.json: byte {}: number '1e400'", at)),
            std::string::npos)
      << dump.status().message();
}

// PyTorch (BASE) against MindSpore (NEW), names as msprobe's dump docs spell them.
std::string FrameworkDump(const std::string& framework, const std::vector<std::string>& apis) {
  std::string json =
      R"({"task":"statistics","level":"mix","framework":")" + framework + R"(","data":{)";
  for (size_t i = 0; i < apis.size(); ++i) {
    json += (i ? "," : "") +
            fmt::format(R"("{}":{{"output":[{}]}})", apis[i],
                        StatTensor(framework == "mindspore" ? "Float32" : "torch.float32", "[4]",
                                   1.0 + static_cast<double>(i)));
  }
  return json + "}}";
}

TEST(AccuracyMapping, PytorchAgainstMindsporeByTheApiTable) {
  auto base = formats::ParseMsprobeDump(
      FrameworkDump("pytorch", {"Functional.linear.0.forward", "NPU.npu_rms_norm.0.forward",
                                "Module.fc.Linear.forward.0", "Functional.layer_norm.0.forward"}),
      "pt", "", {});
  auto next = formats::ParseMsprobeDump(
      FrameworkDump("mindspore",
                    {"Primitive.MatMul.MatMul.0.forward", "Primitive.RmsNorm.RmsNorm.0.forward",
                     "Cell.fc.Linear.forward.0", "Mint.LayerNorm.0.forward"}),
      "ms", "", {});
  ASSERT_TRUE(base.ok() && next.ok());
  const auto c = analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_TRUE(c.cross_framework);
  EXPECT_EQ(c.matched_ops, 4);
  ASSERT_EQ(c.pairs.size(), 4u);
  EXPECT_NE(c.pairs[0].match_rule.find("Primitive.MatMul = Functional.linear"), std::string::npos)
      << c.pairs[0].match_rule;
  EXPECT_NE(c.pairs[1].match_rule.find("Primitive.RmsNorm = NPU.npu_rms_norm"), std::string::npos);
  EXPECT_EQ(c.pairs[2].match_rule, "Cell = Module");
  EXPECT_EQ(c.pairs[3].match_rule, "API name across frameworks");
  EXPECT_EQ(c.verdict, analysis::Verdict::kNoDivergence);
  // The same names in one framework stay apart: Primitive.MatMul is not Functional.linear.
  auto same = formats::ParseMsprobeDump(
      FrameworkDump("pytorch",
                    {"Primitive.MatMul.MatMul.0.forward", "Primitive.RmsNorm.RmsNorm.0.forward",
                     "Cell.fc.Linear.forward.0", "Mint.LayerNorm.0.forward"}),
      "pt2", "", {});
  ASSERT_TRUE(same.ok());
  const auto apart =
      analysis::CompareDumps(*base, *same, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_EQ(apart.matched_ops, 0);
  EXPECT_EQ(apart.verdict, analysis::Verdict::kCannotConclude);
}

TEST(AccuracyMapping, UserMappingFileCellDataAndLayerRules) {
  const std::string yaml =
      "# msprobe compare mapping\n"
      "fc2.Dense: fc2.Linear\n"
      "NPU.npu_fusion_attention.4.forward.input.0: NPU.flash_attn.2.forward.input.0\n"
      "ParallelTransformerLayer:\n"
      "  attention: self_attention\n";
  auto mapping = analysis::ParseAccuracyMapping(yaml, "map.yaml");
  ASSERT_TRUE(mapping.ok()) << mapping.status().message();
  ASSERT_EQ(mapping->rules.size(), 3u);
  EXPECT_EQ(mapping->rules[0].kind, analysis::MappingKind::kModule);
  EXPECT_EQ(mapping->rules[1].kind, analysis::MappingKind::kCall);
  EXPECT_EQ(mapping->rules[1].next, "NPU.npu_fusion_attention.4.forward");
  EXPECT_EQ(mapping->rules[2].kind, analysis::MappingKind::kLayer);
  auto base = formats::ParseMsprobeDump(
      FrameworkDump("pytorch", {"Module.fc2.Linear.forward.0", "NPU.flash_attn.2.forward",
                                "Module.layers.0.self_attention.Attn.forward.0"}),
      "b", "", {});
  auto next = formats::ParseMsprobeDump(
      FrameworkDump("pytorch", {"Module.fc2.Dense.forward.0", "NPU.npu_fusion_attention.4.forward",
                                "Module.layers.0.attention.Attn.forward.0"}),
      "n", "", {});
  ASSERT_TRUE(base.ok() && next.ok());
  const auto unmapped =
      analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_EQ(unmapped.matched_ops, 0);
  analysis::AccuracyOptions options;
  options.mapping = &*mapping;
  const auto c =
      analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), options);
  EXPECT_EQ(c.matched_ops, 3);
  ASSERT_EQ(c.pairs.size(), 3u);
  EXPECT_EQ(c.pairs[0].match_rule, "map.yaml:2");
  EXPECT_EQ(c.pairs[1].match_rule, "map.yaml:3");
  EXPECT_EQ(c.pairs[2].match_rule, "map.yaml:5");
  auto bad = analysis::ParseAccuracyMapping("just words\n", "bad.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.yaml:1: expected 'name: name'"), std::string::npos);
}

TEST(AccuracyAlignment, ParameterGradCountersAreDropped) {
  EXPECT_EQ(NormalisedOpName("Module.conv1.Conv2d.parameters_grad.0"),
            NormalisedOpName("Module.conv1.Conv2d.parameters_grad.1"));
}

// ---- loss curves --------------------------------------------------------------

TEST(LossCurves, SeparationIsTheFirstStepOfASustainedRun) {
  std::vector<analysis::LossPoint> a, b;
  for (int s = 1; s <= 10; ++s) {
    a.push_back({s, 10.0 - s * 0.5});
    // Step 4 is a one-off blip (5% apart); from step 7 on NEW stays 10% higher.
    const double factor = s == 4 ? 1.05 : s >= 7 ? 1.1 : 1.0;
    b.push_back({s, (10.0 - s * 0.5) * factor});
  }
  const auto c = analysis::CompareLossCurves(a, b, 0.02, 3);
  ASSERT_TRUE(c.separation_step);
  EXPECT_EQ(*c.separation_step, 7);
  // python3: (6.5*1.1 - 6.5) / (6.5*1.1) = 0.0909090909...
  EXPECT_NEAR(*c.separation_rel, 0.1 / 1.1, 1e-12);
  EXPECT_EQ(c.common_steps, 10);
  const auto same = analysis::CompareLossCurves(a, a, 0.02, 3);
  EXPECT_FALSE(same.separation_step);
  EXPECT_DOUBLE_EQ(same.max_rel, 0);
}

}  // namespace
}  // namespace trainscope

namespace trainscope {
namespace {

TEST(TensorFolder, Bf16SuffixOrFlagReadsUint16AsBfloat16) {
  const fs::path dir = testing::MakeTempDir("acc_bf16_name");
  const std::string bits("\xc0\x3f\x80\x3f", 4);  // bf16 1.5, 1.0
  WriteFileBytes(dir / "x.bf16.npy", Npy("<u2", "(2,)", bits));
  WriteFileBytes(dir / "y.npy", Npy("<u2", "(2,)", bits));
  auto plain = formats::ReadTensorDump(dir.string(), {});
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(plain->tensors.size(), 2U);
  EXPECT_EQ(plain->tensors[0].type, ElementType::kBf16);
  EXPECT_EQ(plain->tensors[1].type, ElementType::kU16);
  formats::DumpReadOptions o;
  o.uint16_as_bf16 = true;
  auto flagged = formats::ReadTensorDump(dir.string(), o);
  ASSERT_TRUE(flagged.ok());
  EXPECT_EQ(flagged->tensors[1].type, ElementType::kBf16);
}

TEST(AccuracyCompare, MissingTensorFileFallsBackToStatistics) {
  const std::string dir = testing::MakeTempDir("acc_missing_file");
  synth::AccuracyDumpOptions o;
  ASSERT_TRUE(synth::WriteAccuracyDumps(dir, o).ok());
  fs::remove(fs::path(dir) / "new" / "dump_tensor_data" /
             "Functional.linear.7.forward.output.0.npy");
  auto base = formats::ReadTensorDump(dir + "/base", {});
  auto next = formats::ReadTensorDump(dir + "/new", {});
  ASSERT_TRUE(base.ok() && next.ok());
  EXPECT_EQ(next->ledgers[0].notes_by_reason().at("tensor file missing"), 1);
  const auto c = analysis::CompareDumps(*base, *next, analysis::AccuracyThresholds::Builtin(), {});
  EXPECT_EQ(c.states.at("statistics"), 1);
  EXPECT_EQ(c.states.at("compared"), 174);
  EXPECT_FALSE(c.first_divergence);
}

}  // namespace
}  // namespace trainscope
