#include "analysis/motifs/fingerprint_match.h"

#include <algorithm>

#include "analysis/common/family_rules.h"

namespace trainscope::analysis {
namespace {

bool HasGlob(const std::string& token) { return token.find('*') != std::string::npos; }

bool MemberMatches(const PatternMember& member, const KernelSequence& seq, size_t token) {
  if (member.any) return true;
  for (const auto& alt : member.alternatives) {
    if (HasGlob(alt) ? GlobMatch(alt, seq.canonical[token]) : alt == seq.canonical[token])
      return true;
  }
  for (const auto& glob : member.name_globs) {
    if (GlobMatch(glob, seq.name[token])) return true;
  }
  return false;
}

// Precomputed member x token table of one fingerprint.
struct CompiledFingerprint {
  std::vector<std::vector<uint8_t>> accepts;  // [member][token]
  const Fingerprint* fp = nullptr;
};

// Longest match of members [k..) starting at |pos|; fills |any_at| with
// the positions of ANY members on the best path. Returns the end or -1.
int32_t LongestMatch(const CompiledFingerprint& cf, const std::vector<int32_t>& tokens, size_t k,
                     int32_t pos, std::vector<int32_t>* path_any, std::vector<int32_t>* best_any) {
  const auto& members = cf.fp->members;
  if (k == members.size()) {
    *best_any = *path_any;
    return pos;
  }
  int32_t best = -1;
  const bool fits = pos < static_cast<int32_t>(tokens.size());
  if (fits && cf.accepts[k][tokens[pos]]) {
    if (members[k].any) path_any->push_back(pos);
    std::vector<int32_t> any_here;
    best = LongestMatch(cf, tokens, k + 1, pos + 1, path_any, &any_here);
    if (best >= 0) *best_any = any_here;
    if (members[k].any) path_any->pop_back();
  }
  if (members[k].optional) {
    std::vector<int32_t> any_skip;
    const int32_t skipped = LongestMatch(cf, tokens, k + 1, pos, path_any, &any_skip);
    if (skipped > best) {
      best = skipped;
      *best_any = any_skip;
    }
  }
  return best;
}

}  // namespace

std::vector<FingerprintInstance> MatchFingerprints(const KernelSequence& sequence,
                                                   const FingerprintLibrary& library) {
  const auto& fps = library.fingerprints();
  const size_t vocab = sequence.canonical.size();
  std::vector<CompiledFingerprint> compiled(fps.size());
  // starters[token]: the fingerprints that can start at it (their first
  // required member or an optional one before it accepts it), in library
  // order; most tokens start none or one, and the scan asks only those.
  std::vector<std::vector<uint32_t>> starters(vocab);
  std::vector<uint8_t> first_ok(vocab);
  for (size_t f = 0; f < fps.size(); ++f) {
    compiled[f].fp = &fps[f];
    compiled[f].accepts.assign(fps[f].members.size(), std::vector<uint8_t>(vocab, 0));
    for (size_t m = 0; m < fps[f].members.size(); ++m) {
      for (size_t t = 0; t < vocab; ++t)
        compiled[f].accepts[m][t] = MemberMatches(fps[f].members[m], sequence, t);
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
      const int32_t end = LongestMatch(compiled[f], sequence.tokens, 0, i, &path, &any_positions);
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
