#include "model/training_log.h"

namespace trainscope::model {

std::string_view LogFormatName(LogFormat format) {
  switch (format) {
    case LogFormat::kMegatron:
      return "megatron";
    case LogFormat::kTorchTitan:
      return "torchtitan";
    case LogFormat::kHfTrainer:
      return "hf-trainer";
    case LogFormat::kKeyValue:
      return "key-value";
    case LogFormat::kXTuner:
      return "xtuner";
    case LogFormat::kHfTrainerState:
      return "hf-trainer-state";
    case LogFormat::kDeepSpeedChat:
      return "deepspeed-chat";
    case LogFormat::kLlamaFactory:
      return "llama-factory";
    case LogFormat::kMetricsJson:
      return "metrics-json";
    case LogFormat::kDeepSpeed:
      return "deepspeed";
    case LogFormat::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view LogErrorKindName(LogErrorKind kind) {
  switch (kind) {
    case LogErrorKind::kDeviceOom:
      return "device-oom";
    case LogErrorKind::kCollectiveTimeout:
      return "collective-timeout";
    case LogErrorKind::kSegfault:
      return "segfault";
    case LogErrorKind::kTimeLimit:
      return "time-limit";
    case LogErrorKind::kSignal:
      return "killed-by-signal";
    case LogErrorKind::kTraceback:
      return "python-traceback";
    case LogErrorKind::kChildFailed:
      return "worker-failed";
  }
  return "unknown";
}

}  // namespace trainscope::model
