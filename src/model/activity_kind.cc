#include "model/activity_kind.h"

namespace trainscope::model {

const char* ActivityKindName(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::kCompute:
      return "compute";
    case ActivityKind::kCommunication:
      return "communication";
    case ActivityKind::kMemcpy:
      return "memcpy";
    case ActivityKind::kMemset:
      return "memset";
  }
  return "?";
}

}  // namespace trainscope::model
