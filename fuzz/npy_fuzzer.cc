// libFuzzer harness for the NumPy readers of `trainscope accuracy`
// (formats/accuracy/npy_reader): the first byte picks .npy header or .npz
// archive; a header that parses must describe bytes inside the input, and
// the elements it describes are compared with themselves (cosine 1, no
// error) through analysis/accuracy's metrics.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "analysis/accuracy/tensor_metrics.h"
#include "formats/accuracy/npy_reader.h"
#include "fuzz_flags.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckNpy(std::string_view bytes) {
  auto header = trainscope::formats::ParseNpyHeader(bytes, "fuzz.npy", (bytes.size() & 1) != 0);
  if (!header.ok()) return;
  Check(header->data_offset + header->data_bytes <= bytes.size());
  const size_t width = trainscope::model::ElementBytes(header->type);
  Check(width > 0 && header->data_bytes % width == 0);
  const int64_t count = static_cast<int64_t>(header->data_bytes / width);
  if (count > (int64_t{1} << 20)) return;
  const char* data = bytes.data() + header->data_offset;
  const auto m = trainscope::analysis::CompareElements(data, header->type, header->big_endian, data,
                                                       header->type, header->big_endian, count, 0);
  Check(m.nonfinite_mismatch == 0 && m.max_abs == 0 && m.beyond == 0);
  Check(m.nan_base == m.nan_next && m.inf_base == m.inf_next);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) == 0) {
    CheckNpy(bytes);
    return 0;
  }
  auto members = trainscope::formats::ReadNpzMembers(bytes, "fuzz.npz", 1 << 22);
  if (!members.ok()) return 0;
  for (const auto& member : *members) {
    if (!member.error.empty()) continue;
    if (member.inflated) {
      Check(member.inflated->size() == member.size);
      CheckNpy(*member.inflated);
    } else {
      Check(member.offset + member.size <= bytes.size());
      CheckNpy(bytes.substr(member.offset, member.size));
    }
  }
  return 0;
}
