#include "model/failure_log.h"

namespace trainscope::model {

std::string_view FailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kWatchdogTimeout:
      return "watchdog-timeout";
    case FailureKind::kCollectiveError:
      return "collective-error";
    case FailureKind::kDeviceError:
      return "device-error";
    case FailureKind::kOutOfMemory:
      return "out-of-memory";
    case FailureKind::kSegfault:
      return "segfault";
    case FailureKind::kSignal:
      return "signal";
    case FailureKind::kTimeLimit:
      return "time-limit";
    case FailureKind::kCancelled:
      return "cancelled";
    case FailureKind::kChildFailed:
      return "child-failed";
    case FailureKind::kConnectTimeout:
      return "connect-timeout";
    case FailureKind::kLinkError:
      return "link-error";
    case FailureKind::kNotifyTimeout:
      return "notify-timeout";
    case FailureKind::kSdmaError:
      return "sdma-error";
    case FailureKind::kDispatchTimeout:
      return "dispatch-timeout";
  }
  return "error";
}

}  // namespace trainscope::model
