#include "analysis/motifs/motif_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <span>
#include <tuple>

#include "analysis/common/statistics.h"
#include "analysis/motifs/fingerprint_match.h"
#include "analysis/motifs/gain_model.h"
#include "analysis/motifs/motif_sequence.h"

namespace trainscope::analysis {
namespace {

// An instance's DeviceEvents rows: a run of its sequence's rows (an
// instance is consecutive kernels of one stream), viewed, not copied (a big
// step has ~10^5 instances: a list each was most of the step's small
// blocks).
using InstanceRows = std::span<const uint32_t>;

double ShareOfStep(int64_t total_ns, int64_t step_ns) {
  return step_ns > 0 ? static_cast<double>(total_ns) / static_cast<double>(step_ns) : 0;
}

// Fills the timing fields of |motif| from its instances.
void Measure(const model::DeviceEvents& table, const std::vector<InstanceRows>& instances,
             int64_t step_start_ns, int64_t step_ns, Motif* motif) {
  motif->occurrences = static_cast<int64_t>(instances.size());
  std::vector<double> periods;
  for (size_t k = 0; k < instances.size(); ++k) {
    for (uint32_t row : instances[k]) motif->total_ns += table.duration_ns[row];
    const int64_t start = table.start_ns[instances[k].front()];
    motif->instance_starts_ns.push_back(start - step_start_ns);
    if (k > 0) {
      periods.push_back(
          static_cast<double>(motif->instance_starts_ns[k] - motif->instance_starts_ns[k - 1]));
    }
  }
  motif->period_ns = Median(std::move(periods));
  motif->share_of_step = ShareOfStep(motif->total_ns, step_ns);
}

// The op types of one instance, and how many of them the export left
// untyped (derived from the kernel name).
void KernelsOf(const model::RankProfile& profile, const InstanceRows& rows, Motif* motif) {
  const model::DeviceEvents& table = profile.device_events;
  // A GPU kernel's "type" is its own name, not a guess (kernel_distribution.cc).
  const bool guessed = profile.device_events_source == model::DeviceEventsSource::kKernelDetailsCsv;
  // Sized once: a rank keeps every step's motifs until the job's step is
  // chosen, and a list grown by doubling kept up to half its room empty.
  motif->kernels.reserve(motif->kernels.size() + rows.size());
  for (uint32_t row : rows) {
    motif->kernels.emplace_back(profile.strings.Get(table.op_type[row]));
    if (guessed && table.op_type_derived[row] != 0) ++motif->derived_types;
  }
}

// The most frequent attribution over (at most 16) sampled instances.
void Attribute(const HostAttributor& host, const model::DeviceEvents& table,
               const std::vector<InstanceRows>& instances, Motif* motif) {
  if (!host.available() || instances.empty()) return;
  std::map<std::tuple<std::string, std::string, std::string>, int> votes;
  const size_t stride = std::max<size_t>(1, instances.size() / 16);
  for (size_t k = 0; k < instances.size(); k += stride) {
    std::vector<int64_t> starts;
    for (uint32_t row : instances[k]) starts.push_back(table.start_ns[row]);
    auto a = host.Attribute(starts);
    if (!a.empty()) ++votes[{a.framework_op, a.source, a.source_note}];
  }
  if (votes.empty()) return;
  auto best = std::max_element(votes.begin(), votes.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  motif->framework_op = std::get<0>(best->first);
  motif->source = std::get<1>(best->first);
  motif->attribution = motif->framework_op;
  if (!motif->source.empty())
    motif->attribution += (motif->attribution.empty() ? "" : " at ") + motif->source;
  const std::string& note = std::get<2>(best->first);
  if (motif->source.empty() && !note.empty())
    motif->attribution += (motif->attribution.empty() ? "" : "; ") + note;
}

}  // namespace

void SetStepSpan(int64_t step_ns, StepMotifs* motifs) {
  motifs->step_ns = step_ns;
  for (Motif& motif : motifs->motifs) motif.share_of_step = ShareOfStep(motif.total_ns, step_ns);
}

// NOLINTNEXTLINE(readability-function-cognitive-complexity): HACKING.md, "Complexity debt"
StepMotifs AnalyzeStepMotifs(const model::RankProfile& profile, int32_t step, int64_t step_start_ns,
                             int64_t step_ns, const FingerprintLibrary& library,
                             const HostAttributor& host, const MotifStepOptions& options) {
  StepMotifs out;
  out.step_ns = step_ns;
  const model::DeviceEvents& table = profile.device_events;
  auto sequences = BuildKernelSequences(profile, step, library);
  out.launch_overhead_ns = LaunchOverheadNs(table, sequences);
  const auto& fps = library.fingerprints();
  std::map<int32_t, FingerprintStepStats> stats;
  MemberFacts facts(table, profile.strings);
  std::vector<Motif> fingerprint_motifs;
  std::vector<Motif> mined_motifs;

  for (auto& seq : sequences) {
    out.compute_kernels += static_cast<int64_t>(seq.rows.size());
    auto matches = MatchFingerprints(seq, library, options.accept_memo);
    // Instances per fingerprint row, as DeviceEvents rows.
    std::map<int32_t, std::vector<InstanceRows>> rows_by_fp;
    for (const auto& m : matches) {
      const InstanceCost cost =
          EstimateInstance(table, seq, m, fps[m.fingerprint], out.launch_overhead_ns, &facts);
      auto& s = stats[m.fingerprint];
      s.fingerprint = m.fingerprint;
      ++s.instances;
      s.kernels += m.end - m.begin - static_cast<int64_t>(m.kept.size());
      s.kernel_ns += cost.kernel_ns;
      s.span_ns += cost.span_ns;
      s.saving_ns += cost.saving_ns;
      s.fused_ns += cost.fused_ns;
      if (cost.member_bytes && cost.fused_bytes) {
        ++s.sized_instances;
        s.member_bytes += *cost.member_bytes;
        s.fused_bytes += *cost.fused_bytes;
      }
      rows_by_fp[m.fingerprint].push_back(
          InstanceRows(seq.rows.data() + m.begin, static_cast<size_t>(m.end - m.begin)));
    }
    for (auto& [f, instances] : rows_by_fp) {
      Motif motif;
      KernelsOf(profile, instances.front(), &motif);
      motif.fingerprint = fps[f].id;
      motif.variant = fps[f].variant;
      motif.stream = seq.stream;
      Measure(table, instances, step_start_ns, step_ns, &motif);
      Attribute(host, table, instances, &motif);
      fingerprint_motifs.push_back(std::move(motif));
    }

    // Collapse each fingerprint instance into one token (vocabulary size +
    // fingerprint row) and mine the repeats of the collapsed stream.
    const int32_t vocab = static_cast<int32_t>(seq.canonical.size());
    std::vector<int32_t> tokens;
    std::vector<double> weights;
    // Collapsed position c stands for seq positions [begin_of[c], begin_of[c + 1]).
    std::vector<int32_t> begin_of;
    // Sized to the collapsed stream: an instance of k kernels is one token.
    size_t collapsed = seq.tokens.size();
    for (const auto& m : matches) collapsed -= static_cast<size_t>(m.end - m.begin - 1);
    tokens.reserve(collapsed);
    weights.reserve(collapsed + 1);  // + 1: MineRepeats appends one
    begin_of.reserve(collapsed + 1);
    size_t next_match = 0;
    for (int32_t p = 0; p < static_cast<int32_t>(seq.tokens.size());) {
      if (next_match < matches.size() && matches[next_match].begin == p) {
        const auto& m = matches[next_match++];
        tokens.push_back(vocab + m.fingerprint);
        weights.push_back(m.end - m.begin);
        begin_of.push_back(m.begin);
        p = m.end;
        continue;
      }
      tokens.push_back(seq.tokens[p]);
      weights.push_back(1);
      begin_of.push_back(p);
      ++p;
    }
    begin_of.push_back(static_cast<int32_t>(seq.tokens.size()));
    // The stream's tokens and instances are the collapsed stream now: freed
    // before the mining, the step's largest transient (its memory peak).
    std::vector<int32_t>().swap(seq.tokens);
    std::vector<FingerprintInstance>().swap(matches);
    const auto repeats = options.mining_memo != nullptr
                             ? options.mining_memo->Mine(tokens, std::move(weights), options.mining)
                             : MineRepeats(tokens, std::move(weights), options.mining);
    for (const auto& rep : repeats) {
      std::vector<InstanceRows> instances;
      instances.reserve(rep.starts.size());
      int fingerprint_tokens = 0;
      for (int32_t start : rep.starts) {
        // Collapsed positions [start, start + length) are the sequence's
        // positions [begin_of[start], begin_of[start + length]).
        const int32_t first = begin_of[start];
        const int32_t end = begin_of[start + rep.length];
        instances.emplace_back(seq.rows.data() + first, static_cast<size_t>(end - first));
      }
      for (int32_t c = rep.starts.front(); c < rep.starts.front() + rep.length; ++c) {
        if (tokens[c] >= vocab) ++fingerprint_tokens;
      }
      Motif motif;
      KernelsOf(profile, instances.front(), &motif);
      motif.stream = seq.stream;
      Measure(table, instances, step_start_ns, step_ns, &motif);
      Attribute(host, table, instances, &motif);
      if (motif.attribution.empty() && fingerprint_tokens > 0) {
        motif.attribution = fmt::format("contains {} fingerprint chain{}", fingerprint_tokens,
                                        fingerprint_tokens > 1 ? "s" : "");
      }
      mined_motifs.push_back(std::move(motif));
    }
    // Without host data, place each fingerprint in the repeating structure:
    // the mined motif with the most coverage that contains it is usually one
    // layer, and its period is the layer time.
    for (auto& fm : fingerprint_motifs) {
      if (!fm.attribution.empty() || fm.stream != seq.stream) continue;
      for (size_t r = 0; r < repeats.size(); ++r) {
        const auto& rep = repeats[r];
        int per_instance = 0;
        for (int32_t c = rep.starts.front(); c < rep.starts.front() + rep.length; ++c) {
          if (tokens[c] >= vocab && fps[tokens[c] - vocab].id == *fm.fingerprint &&
              fps[tokens[c] - vocab].variant == *fm.variant) {
            ++per_instance;
          }
        }
        if (per_instance == 0) continue;
        const Motif& layer = mined_motifs[mined_motifs.size() - repeats.size() + r];
        fm.attribution = fmt::format(
            "no host data: {} per repeat of a {}-kernel motif (x{} per step, period {:.0f} µs, "
            "likely one layer)",
            per_instance, layer.kernels.size(), layer.occurrences, layer.period_ns / 1000.0);
        break;
      }
    }
  }
  for (auto& [f, s] : stats) out.fingerprints.push_back(s);
  out.motifs = std::move(fingerprint_motifs);
  out.motifs.insert(out.motifs.end(), std::make_move_iterator(mined_motifs.begin()),
                    std::make_move_iterator(mined_motifs.end()));
  std::stable_sort(out.motifs.begin(), out.motifs.end(),
                   [](const Motif& a, const Motif& b) { return a.total_ns > b.total_ns; });
  if (out.motifs.size() > options.max_motifs) {
    // Fingerprint motifs are the findings' evidence: keep them all.
    std::vector<Motif> kept;
    size_t mined_kept = 0;
    const size_t fp_count =
        static_cast<size_t>(std::count_if(out.motifs.begin(), out.motifs.end(), [](const Motif& m) {
          return m.fingerprint.has_value();
        }));
    const size_t mined_budget = options.max_motifs > fp_count ? options.max_motifs - fp_count : 0;
    for (auto& m : out.motifs) {
      if (m.fingerprint || mined_kept++ < mined_budget) kept.push_back(std::move(m));
    }
    out.motifs = std::move(kept);
  }
  return out;
}

}  // namespace trainscope::analysis
