#include "analysis/motifs/fingerprint_match.h"

#include <algorithm>

#include "analysis/common/family_rules.h"

namespace trainscope::analysis {
namespace {

bool HasGlob(const std::string& token) { return token.find('*') != std::string::npos; }

// Precomputed member x token table of one fingerprint.
struct CompiledFingerprint {
  std::vector<std::vector<uint8_t>> accepts;  // [member][token]
  const Fingerprint* fp = nullptr;
};

// The longest match of a fingerprint's members at a position (the header's
// LongestMemberMatch): every way to take or skip the members is walked depth
// first, taking a member before skipping it, and the first complete path
// with the farthest end wins. That is the answer of returning each subtree's
// best up the recursion and preferring the taken member on a tie, without a
// vector of positions per call (it was 11 % of a .db export's analysis: the
// match is tried at nearly every kernel).
class MemberMatch {
 public:
  MemberMatch(const std::vector<PatternMember>& members,
              const std::vector<std::vector<uint8_t>>& accepts, const std::vector<int32_t>& tokens,
              std::vector<int32_t>* path_any, std::vector<int32_t>* best_any)
      : members_(members),
        accepts_(accepts),
        tokens_(tokens),
        path_any_(path_any),
        best_any_(best_any) {}

  int32_t From(int32_t pos) {
    best_end_ = -1;
    Walk(0, pos);
    return best_end_;
  }

 private:
  void Walk(size_t k, int32_t pos) {
    if (k == members_.size()) {
      if (pos > best_end_) {
        best_end_ = pos;
        *best_any_ = *path_any_;
      }
      return;
    }
    if (pos < static_cast<int32_t>(tokens_.size()) && accepts_[k][tokens_[pos]] != 0) {
      if (members_[k].any) path_any_->push_back(pos);
      Walk(k + 1, pos + 1);
      if (members_[k].any) path_any_->pop_back();
    }
    if (members_[k].optional) Walk(k + 1, pos);
  }

  const std::vector<PatternMember>& members_;
  const std::vector<std::vector<uint8_t>>& accepts_;
  const std::vector<int32_t>& tokens_;
  std::vector<int32_t>* path_any_;
  std::vector<int32_t>* best_any_;
  int32_t best_end_ = -1;
};

// A vocabulary entry as the members see it: its canonical op type, its
// lower-case kernel name without spaces (a name glob is one token of the
// pattern, so it cannot hold the spaces of "<float, float, 10, true>"), and
// whether the kernel is a fused form, which no member but ANY accepts.
struct MatchEntry {
  std::string_view canonical;
  std::string compact_name;
  bool fused = false;
};

MatchEntry EntryOf(const FingerprintLibrary& library, std::string_view canonical,
                   std::string_view name) {
  MatchEntry entry;
  entry.canonical = canonical;
  entry.compact_name.reserve(name.size());
  for (const char c : name) {
    if (c != ' ') entry.compact_name.push_back(c);
  }
  entry.fused = library.IsFusedKernel(name);
  return entry;
}

// The member's answer for a vocabulary entry.
bool EntryMatches(const PatternMember& member, const MatchEntry& entry) {
  if (member.any) return true;
  if (entry.fused) return false;
  for (const auto& alt : member.alternatives) {
    if (HasGlob(alt) ? GlobMatch(alt, entry.canonical) : alt == entry.canonical) return true;
  }
  for (const auto& glob : member.name_globs) {
    if (GlobMatch(glob, entry.compact_name)) return true;
  }
  return false;
}

}  // namespace

int32_t LongestMemberMatch(const std::vector<PatternMember>& members,
                           const std::vector<std::vector<uint8_t>>& accepts,
                           const std::vector<int32_t>& tokens, int32_t pos,
                           std::vector<int32_t>* any_positions) {
  std::vector<int32_t> path;
  any_positions->clear();
  return MemberMatch(members, accepts, tokens, &path, any_positions).From(pos);
}

const std::vector<uint8_t>& FingerprintAcceptMemo::Accepts(std::string_view canonical,
                                                           std::string_view name) {
  std::string key;
  key.reserve(canonical.size() + 1 + name.size());
  key.append(canonical).push_back('\0');
  key.append(name);
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = by_entry_.try_emplace(std::move(key));
  if (inserted) {
    const MatchEntry entry = EntryOf(library_, canonical, name);
    for (const Fingerprint& fp : library_.fingerprints()) {
      for (const PatternMember& member : fp.members) {
        it->second.push_back(EntryMatches(member, entry) ? 1 : 0);
      }
    }
  }
  return it->second;
}

size_t FingerprintAcceptMemo::entries() {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_entry_.size();
}

std::vector<FingerprintInstance> MatchFingerprints(const KernelSequence& sequence,
                                                   const FingerprintLibrary& library,
                                                   FingerprintAcceptMemo* memo) {
  const auto& fps = library.fingerprints();
  const size_t vocab = sequence.canonical.size();
  std::vector<CompiledFingerprint> compiled(fps.size());
  // starters[token]: the fingerprints that can start at it (their first
  // required member or an optional one before it accepts it), in library
  // order; most tokens start none or one, and the scan asks only those.
  std::vector<std::vector<uint32_t>> starters(vocab);
  std::vector<uint8_t> first_ok(vocab);
  // Each vocabulary entry's answers from every member, from the memo when
  // there is one for this library (|row|: the member's place among all the
  // library's).
  if (memo != nullptr && &memo->library() != &library) memo = nullptr;
  std::vector<const std::vector<uint8_t>*> remembered(memo != nullptr ? vocab : 0);
  for (size_t t = 0; t < remembered.size(); ++t) {
    remembered[t] = &memo->Accepts(sequence.canonical[t], sequence.name[t]);
  }
  std::vector<MatchEntry> entries;
  if (memo == nullptr) {
    entries.reserve(vocab);
    for (size_t t = 0; t < vocab; ++t) {
      entries.push_back(EntryOf(library, sequence.canonical[t], sequence.name[t]));
    }
  }
  size_t row = 0;
  for (size_t f = 0; f < fps.size(); ++f) {
    compiled[f].fp = &fps[f];
    compiled[f].accepts.assign(fps[f].members.size(), std::vector<uint8_t>(vocab, 0));
    for (size_t m = 0; m < fps[f].members.size(); ++m, ++row) {
      for (size_t t = 0; t < vocab; ++t) {
        compiled[f].accepts[m][t] =
            memo != nullptr ? (*remembered[t])[row] : EntryMatches(fps[f].members[m], entries[t]);
      }
    }
    std::fill(first_ok.begin(), first_ok.end(), 0);
    for (size_t m = 0; m < fps[f].members.size(); ++m) {
      for (size_t t = 0; t < vocab; ++t) first_ok[t] |= compiled[f].accepts[m][t];
      if (!fps[f].members[m].optional) break;
    }
    for (size_t t = 0; t < vocab; ++t) {
      if (first_ok[t]) starters[t].push_back(static_cast<uint32_t>(f));
    }
  }
  std::vector<FingerprintInstance> out;
  const int32_t n = static_cast<int32_t>(sequence.tokens.size());
  std::vector<int32_t> path;
  std::vector<int32_t> any_positions;
  for (int32_t i = 0; i < n;) {
    FingerprintInstance best;
    for (const uint32_t f : starters[sequence.tokens[i]]) {
      path.clear();
      any_positions.clear();
      const int32_t end =
          MemberMatch(fps[f].members, compiled[f].accepts, sequence.tokens, &path, &any_positions)
              .From(i);
      if (end > i && end - i > best.end - best.begin) {
        best.fingerprint = static_cast<int32_t>(f);
        best.begin = i;
        best.end = end;
        best.kept = any_positions;
      }
    }
    if (best.fingerprint < 0) {
      ++i;
      continue;
    }
    i = best.end;
    out.push_back(std::move(best));
  }
  return out;
}

}  // namespace trainscope::analysis
