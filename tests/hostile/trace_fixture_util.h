// Fixtures of the trace hostile tests, built at run time: small Kineto
// events, and gzip files written piece by piece (a piece repeated N times is
// deflated N times from one buffer, so a 2 GB document never exists in
// memory, and neither does its 300 KB of output more than once).
#pragma once

#include <fmt/format.h>
#include <zlib.h>

#include <cstdio>
#include <string>
#include <vector>

namespace trainscope::testing {

// A kernel event the Kineto reader keeps (one device activity).
inline std::string Kernel(const std::string& name, int64_t ts_us, const std::string& extra = "") {
  return fmt::format(
      R"({{"ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 7, "ts": {}, "dur": 1{}}})",
      name, ts_us, extra);
}

inline std::string TraceOf(const std::vector<std::string>& events) {
  std::string json = "{\"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "") + events[i];
  return json + "\n]}\n";
}

struct GzipPiece {
  std::string text;
  size_t repeat = 1;
};

// Writes |pieces| as one gzip member (level 1: fast on repetitive text);
// false on failure.
inline bool WriteGzipMember(std::FILE* f, const std::vector<GzipPiece>& pieces) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
  std::vector<unsigned char> out(1 << 20);
  auto drain = [&](int flush) {
    do {
      zs.next_out = out.data();
      zs.avail_out = static_cast<uInt>(out.size());
      if (deflate(&zs, flush) == Z_STREAM_ERROR) return false;
      const size_t n = out.size() - zs.avail_out;
      if (n > 0 && std::fwrite(out.data(), 1, n, f) != n) return false;
    } while (zs.avail_out == 0);
    return true;
  };
  bool ok = true;
  for (const GzipPiece& p : pieces) {
    for (size_t r = 0; ok && r < p.repeat; ++r) {
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.text.data()));
      zs.avail_in = static_cast<uInt>(p.text.size());
      ok = drain(Z_NO_FLUSH);
    }
  }
  zs.next_in = nullptr;
  zs.avail_in = 0;
  ok = ok && drain(Z_FINISH);
  deflateEnd(&zs);
  return ok;
}

// Writes each entry of |members| as its own gzip member, one after the
// other (what `cat a.gz b.gz` or pigz produce).
inline bool WriteGzipMembers(const std::string& path,
                             const std::vector<std::vector<GzipPiece>>& members) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  bool ok = true;
  for (const auto& m : members) ok = ok && WriteGzipMember(f, m);
  return std::fclose(f) == 0 && ok;
}

inline bool WriteGzip(const std::string& path, const std::vector<GzipPiece>& pieces) {
  return WriteGzipMembers(path, {pieces});
}

}  // namespace trainscope::testing
