// Which parallel dimension (tensor, pipeline, data, expert...) a collective
// runs in.
//
// HCCL names each op `hcom_<op>__<last 3 digits of the group hash>_<i>_<n>`,
// the group hash being msprof's double hash of the HCCL group name
// (ascend-formats §2.12: (h29 << 32) | h131), and MindSpeed / Megatron
// record every group of the rank in profiler_metadata.json's
// parallel_group_info, keyed by that HCCL group name with its role ("tp",
// "pp", "dp", "ep", ...). Hashing the keys joins the two. A suffix two of the
// rank's groups share is ambiguous and maps to nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model/rank_profile.h"

namespace trainscope::analysis {

// msprof-analyze's double_hash of an HCCL group name.
uint64_t HcclGroupHash(std::string_view hccl_name);

class CollectiveGroups {
 public:
  explicit CollectiveGroups(const model::CaptureInfo& info);

  // The group role ("tp", "pp", "dp_cp", ...) of the collective named
  // |name|, "" when the name carries no group suffix or it is unknown.
  std::string_view KindOf(std::string_view name) const;

 private:
  std::unordered_map<std::string, std::string> kind_by_suffix_;  // "" = ambiguous
};

}  // namespace trainscope::analysis
