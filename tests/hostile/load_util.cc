#include "hostile/load_util.h"

#include <zlib.h>

#include <cstring>

#include "test_paths.h"

namespace trainscope::testing {

std::string MakeSynthJob(const std::string& tag, int ranks) {
  const std::string dir = MakeTempDir(tag);
  CommandResult synth = RunTrainscopeIn(
      dir,
      {"synth", "--out", "job", "--ranks", std::to_string(ranks), "--layers", "2", "--steps", "2"});
  return synth.exit_code == 0 ? dir : "";
}

std::string KinetoTraceJson(bool with_kernel, size_t metadata_bytes) {
  std::string json = "{\n  \"schemaVersion\": 1,\n";
  if (metadata_bytes > 0) {
    // Long leading metadata, as multi-GPU captures write: nested objects and
    // strings that mention "traceEvents" without being the key.
    json += "  \"deviceProperties\": [";
    size_t i = 0;
    while (json.size() < metadata_bytes) {
      json += (i ? "," : "") + std::string("{\"id\": ") + std::to_string(i) +
              ", \"name\": \"NVIDIA H100 \\\"traceEvents\\\"\", \"props\": {\"a\": [1, 2, {\"b\": "
              "\"}]\"}]}}";
      ++i;
    }
    json += "],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 1},\n";
  }
  json += "  \"traceEvents\": [\n";
  json +=
      "    {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": "
      "100, \"tid\": 100, "
      "\"ts\": 1000.0, \"dur\": 100.0},\n";
  json +=
      "    {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": "
      "100, \"ts\": 1001.0, "
      "\"dur\": 10.0}";
  if (with_kernel) {
    json +=
        ",\n    {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_gemm\", \"pid\": 0, \"tid\": "
        "7, "
        "\"ts\": 1010.0, \"dur\": 20.0, \"args\": {\"device\": 0, \"stream\": 7}}";
  }
  json += "\n  ]\n}\n";
  return json;
}

std::string DeflateBytes(const std::string& text, int window_bits, int level) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, text.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string GzipBytes(const std::string& text) {
  return DeflateBytes(text, 15 + 16, Z_DEFAULT_COMPRESSION);
}

}  // namespace trainscope::testing
