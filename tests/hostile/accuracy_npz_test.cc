// `trainscope accuracy` on hostile .npz archives, through the command line:
// central-directory entries that share one member, a member that inflates
// far past what its .npy header describes, and a compression method that is
// not stored or deflate. Each such member is skipped with its reason, memory
// stays near one member's size, and the verdict is never "no divergence"
// (docs/hostile-input.md, "Tensor dumps").
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "allocation/sanitizer_allocator.h"
#include "hostile/hostile_util.h"
#include "hostile/load_util.h"
#include "test_paths.h"

namespace trainscope::testing {
namespace {

// A .npy file: NumPy's header (version 1) then |data|.
std::string HostileNpy(const std::string& shape, const std::string& data) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>((dict.size() >> 8) & 0xFF);
  return out + dict + data;
}

std::string HostileFloats(int n, float first) {
  std::string out(static_cast<size_t>(n) * 4, '\0');
  for (int i = 0; i < n; ++i) {
    const float v = first + static_cast<float>(i);
    std::memcpy(out.data() + static_cast<size_t>(i) * 4, &v, 4);
  }
  return out;
}

void PutLe(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) *out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

struct ZipMember {
  std::string name;
  std::string data;
  int method = 8;          // 0 stored, 8 deflate; anything else is written as stored bytes
  int central_copies = 1;  // central-directory entries naming this one local member
};

// A zip as np.savez_compressed writes it, with the hostile variations of
// ZipMember.
std::string HostileZip(const std::vector<ZipMember>& members) {
  std::string out, central;
  uint64_t entries = 0;
  for (const ZipMember& m : members) {
    const std::string stored = m.method == 8 ? DeflateBytes(m.data, -15, 9) : m.data;
    const uint64_t local = out.size();
    const uint32_t crc =
        crc32(0, reinterpret_cast<const Bytef*>(m.data.data()), static_cast<uInt>(m.data.size()));
    PutLe(&out, 0x04034b50, 4);
    PutLe(&out, 20, 2);
    PutLe(&out, 0, 2);
    PutLe(&out, m.method, 2);
    PutLe(&out, 0, 4);
    PutLe(&out, crc, 4);
    PutLe(&out, stored.size(), 4);
    PutLe(&out, m.data.size(), 4);
    PutLe(&out, m.name.size(), 2);
    PutLe(&out, 0, 2);
    out += m.name + stored;
    for (int copy = 0; copy < m.central_copies; ++copy) {
      const std::string name = copy == 0 ? m.name : fmt::format("c{}_{}", copy, m.name);
      PutLe(&central, 0x02014b50, 4);
      PutLe(&central, 20, 2);
      PutLe(&central, 20, 2);
      PutLe(&central, 0, 2);
      PutLe(&central, m.method, 2);
      PutLe(&central, 0, 4);
      PutLe(&central, crc, 4);
      PutLe(&central, stored.size(), 4);
      PutLe(&central, m.data.size(), 4);
      PutLe(&central, name.size(), 2);
      PutLe(&central, 0, 6);
      PutLe(&central, 0, 2);
      PutLe(&central, 0, 4);
      PutLe(&central, local, 4);
      central += name;
      ++entries;
    }
  }
  const uint64_t dir = out.size();
  out += central;
  PutLe(&out, 0x06054b50, 4);
  PutLe(&out, 0, 4);
  PutLe(&out, entries, 2);
  PutLe(&out, entries, 2);
  PutLe(&out, central.size(), 4);
  PutLe(&out, dir, 4);
  PutLe(&out, 0, 2);
  return out;
}

int64_t NpzPeakKb(const std::string& err) {
  const size_t at = err.rfind("peak_kb=");
  return at == std::string::npos ? -1 : std::stoll(err.substr(at + 8));
}

TEST(HostileAccuracyNpz, SharedBombAndUnknownMethodMembersAreSkippedInBoundedMemory) {
  const std::string root = MakeTempDir("acc-npz");
  const std::string small = HostileNpy("(8,)", HostileFloats(8, 1));
  // 16 MiB of float32 zeros, deflated to a few KiB.
  constexpr int kBigFloats = 4 << 20;
  const std::string big =
      HostileNpy(fmt::format("({},)", kBigFloats),
                 HostileFloats(0, 0) + std::string(size_t{kBigFloats} * 4, '\0'));
  // What the header of 8 elements describes, then 64 MiB more.
  const std::string bomb = small + std::string(size_t{64} << 20, '\0');
  ASSERT_TRUE(WriteBytes(
      root + "/base/t.npz",
      HostileZip(
          {{"q.npy", small}, {"shared.npy", big}, {"bomb.npy", small}, {"odd.npy", small}})));
  // NEW: 300 central entries naming the one 16 MiB member (inflated each, 4.8 GB).
  ASSERT_TRUE(WriteBytes(root + "/new/t.npz", HostileZip({{"q.npy", small},
                                                          {"bomb.npy", bomb},
                                                          {"odd.npy", small, 99},
                                                          {"shared.npy", big, 8, 300}})));
  const CommandResult r =
      RunShell(root, "/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" accuracy base new --threads 1");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(Contains(r.out, "verdict: no divergence")) << r.out;
  // 299 shared entries, the bomb and method 99; the first of each kind quoted.
  EXPECT_TRUE(Contains(r.out, "skipped 301 bad npz member")) << r.out;
  EXPECT_TRUE(Contains(r.out, "its .npy header describes 160")) << r.out;
  EXPECT_TRUE(Contains(r.out, "compression method 99 (stored and deflate are read)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "shares its bytes with member 'shared.npy'")) << r.out;
  if (SanitizerAllocator()) return;  // its allocator decides RSS
  const CommandResult idle =
      RunShell(root, "/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" --version");
  const int64_t idle_kb = NpzPeakKb(idle.err);
  const int64_t peak_kb = NpzPeakKb(r.err);
  ASSERT_GT(idle_kb, 0) << idle.err;
  ASSERT_GT(peak_kb, 0) << r.err;
  // Both sides' one 16 MiB member and the archives; never the 300 copies or
  // the 64 MiB behind the bomb's header.
  EXPECT_LE(peak_kb - idle_kb, 2 * 16 * 1024 + 24 * 1024)
      << "peak RSS " << peak_kb << " kB, " << idle_kb << " kB idle";
}

}  // namespace
}  // namespace trainscope::testing
