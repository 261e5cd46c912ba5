// libFuzzer harness for the .json.gz path: the streaming gzip feeder (with
// tiny chunks and small event and inflation limits, so that long events,
// dropped whitespace, truncated streams and the capped whole-document
// fallback are all reached) and LoadJsonFile. The first byte picks how the
// rest is used: as gzip bytes (mutated streams: corrupt, cut, several
// members), or as JSON text deflated here into one member or two.
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/trace/chrome_json.h"
#include "formats/trace/kineto_reader.h"
#include "fuzz_flags.h"
#include "model/rank_profile.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

std::string Deflate(std::string_view text) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&zs, text.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(out.size() - zs.avail_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string gz;
  switch (mode & 3) {
    case 1:
      gz = Deflate(rest);
      break;
    case 2: {
      const size_t cut = rest.empty() ? 0 : static_cast<uint8_t>(rest[0]) % rest.size();
      gz = Deflate(rest.substr(0, cut)) + Deflate(rest.substr(cut));
      break;
    }
    default:
      gz.assign(rest);
      break;
  }
  // The readers take a path: the bytes go to an anonymous memory file.
  const int fd = memfd_create("fuzz.json.gz", 0);
  if (fd < 0) return 0;
  if (write(fd, gz.data(), gz.size()) != static_cast<ssize_t>(gz.size())) {
    close(fd);
    return 0;
  }
  const std::string path = fmt::format("/proc/self/fd/{}", fd);
  trainscope::formats::trace::ScanOptions options;
  options.chunk_bytes = 1 + ((mode >> 2) & 31);
  options.threads = 1 + (mode >> 7);
  options.max_event_bytes = 256;
  options.max_inflated_bytes = 4096;
  {
    trainscope::model::RankProfile profile;
    trainscope::Status status = trainscope::formats::ReadKinetoTrace(path, &profile, options);
    Check(status.ok() || !status.message().empty());
    for (const auto& ledger : profile.ledgers) {
      Check(ledger.rows_read() == ledger.rows_used() + ledger.rows_skipped());
    }
  }
  bool capped = false;
  auto text = trainscope::formats::trace::LoadJsonFile(path, 4096, &capped);
  // The cap bounds inflation only: a plain (not gzip) file is mapped whole.
  const bool gzip =
      gz.size() >= 2 && static_cast<uint8_t>(gz[0]) == 0x1f && static_cast<uint8_t>(gz[1]) == 0x8b;
  if (text.ok() && gzip) Check(text->size() <= 4096 && (!capped || text->size() == 4096));
  if (text.ok() && !gzip) Check(!capped && text->size() == gz.size());
  close(fd);
  return 0;
}
