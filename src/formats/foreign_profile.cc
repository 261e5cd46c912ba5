#include "formats/foreign_profile.h"

#include <fmt/format.h>

#include <array>

namespace trainscope::formats {

namespace {

struct ForeignKind {
  std::string_view suffix;
  std::string_view what;
};

// File name endings of the profilers engineers also run on training jobs.
constexpr std::array<ForeignKind, 8> kForeignKinds{{
    {".nsys-rep", "an Nsight Systems report"},
    {".qdrep", "an Nsight Systems report (older .qdrep)"},
    {".sqlite", "an SQLite file, e.g. an Nsight Systems export (nsys export --type sqlite)"},
    {".ncu-rep", "an Nsight Compute report"},
    {".xplane.pb", "a JAX / TensorFlow XPlane profile"},
    {".pftrace", "a Perfetto protobuf trace"},
    {".perfetto-trace", "a Perfetto protobuf trace"},
    {".rpd", "a rocprofiler (RPD) database"},
}};

constexpr std::string_view kCaptureHint =
    "not supported; capture the run with torch.profiler (a Kineto .json / .json.gz trace, "
    "export_chrome_trace or tensorboard_trace_handler) or, on Ascend, torch_npu.profiler";

}  // namespace

std::string ForeignProfileReason(std::string_view path) {
  for (const ForeignKind& kind : kForeignKinds) {
    if (path.ends_with(kind.suffix)) {
      return fmt::format("{} ({}): {}", kind.what, kind.suffix, kCaptureHint);
    }
  }
  return "";
}

}  // namespace trainscope::formats
