#include "analysis/motifs/motif_sequence.h"

#include <cctype>
#include <map>
#include <span>
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
  // A token per (op type id, or name id where the type was derived): ids of
  // the profile's strings number those keys job-wide (two array reads per
  // kernel; a map per stream and a hash lookup per kernel were most of
  // this pass), and each stream numbers its own tokens in the order they
  // first appear in it.
  struct StreamTokens {
    KernelSequence seq;
    std::vector<int32_t> token_of_key;  // key number -> the stream's token, -1: not met yet
    size_t kernels = 0;
  };
  std::map<int32_t, StreamTokens> by_stream;
  std::vector<int32_t> key_of_type(profile.strings.size(), -1);
  std::vector<int32_t> key_of_name;  // sized when a derived type is met
  int32_t keys = 0;
  StreamTokens* current = nullptr;
  const model::RowSet rows = table.RowsOf(step);
  // Each stream's lists sized once: a big step's are megabytes, and each
  // regrowth copies them into fresh pages.
  for (const uint32_t i : rows) {
    if (table.kind[i] == model::ActivityKind::kCompute) ++by_stream[table.stream[i]].kernels;
  }
  for (auto& [stream, tokens_of_stream] : by_stream) {
    tokens_of_stream.seq.stream = stream;
    tokens_of_stream.seq.rows.reserve(tokens_of_stream.kernels);
    tokens_of_stream.seq.tokens.reserve(tokens_of_stream.kernels);
  }
  for (const uint32_t i : rows) {
    if (table.kind[i] != model::ActivityKind::kCompute) continue;
    const int32_t stream = table.stream[i];
    if (current == nullptr || current->seq.stream != stream) current = &by_stream[stream];
    const bool derived = table.op_type_derived[i] != 0;
    if (derived && key_of_name.empty()) key_of_name.assign(profile.strings.size(), -1);
    int32_t& key = derived ? key_of_name[table.name[i]] : key_of_type[table.op_type[i]];
    if (key < 0) key = keys++;
    std::vector<int32_t>& token_of_key = current->token_of_key;
    if (token_of_key.size() <= static_cast<size_t>(key)) token_of_key.resize(key + 1, -1);
    KernelSequence& seq = current->seq;
    int32_t& token = token_of_key[key];
    if (token < 0) {
      token = static_cast<int32_t>(seq.canonical.size());
      const std::string_view op = profile.strings.Get(table.op_type[i]);
      seq.canonical.push_back(library.Canonical(op));
      seq.name.push_back(Lower(profile.strings.Get(table.name[i])));
      seq.display.emplace_back(op);
      seq.keyed_by_name.push_back(derived ? 1 : 0);
    }
    seq.rows.push_back(static_cast<uint32_t>(i));
    seq.tokens.push_back(token);
  }
  // Two op types can share a canonical form (Muls, Mul): merge their ids so
  // that the sequence compares canonical forms, keeping the first display.
  std::vector<KernelSequence> out;
  for (auto& [stream, tokens_of_stream] : by_stream) {
    KernelSequence& seq = tokens_of_stream.seq;
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
    // In place: a copy was a second list of the step's kernels beside the
    // first, at the analysis's peak memory.
    for (int32_t& t : seq.tokens) t = remap[static_cast<size_t>(t)];
    merged.tokens = std::move(seq.tokens);
    out.push_back(std::move(merged));
  }
  return out;
}

}  // namespace trainscope::analysis
