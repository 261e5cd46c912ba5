#include "synth/parallel_layout.h"

#include <fmt/format.h>

#include "synth/synth.h"

namespace trainscope::synth {

uint64_t HcclGroupHash(const std::string& name) {
  uint32_t h29 = 0;
  uint32_t h131 = 0;
  for (char c : name) {
    const auto byte = static_cast<uint32_t>(static_cast<unsigned char>(c));
    h29 = h29 * 29 + byte;
    h131 = h131 * 131 + byte;
  }
  return (static_cast<uint64_t>(h29) << 32) | h131;
}

ParallelLayout::ParallelLayout(const SynthOptions& options)
    : tp_(options.tp),
      pp_(options.pp),
      ep_(options.ep),
      dp_(options.ranks / (options.tp * options.pp)),
      fsdp_(!options.ddp && options.tp == 1 && options.pp == 1 && options.ep == 1) {
  const int ranks = options.ranks;
  places_.resize(ranks);
  for (int r = 0; r < ranks; ++r) {
    RankPlace& p = places_[r];
    p.tp_rank = r % tp_;
    p.dp_rank = (r / tp_) % dp_;
    p.stage = r / (tp_ * dp_);
    p.ep_rank = p.dp_rank % ep_;
    p.group_index[static_cast<int>(GroupKind::kWorld)] = 0;
    p.group_index[static_cast<int>(GroupKind::kTensor)] = r / tp_;
    p.group_index[static_cast<int>(GroupKind::kPipeline)] = p.tp_rank + tp_ * p.dp_rank;
    p.group_index[static_cast<int>(GroupKind::kExpert)] =
        p.tp_rank + tp_ * (p.dp_rank / ep_ + (dp_ / ep_) * p.stage);
    p.group_index[static_cast<int>(GroupKind::kData)] = p.tp_rank + tp_ * p.stage;
  }
  // Names numbered as MindSpeed numbers them: group_name_0 is the default
  // group, then every group of each kind in turn.
  const char* names[kGroupKinds] = {"default_group", "tp", "pp", "ep", "dp"};
  const int counts[kGroupKinds] = {1, ranks / tp_, tp_ * dp_, ranks / ep_, tp_ * pp_};
  int next_name = 0;
  for (int kind = 0; kind < kGroupKinds; ++kind) {
    for (int i = 0; i < counts[kind]; ++i) {
      ProcessGroup g;
      g.kind = static_cast<GroupKind>(kind);
      g.index = i;
      g.hccl_name = fmt::format("group_name_{}", next_name++);
      g.group_name = names[kind];
      g.hash = fmt::format("{}", HcclGroupHash(g.hccl_name));
      g.hash_suffix = g.hash.substr(g.hash.size() - 3);
      groups_[kind].push_back(std::move(g));
    }
  }
  for (int r = 0; r < ranks; ++r) {
    for (int kind = 0; kind < kGroupKinds; ++kind) {
      groups_[kind][places_[r].group_index[kind]].global_ranks.push_back(r);
    }
  }
}

}  // namespace trainscope::synth
