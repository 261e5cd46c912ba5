#include "analysis/findings/fingerprint_findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/common/findings_catalog.h"
#include "analysis/motifs/gain_model.h"

namespace trainscope::analysis {
namespace {

// Traffic by shapes, only when every instance was sized (gain_model.h): a
// partial figure would mix the two models.
void AddTrafficEvidence(const FingerprintStepStats& total, Finding* f) {
  if (total.instances <= 0 || total.sized_instances != total.instances) return;
  const auto n = static_cast<double>(total.instances);
  constexpr double kMb = 1e6;
  f->evidence_values.insert(f->evidence_values.end(),
                            {{"moved_mb_per_instance", total.member_bytes / n / kMb},
                             {"fused_mb_per_instance", total.fused_bytes / n / kMb}});
}

// The variants of one id added up; |counts| reads "2 gpu-fwd + 2 gpu-bwd".
FingerprintStepStats SumVariants(const std::vector<const FingerprintStepStats*>& stats,
                                 const std::vector<Fingerprint>& fps, std::string* counts,
                                 std::vector<std::pair<std::string, double>>* per_variant) {
  FingerprintStepStats total;
  for (const auto* s : stats) {
    total.instances += s->instances;
    total.kernels += s->kernels;
    total.kernel_ns += s->kernel_ns;
    total.span_ns += s->span_ns;
    total.saving_ns += s->saving_ns;
    total.fused_ns += s->fused_ns;
    total.sized_instances += s->sized_instances;
    total.member_bytes += s->member_bytes;
    total.fused_bytes += s->fused_bytes;
    *counts += fmt::format("{}{} {}", counts->empty() ? "" : " + ", s->instances,
                           fps[s->fingerprint].variant);
    per_variant->emplace_back("instances_" + fps[s->fingerprint].variant,
                              static_cast<double>(s->instances));
  }
  return total;
}

// The chain and its placement, from the motif of the most frequent variant.
const Motif* MostFrequentChain(const StepMotifs& motifs, const std::string& id) {
  const Motif* chain = nullptr;
  for (const auto& m : motifs.motifs) {
    if (m.fingerprint == id && (chain == nullptr || m.occurrences > chain->occurrences)) chain = &m;
  }
  return chain;
}

}  // namespace

std::vector<Finding> FingerprintFindings(int32_t rank, int32_t step, const StepMotifs& motifs,
                                         const FingerprintLibrary& library, int64_t min_instances) {
  const auto& fps = library.fingerprints();
  // Variants of one id, in library order.
  std::map<std::string, std::vector<const FingerprintStepStats*>> by_id;
  std::vector<std::string> order;
  for (const auto& s : motifs.fingerprints) {
    const std::string& id = fps[s.fingerprint].id;
    if (by_id.find(id) == by_id.end()) order.push_back(id);
    by_id[id].push_back(&s);
  }
  std::vector<Finding> out;
  for (const auto& id : order) {
    const auto& stats = by_id[id];
    std::string counts;
    std::vector<std::pair<std::string, double>> per_variant;
    const FingerprintStepStats total = SumVariants(stats, fps, &counts, &per_variant);
    if (total.instances < min_instances || total.saving_ns <= 0) continue;
    const Fingerprint& fp = fps[stats.front()->fingerprint];
    const Motif* chain = MostFrequentChain(motifs, id);
    const auto step_ns = static_cast<double>(motifs.step_ns);
    const auto saving_ns = static_cast<double>(total.saving_ns);
    const auto span_ns = static_cast<double>(total.span_ns);
    const double projected = step_ns - saving_ns;
    Finding f;
    f.id = id;
    f.ranks = {rank};
    f.occurrences = total.instances;
    std::string chain_text;
    if (chain != nullptr) {
      for (const auto& k : chain->kernels) chain_text += (chain_text.empty() ? "" : " ") + k;
    }
    f.evidence_values = per_variant;
    f.evidence_values.insert(
        f.evidence_values.end(),
        {{"instances", static_cast<double>(total.instances)},
         {"kernels_per_step", static_cast<double>(total.kernels)},
         {"kernel_ms", EvidenceMs(total.kernel_ns)},
         {"span_ms", EvidenceMs(span_ns)},
         {"fused_ms", EvidenceMs(total.fused_ns)},
         {"saving_ms", EvidenceMs(saving_ns)},
         {"step_ms", EvidenceMs(step_ns)},
         {"projected_step_ms", EvidenceMs(projected)},
         {"throughput_gain_pct", projected > 0 ? (step_ns / projected - 1) * 100 : 0},
         {"launch_overhead_us", EvidenceUs(motifs.launch_overhead_ns)}});
    f.text_values = {{"step", step}, {"span_pct", step_ns > 0 ? span_ns / step_ns * 100 : 0}};
    AddTrafficEvidence(total, &f);
    if (chain != nullptr && chain->period_ns > 0)
      f.text_values.push_back({"period_us", EvidenceUs(chain->period_ns)});
    // A match on types the export does not give rests on a guess: said so.
    if (chain != nullptr && chain->derived_types > 0)
      f.text_values.push_back({"derived_types", static_cast<double>(chain->derived_types)});
    f.text_labels = fp.TextLabels();
    f.text_labels.insert(f.text_labels.end(), {{"counts", counts}, {"chain", chain_text}});
    if (chain != nullptr && !chain->attribution.empty())
      f.text_labels.push_back({"attribution", chain->attribution});
    f.estimated_gain_pct = step_ns > 0 ? saving_ns / step_ns * 100 : 0;
    f.template_entry = "fingerprint";
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// Adds |f| (one instance of an id on one rank) to that rank's own values:
// gains and occurrences add up, the title and evidence are the
// highest-gain instance's.
struct OwnValues {
  RankEvidence evidence;
  double best_gain = 0;  // of the instance the title and evidence come from
  bool seen = false;
};

void AddRankEvidence(const Finding& f, OwnValues* entry) {
  RankEvidence& e = entry->evidence;
  if (!entry->seen || f.estimated_gain_pct > entry->best_gain) {
    e.title = f.title;
    e.evidence_values = f.evidence_values;
    entry->best_gain = f.estimated_gain_pct;
    entry->seen = true;
  }
  if (!f.ranks.empty()) e.rank = f.ranks.front();
  e.occurrences += f.occurrences;
  e.estimated_gain_pct += f.estimated_gain_pct;
  e.gain_withheld = e.gain_withheld || f.gain_withheld;
}

}  // namespace

std::vector<Finding> MergeRankFindings(std::vector<std::vector<Finding>> per_rank) {
  std::vector<Finding> merged;
  std::map<std::string, size_t> index;
  // Per id, each rank's gain: a rank can emit one id several times (one
  // memory-bound-operator per operator type); those add up within the rank,
  // and the rank counts once.
  std::map<std::string, std::map<size_t, double>> gain_by_rank;
  std::map<std::string, double> best_gain;
  // Per id, each rank's own values (its highest-gain instance's title and
  // evidence, its gains and occurrences summed); an id some rank emitted
  // for several ranks at once has none.
  std::map<std::string, std::map<size_t, OwnValues>> own;
  std::set<std::string> without_own;
  for (size_t r = 0; r < per_rank.size(); ++r) {
    for (auto& f : per_rank[r]) {
      auto [it, inserted] = index.emplace(f.id, merged.size());
      gain_by_rank[f.id][r] += f.estimated_gain_pct;
      if (f.ranks.size() != 1) without_own.insert(f.id);
      AddRankEvidence(f, &own[f.id][r]);
      if (inserted) {
        best_gain[f.id] = f.estimated_gain_pct;
        merged.push_back(std::move(f));
        continue;
      }
      Finding& m = merged[it->second];
      m.ranks.insert(m.ranks.end(), f.ranks.begin(), f.ranks.end());
      m.occurrences = std::max(m.occurrences, f.occurrences);
      if (f.estimated_gain_pct > best_gain[f.id]) {
        best_gain[f.id] = f.estimated_gain_pct;
        m.title = f.title;
        m.evidence = f.evidence;
        m.evidence_values = f.evidence_values;
        m.text_values = f.text_values;
        m.text_labels = f.text_labels;
      }
    }
  }
  for (auto& m : merged) {
    if (!without_own.contains(m.id)) {
      for (auto& [r, values] : own[m.id]) m.per_rank.push_back(std::move(values.evidence));
      std::sort(m.per_rank.begin(), m.per_rank.end(),
                [](const RankEvidence& a, const RankEvidence& b) { return a.rank < b.rank; });
    }
    const std::map<size_t, double>& gains = gain_by_rank[m.id];
    double sum = 0;
    for (const auto& [rank, gain] : gains) sum += gain;
    const auto count = static_cast<int>(gains.size());
    m.estimated_gain_pct = sum / count;
    std::sort(m.ranks.begin(), m.ranks.end());
    m.ranks.erase(std::unique(m.ranks.begin(), m.ranks.end()), m.ranks.end());
    // "on N ranks, mean gain G%; worst rank: ...", from the catalogue.
    const FindingEntry* merged_entry = FindingCatalog::Builtin().Find("_merged-ranks");
    if (count > 1 && merged_entry != nullptr) {
      Finding prefix;
      prefix.text_values = {{"rank_count", count}, {"mean_gain_pct", m.estimated_gain_pct}};
      prefix.text_labels = {{"worst_evidence", m.evidence}};
      m.evidence =
          FindingCatalog::Builtin().RenderPart(merged_entry->Part("evidence"), prefix, nullptr);
    }
  }
  return merged;
}

}  // namespace trainscope::analysis
