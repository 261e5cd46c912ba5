// FingerprintLibrary: the table of known decomposed-operator chains
// (data/fingerprints.tsv), methodology §2 steps 4-5.
//
// A fingerprint is a chain of operator types that eager execution emits
// instead of one fused kernel (RMSNorm as Cast, Pow, Mean, Add, Rsqrt, Mul,
// Mul, Cast), with the formula it computes, its root cause and the remedy.
// The table is data, not code, so users can add their own chains.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace trainscope::analysis {

// One member of a chain: any of |alternatives| (canonical op types, lower
// case; a '*' makes it a glob), or a glob on the kernel name, or any kernel.
struct PatternMember {
  std::vector<std::string> alternatives;  // op type tokens, lower case, after equiv
  std::vector<std::string> name_globs;    // name~GLOB tokens, lower case
  bool optional = false;
  bool any = false;  // ANY: a kernel the chain surrounds; kept by either remedy
};

enum class FingerprintAction { kFuse, kRemove };

struct Fingerprint {
  std::string id;       // finding id, e.g. unfused-rmsnorm
  std::string variant;  // fwd, bwd, gpu-fwd...
  std::string pattern;  // as written
  std::vector<PatternMember> members;
  FingerprintAction action = FingerprintAction::kFuse;
  std::string title;
  std::string formula;
  std::string root_cause;
  std::string remedy;         // as written: "Ascend: ...; GPU: ..." or one text for all
  std::string remedy_ascend;  // its Ascend part ("" when it names none)
  std::string remedy_gpu;     // its GPU part ("" when it names none)
  std::string source;         // "file:line", for messages
  size_t required_members() const;
  // The texts the catalogue's "fingerprint" entry shows (fp_title,
  // fp_root_cause, fp_formula, fp_remedy and its per-platform parts; a part
  // the remedy does not name is the whole remedy).
  std::vector<std::pair<std::string, std::string>> TextLabels() const;
};

class FingerprintLibrary {
 public:
  // The built-in table compiled from data/fingerprints.tsv.
  static const FingerprintLibrary& Builtin();
  // Parses a library file. Errors name |source_name| and the line.
  static Result<FingerprintLibrary> Parse(std::string_view text, const std::string& source_name);
  // User entries first (tried first on equal match length), then |base|;
  // equivalences of both, the user's winning.
  static FingerprintLibrary Merge(const FingerprintLibrary& user, const FingerprintLibrary& base);

  // Canonical form of an op type: lower case, then the equivalence table.
  std::string Canonical(std::string_view op_type) const;

  const std::vector<Fingerprint>& fingerprints() const { return fingerprints_; }
  const std::vector<std::pair<std::string, std::string>>& equivalences() const { return equiv_; }
  // Globs (lower case) on the kernel name of fused kernels (Inductor's
  // triton_*_fused_*, Liger, Apex, TransformerEngine): a fused kernel is
  // never a member of an unfused chain, only an ANY it surrounds.
  const std::vector<std::string>& fused_kernel_globs() const { return fused_globs_; }
  // Whether a lower-case kernel name matches one of fused_kernel_globs().
  bool IsFusedKernel(std::string_view lower_name) const;
  // The first entry with this id (title, remedy... are per id), or nullptr.
  const Fingerprint* Find(std::string_view id) const;
  // The same library without the rows whose every member is a name~GLOB
  // (the GPU rows, written against GPU kernel names): an Ascend rank's
  // kernels carry op types, and globbing every name for them is wasted.
  FingerprintLibrary WithoutNameOnlyRows() const;

 private:
  std::vector<Fingerprint> fingerprints_;
  std::vector<std::pair<std::string, std::string>> equiv_;  // lower-case from -> to
  std::vector<std::string> fused_globs_;                    // lower case
};

}  // namespace trainscope::analysis
