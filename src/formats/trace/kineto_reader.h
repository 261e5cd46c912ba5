// Reader for PyTorch profiler / Kineto Chrome traces (.json, .json.gz).
//
// Handles the 2021 tb_plugin schema (cat Operator/Runtime/Kernel/Memcpy/
// Memset, flow cat async), the 2022 one (async_cpu_to_gpu) and current ones
// (cpu_op, cuda_runtime, kernel, gpu_memcpy, ac2g), ROCm hip* traces, ts as
// integer µs or µs with an ns fraction (parsed as text to int64 ns),
// baseTimeNanoseconds, pid/tid as numbers or strings, distributedInfo,
// deviceProperties and collective args on kernels. Damaged files keep every
// event before the damage (warning in profile->warnings).
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "formats/trace/scan_options.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

Status ReadKinetoTrace(const std::string& path, model::RankProfile* profile,
                       const trace::ScanOptions& options = {});

// |json| need not be padded (it is copied into a padded buffer when needed).
// |label| names the input in messages.
Status ParseKinetoTrace(std::string_view json, const std::string& label,
                        model::RankProfile* profile, const trace::ScanOptions& options = {});

}  // namespace trainscope::formats
