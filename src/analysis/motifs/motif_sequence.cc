#include "analysis/motifs/motif_sequence.h"

#include <cctype>
#include <map>
#include <unordered_map>

namespace trainscope::analysis {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<KernelSequence> BuildKernelSequences(const model::RankProfile& profile, int32_t step,
                                                 const FingerprintLibrary& library,
                                                 size_t min_kernels) {
  const model::DeviceEvents& table = profile.device_events;
  std::map<int32_t, KernelSequence> by_stream;
  // Token per (op type id, name id if derived): interning strings once per
  // distinct StringId keeps this linear in kernels.
  std::map<int32_t, std::unordered_map<uint64_t, int32_t>> token_of;
  for (const uint32_t i : table.RowsOf(step)) {
    if (table.kind[i] != model::ActivityKind::kCompute) continue;
    KernelSequence& seq = by_stream[table.stream[i]];
    seq.stream = table.stream[i];
    const bool derived = table.op_type_derived[i] != 0;
    const uint64_t key = derived ? (uint64_t{1} << 63) | table.name[i] : uint64_t{table.op_type[i]};
    auto& tokens = token_of[seq.stream];
    auto it = tokens.find(key);
    if (it == tokens.end()) {
      const int32_t id = static_cast<int32_t>(seq.canonical.size());
      const std::string_view op = profile.strings.Get(table.op_type[i]);
      seq.canonical.push_back(library.Canonical(op));
      seq.name.push_back(Lower(profile.strings.Get(table.name[i])));
      seq.display.emplace_back(op);
      seq.keyed_by_name.push_back(derived ? 1 : 0);
      it = tokens.emplace(key, id).first;
    }
    seq.rows.push_back(static_cast<uint32_t>(i));
    seq.tokens.push_back(it->second);
  }
  // Two op types can share a canonical form (Muls, Mul): merge their ids so
  // that the sequence compares canonical forms, keeping the first display.
  std::vector<KernelSequence> out;
  for (auto& [stream, seq] : by_stream) {
    if (seq.rows.size() < min_kernels) continue;
    std::unordered_map<std::string, int32_t> first;
    std::vector<int32_t> remap(seq.canonical.size());
    KernelSequence merged;
    merged.stream = stream;
    merged.rows = std::move(seq.rows);
    for (size_t id = 0; id < seq.canonical.size(); ++id) {
      // GPU-derived tokens stay distinct by name.
      const std::string key =
          seq.canonical[id] + '\x1f' + (seq.keyed_by_name[id] ? seq.name[id] : "");
      auto [it, inserted] = first.emplace(key, static_cast<int32_t>(merged.canonical.size()));
      if (inserted) {
        merged.canonical.push_back(seq.canonical[id]);
        merged.name.push_back(seq.name[id]);
        merged.display.push_back(seq.display[id]);
        merged.keyed_by_name.push_back(seq.keyed_by_name[id]);
      }
      remap[id] = it->second;
    }
    merged.tokens.reserve(seq.tokens.size());
    for (int32_t t : seq.tokens) merged.tokens.push_back(remap[t]);
    out.push_back(std::move(merged));
  }
  return out;
}

}  // namespace trainscope::analysis
