// The parallel layout of a synth job: which tensor-, pipeline-, expert- and
// data-parallel groups each rank is in, named and hashed as HCCL names them.
//
// Ranks are ordered as Megatron's default ("tp-cp-ep-dp-pp"): tensor-parallel
// ranks are adjacent, then data-parallel replicas, then pipeline stages:
// rank = tp_rank + tp * (dp_rank + dp * stage). Expert-parallel groups are
// blocks of `ep` consecutive data-parallel ranks of one stage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainscope::synth {

struct SynthOptions;

// The process groups of the job; kWorld is the default group every rank is in.
enum class GroupKind : uint8_t { kWorld, kTensor, kPipeline, kExpert, kData };
inline constexpr int kGroupKinds = 5;

struct ProcessGroup {
  GroupKind kind = GroupKind::kWorld;
  int index = 0;            // among the groups of its kind
  std::string hccl_name;    // "group_name_<n>", as MindSpeed's parallel_group_info keys
  std::string group_name;   // "default_group", "tp", "pp", "ep", "dp"
  std::string hash;         // decimal double hash of hccl_name (communication.json keys)
  std::string hash_suffix;  // its last three digits (hcom_<op>__<suffix>_<i>_<n>)
  std::vector<int> global_ranks;
};

struct RankPlace {
  int tp_rank = 0, dp_rank = 0, stage = 0, ep_rank = 0;
  int group_index[kGroupKinds] = {0, 0, 0, 0, 0};  // per GroupKind
};

class ParallelLayout {
 public:
  explicit ParallelLayout(const SynthOptions& options);

  int tp() const { return tp_; }
  int pp() const { return pp_; }
  int ep() const { return ep_; }
  int dp() const { return dp_; }
  // FSDP (the default job) or Megatron-style data parallelism.
  bool fsdp() const { return fsdp_; }
  const RankPlace& place(int rank) const { return places_[rank]; }
  const std::vector<ProcessGroup>& groups(GroupKind kind) const {
    return groups_[static_cast<int>(kind)];
  }
  const ProcessGroup& group_of(int rank, GroupKind kind) const {
    return groups(kind)[places_[rank].group_index[static_cast<int>(kind)]];
  }

 private:
  int tp_ = 1, pp_ = 1, ep_ = 1, dp_ = 1;
  bool fsdp_ = true;
  std::vector<RankPlace> places_;
  std::vector<ProcessGroup> groups_[kGroupKinds];
};

// HCCL's group hash (msprof-analyze's double_hash): (h29 << 32) | h131 with
// h_p = sum(h * p + byte) mod 2^32 over the group name's bytes.
uint64_t HcclGroupHash(const std::string& name);

}  // namespace trainscope::synth
