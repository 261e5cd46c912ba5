#include "analysis/compare/run_comparison.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainscope::analysis {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kNsPerUs = 1e3;

// The rank a side is compared on: |rank| when given, else the lowest rank
// whose chosen step has kernels. Null when there is none.
Result<const RankAnalysis*> ComparedRank(const JobAnalysis& job, std::optional<int32_t> rank,
                                         const char* side) {
  for (const RankAnalysis& r : job.ranks) {
    if (rank && r.header.rank != *rank) continue;
    const StepDistribution* step = r.selected();
    if (rank || (step != nullptr && step->kernels.count > 0)) return &r;
  }
  if (rank) {
    return NotFound(fmt::format(
        "--rank {}: rank {} is not in {}\nhint: compare a rank both runs have, or omit --rank",
        *rank, *rank, side));
  }
  return static_cast<const RankAnalysis*>(nullptr);
}

std::optional<double> Ms(std::optional<int64_t> ns) {
  if (!ns) return std::nullopt;
  return static_cast<double>(*ns) / kNsPerMs;
}

// The step time of a rank's compared step: its time budget's window, else
// the kernels' span; nullopt without kernels.
std::optional<int64_t> StepNs(const StepDistribution* s) {
  if (s == nullptr) return std::nullopt;
  if (s->breakdown && s->breakdown->budget.total_ns > 0) return s->breakdown->budget.total_ns;
  if (s->kernels.count > 0) return s->kernels.span_ns;
  return std::nullopt;
}

// Every number the comparison shows, read from one side.
struct SideNumbers {
  std::map<std::string, std::optional<double>> values;
};

SideNumbers NumbersOf(const JobAnalysis& job, const StepDistribution* s) {
  SideNumbers n;
  auto& v = n.values;
  const std::optional<int64_t> step_ns = StepNs(s);
  v["step_ms"] = Ms(step_ns);
  v["steps_per_s"] = step_ns && *step_ns > 0
                         ? std::optional<double>(1e9 / static_cast<double>(*step_ns))
                         : std::nullopt;
  if (job.cluster.present && job.cluster.mean_step_time_ns > 0) {
    v["job_mean_step_ms"] = job.cluster.mean_step_time_ns / kNsPerMs;
    v["step_time_spread_pct"] = job.cluster.step_time_spread_pct;
    v["first_kernel_skew_ms"] = static_cast<double>(job.cluster.first_kernel_skew_ns) / kNsPerMs;
    v["stragglers"] = static_cast<double>(job.cluster.straggler_ranks.size());
  }
  if (s == nullptr || s->kernels.count == 0) return n;
  const KernelSummary& k = s->kernels;
  v["kernels"] = static_cast<double>(k.count);
  v["compute_kernels"] = static_cast<double>(k.compute_count);
  v["communication_kernels"] = static_cast<double>(k.communication_count);
  v["kernel_time_ms"] = static_cast<double>(k.total_time_ns) / kNsPerMs;
  v["p50_us"] = k.p50_ns / kNsPerUs;
  v["p90_us"] = k.p90_ns / kNsPerUs;
  v["p99_us"] = k.p99_ns / kNsPerUs;
  v["max_us"] = static_cast<double>(k.max_ns) / kNsPerUs;
  v["share_le_50us_pct"] = k.share_le_50us * 100;
  v["share_le_100us_pct"] = k.share_le_100us * 100;
  if (s->breakdown) {
    const TimeBudget& b = s->breakdown->budget;
    v["computation_ms"] = static_cast<double>(b.computation_ns) / kNsPerMs;
    v["communication_ms"] = static_cast<double>(b.communication_ns) / kNsPerMs;
    v["exposed_communication_ms"] = static_cast<double>(b.exposed_communication_ns) / kNsPerMs;
    v["free_ms"] = static_cast<double>(b.idle_ns) / kNsPerMs;
  }
  v["motifs"] = static_cast<double>(s->motifs.size());
  if (s->memory) {
    // Device memory: the allocator's peaks and the gap it never
    // hands out, in GiB.
    auto gib = [](std::optional<int64_t> bytes) -> std::optional<double> {
      if (!bytes) return std::nullopt;
      return static_cast<double>(*bytes) / (1024.0 * 1024.0 * 1024.0);
    };
    v["peak_allocated_gib"] = gib(s->memory->peak_allocated_bytes);
    v["peak_reserved_gib"] = gib(s->memory->peak_reserved_bytes);
    v["reserved_gap_min_gib"] = gib(s->memory->gap_min_bytes);
  }
  return n;
}

struct ValueSpec {
  const char* id;
  const char* label;
  const char* unit;
};

// Report order: the verdict's numbers first.
constexpr ValueSpec kValues[] = {
    {"step_ms", "step time (compared rank)", "ms"},
    {"job_mean_step_ms", "step time (mean of the job's ranks)", "ms"},
    {"steps_per_s", "throughput", "steps/s"},
    {"kernels", "kernels per step", "count"},
    {"compute_kernels", "compute kernels per step", "count"},
    {"communication_kernels", "communication kernels per step", "count"},
    {"kernel_time_ms", "summed kernel time", "ms"},
    {"p50_us", "kernel duration p50", "us"},
    {"p90_us", "kernel duration p90", "us"},
    {"p99_us", "kernel duration p99", "us"},
    {"max_us", "kernel duration max", "us"},
    {"share_le_50us_pct", "kernels <= 50 µs", "pct"},
    {"share_le_100us_pct", "kernels <= 100 µs", "pct"},
    {"computation_ms", "computation", "ms"},
    {"communication_ms", "communication", "ms"},
    {"exposed_communication_ms", "exposed communication", "ms"},
    {"free_ms", "free (device idle)", "ms"},
    {"motifs", "periodic kernel chains (motifs)", "count"},
    {"peak_allocated_gib", "memory: peak allocated", "GiB"},
    {"peak_reserved_gib", "memory: peak reserved", "GiB"},
    {"reserved_gap_min_gib", "memory: reserved never allocated (min)", "GiB"},
    {"step_time_spread_pct", "step time spread across ranks", "pct"},
    {"first_kernel_skew_ms", "first-kernel skew across ranks", "ms"},
    {"stragglers", "straggler ranks", "count"},
};

// The rows of both sides paired by name: |Stat| has count and total_ns,
// |name_of| and |family_of| read a row's name and family.
template <class Stat, class NameOf, class FamilyOf>
std::vector<ComparedGroup> PairUp(const std::vector<Stat>* base, const std::vector<Stat>* next,
                                  NameOf name_of, FamilyOf family_of) {
  std::vector<ComparedGroup> out;
  std::map<std::string, size_t> index;
  auto add = [&](const std::vector<Stat>* rows, bool is_base) {
    if (rows == nullptr) return;
    for (const Stat& row : *rows) {
      auto [it, inserted] = index.try_emplace(name_of(row), out.size());
      if (inserted) out.push_back(ComparedGroup{name_of(row), family_of(row), 0, 0, 0, 0});
      ComparedGroup& g = out[it->second];
      (is_base ? g.base_count : g.next_count) += row.count;
      (is_base ? g.base_ns : g.next_ns) += row.total_ns;
    }
  };
  add(base, true);
  add(next, false);
  return out;
}

std::vector<ComparedGroup> CompareFamilies(const StepDistribution* base,
                                           const StepDistribution* next) {
  std::vector<ComparedGroup> out = PairUp(
      base != nullptr ? &base->families : nullptr, next != nullptr ? &next->families : nullptr,
      [](const FamilyStat& f) { return f.name; }, [](const FamilyStat&) { return std::string(); });
  // Families of the rule table neither step has are left out.
  std::erase_if(out, [](const ComparedGroup& g) { return g.base_count == 0 && g.next_count == 0; });
  return out;
}

std::vector<ComparedGroup> CompareOperators(const StepDistribution* base,
                                            const StepDistribution* next) {
  std::vector<ComparedGroup> out = PairUp(
      base != nullptr ? &base->top_operators : nullptr,
      next != nullptr ? &next->top_operators : nullptr,
      [](const OperatorStat& op) { return op.op_type; },
      [](const OperatorStat& op) { return op.family; });
  std::stable_sort(out.begin(), out.end(), [](const ComparedGroup& a, const ComparedGroup& b) {
    return std::llabs(a.delta_ns()) > std::llabs(b.delta_ns());
  });
  return out;
}

std::vector<ComparedFinding> CompareFindings(const JobAnalysis& base, const JobAnalysis& next) {
  std::vector<ComparedFinding> out;
  std::map<std::string, size_t> index;
  auto add = [&](const JobAnalysis& job, bool is_base) {
    for (const Finding& f : job.findings) {
      auto [it, inserted] = index.try_emplace(f.id, out.size());
      if (inserted) out.push_back(ComparedFinding{f.id, f.title});
      ComparedFinding& c = out[it->second];
      (is_base ? c.in_base : c.in_next) = true;
      for (const auto& [key, value] : f.evidence_values) {
        if (key != "instances") continue;
        c.counts_instances = true;
        (is_base ? c.base_instances : c.next_instances) = std::llround(value);
      }
      (is_base ? c.base_ranks : c.next_ranks) = static_cast<int32_t>(f.ranks.size());
      double& gain = is_base ? c.base_gain_pct : c.next_gain_pct;
      gain = std::max(gain, f.estimated_gain_pct);
    }
  };
  add(base, true);
  add(next, false);
  return out;
}

SideInfo InfoOf(const JobAnalysis& job, const RankAnalysis* rank) {
  SideInfo info;
  info.inputs = job.inputs;
  info.ranks = static_cast<int32_t>(job.ranks.size());
  info.platform = job.platform;
  if (rank == nullptr) return info;
  info.compared_rank = rank->header.rank;
  info.step = rank->selected_step;
  info.step_reason = rank->selected_step_reason;
  const StepDistribution* s = rank->selected();
  if (s != nullptr && s->breakdown) info.budget_source = s->breakdown->source;
  return info;
}

// What changed most: the budget part or operator with the largest time delta.
std::string LargestChange(const RunComparison& c) {
  std::string what;
  double largest = 0;
  for (const ComparedValue& v : c.values) {
    if (v.unit != "ms" || v.id == "step_ms" || v.id == "job_mean_step_ms" ||
        v.id == "kernel_time_ms" || v.id == "first_kernel_skew_ms" || !v.delta())
      continue;
    if (std::fabs(*v.delta()) > largest) {
      largest = std::fabs(*v.delta());
      what = fmt::format("{} {:+.2f} ms", v.label, *v.delta());
    }
  }
  if (!c.operators.empty()) {
    const ComparedGroup& op = c.operators.front();
    const double ms = static_cast<double>(op.delta_ns()) / kNsPerMs;
    if (std::fabs(ms) > largest) {
      what = fmt::format("operator {} {:+.2f} ms ({} -> {} per step)", op.name, ms, op.base_count,
                         op.next_count);
    }
  }
  return what;
}

// The step time the verdict and step_change_pct speak of: the mean of the
// job's ranks when both sides have one (clusters), else the compared rank's.
const ComparedValue* VerdictStep(const std::vector<ComparedValue>& values) {
  const ComparedValue* rank = nullptr;
  for (const ComparedValue& v : values) {
    if (v.id == "job_mean_step_ms" && v.base && v.next) return &v;
    if (v.id == "step_ms") rank = &v;
  }
  return rank;
}

std::string Verdict(const RunComparison& c, const FindingCatalog& catalog) {
  const ComparedValue* step_value = VerdictStep(c.values);
  if (step_value == nullptr || !step_value->base || !step_value->next) {
    return "no step time on one side (no device activity): only the other numbers are compared";
  }
  const ComparedValue& step = *step_value;
  const double pct = step.delta_pct().value_or(0);
  Finding verdict;
  verdict.id = "_compare-verdict";
  if (std::fabs(pct) < catalog.thresholds().compare_same_pct) verdict.variant = "same";
  verdict.text_values = {{"base_ms", *step.base},
                         {"new_ms", *step.next},
                         {"change_pct", pct},
                         {"abs_change_pct", std::fabs(pct)}};
  verdict.text_labels = {{"direction", pct < 0 ? "faster" : "slower"},
                         {"basis", step.id == "step_ms" ? "step" : "mean step of the job's ranks"}};
  catalog.Render(&verdict);
  std::string text = verdict.evidence;
  const std::string most = LargestChange(c);
  if (!most.empty()) text += "; largest change: " + most;
  int gone = 0;
  for (const ComparedFinding& f : c.findings) gone += f.in_base && !f.in_next ? 1 : 0;
  if (gone > 0) text += fmt::format("; {} finding(s) of BASE gone", gone);
  return text;
}

// A file that skipped more than this share of its rows is damaged: the
// numbers read from the rest cannot ground a verdict. Fewer skipped rows
// (a profiler's odd row, common in real captures) are a caution only.
constexpr double kDamagedSkippedShare = 0.05;

// Input damage of one side, one line each: rows skipped or unaccounted for
// in a file, ranks that failed to load. |*damaged|: whether any of it is
// more than a caution (above).
std::vector<std::string> DamageOf(const JobAnalysis& job, const char* side, bool* damaged) {
  std::vector<std::string> damage;
  for (const RankAnalysis& rank : job.ranks) {
    for (const FileHealth& file : rank.header.files) {
      const int64_t lost = file.rows_read - file.rows_used - file.rows_skipped;
      if (file.rows_skipped > 0) {
        *damaged |= static_cast<double>(file.rows_skipped) >
                    kDamagedSkippedShare * static_cast<double>(file.rows_read);
        damage.push_back(fmt::format("{} rank {}: {} of {} rows skipped in {}", side,
                                     rank.header.rank, file.rows_skipped, file.rows_read,
                                     file.file));
      }
      if (lost != 0) {
        *damaged = true;
        damage.push_back(
            fmt::format("{} rank {}: {} rows of {} unaccounted for (read {}, used "
                        "{}, skipped {})",
                        side, rank.header.rank, lost, file.file, file.rows_read, file.rows_used,
                        file.rows_skipped));
      }
    }
  }
  for (const model::InputIssue& failed : job.failed_inputs) {
    const std::string_view reason =
        std::string_view(failed.reason).substr(0, failed.reason.find('\n'));
    damage.push_back(fmt::format("{}: {} failed to load: {}", side, failed.path, reason));
    *damaged = true;
  }
  return damage;
}

std::vector<int32_t> RanksOf(const JobAnalysis& job) {
  std::vector<int32_t> ranks;
  for (const RankAnalysis& rank : job.ranks) ranks.push_back(rank.header.rank);
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

// The cautions of |c| (run_comparison.h); returns the reason the verdict
// cannot conclude, empty when it can.
std::string AddCautions(const JobAnalysis& base, const JobAnalysis& next,
                        const CompareOptions& options, RunComparison* c) {
  std::string cannot;
  for (const auto* side : {&base, &next}) {
    bool damaged = false;
    const std::vector<std::string> damage =
        DamageOf(*side, side == &base ? "BASE" : "NEW", &damaged);
    if (damaged && cannot.empty()) {
      cannot =
          fmt::format("{}'s input is damaged ({})", side == &base ? "BASE" : "NEW", damage.front());
    }
    c->cautions.insert(c->cautions.end(), damage.begin(), damage.end());
  }
  const std::vector<int32_t> base_ranks = RanksOf(base), next_ranks = RanksOf(next);
  std::vector<int32_t> common;
  std::set_intersection(base_ranks.begin(), base_ranks.end(), next_ranks.begin(), next_ranks.end(),
                        std::back_inserter(common));
  if (!options.rank && common.empty() && !base_ranks.empty() && !next_ranks.empty()) {
    const std::string line = fmt::format(
        "no rank in common (BASE ranks {}, NEW ranks {}): rank {} is set against rank "
        "{}",
        fmt::join(base_ranks, " "), fmt::join(next_ranks, " "), c->base.compared_rank,
        c->next.compared_rank);
    c->cautions.push_back(line);
    // One captured rank against another (a profile of rank 3 before, of
    // rank 1 after) is a deliberate choice; two jobs without a common rank
    // are parts of different jobs.
    const bool single_ranks = base_ranks.size() == 1 && next_ranks.size() == 1;
    if (cannot.empty() && !single_ranks) cannot = line;
  }
  if (c->base.platform != c->next.platform && c->base.platform != model::Platform::kUnknown &&
      c->next.platform != model::Platform::kUnknown) {
    c->cautions.push_back(fmt::format(
        "BASE is a {} profile and NEW a {} one: kernels, steps and budgets are recorded "
        "differently, so differences are not the change alone",
        model::PlatformLabel(c->base.platform), model::PlatformLabel(c->next.platform)));
  }
  return cannot;
}

PredictionCheck Check(std::string id, double predicted, std::optional<double> step_change_pct) {
  PredictionCheck p{std::move(id), predicted, std::nullopt, std::nullopt};
  if (step_change_pct) {
    p.measured_gain_pct = -*step_change_pct;
    p.error_pct = *p.measured_gain_pct - p.predicted_gain_pct;
  }
  return p;
}

// Each finding of BASE gone in NEW, and all of them at once.
void CheckPredictions(const JobAnalysis& base, RunComparison* c) {
  std::vector<Finding> gone;
  for (const ComparedFinding& f : c->findings) {
    if (!f.in_base || f.in_next) continue;
    c->predictions.push_back(Check(f.id, f.base_gain_pct, c->step_change_pct));
    for (const Finding& finding : base.findings) {
      if (finding.id == f.id) gone.push_back(finding);
    }
  }
  if (gone.size() < 2) return;
  const GainProjection projection = ProjectGains(gone, std::nullopt);
  c->combined_prediction =
      Check("all gone findings", projection.combined_gain_pct, c->step_change_pct);
}

}  // namespace

Result<RunComparison> CompareRuns(const JobAnalysis& base, const JobAnalysis& next,
                                  const CompareOptions& options) {
  TS_ASSIGN_OR_RETURN(const RankAnalysis* base_rank, ComparedRank(base, options.rank, "BASE"));
  TS_ASSIGN_OR_RETURN(const RankAnalysis* next_rank, ComparedRank(next, options.rank, "NEW"));
  const StepDistribution* b = base_rank != nullptr ? base_rank->selected() : nullptr;
  const StepDistribution* n = next_rank != nullptr ? next_rank->selected() : nullptr;
  RunComparison c;
  c.base = InfoOf(base, base_rank);
  c.next = InfoOf(next, next_rank);
  const SideNumbers bn = NumbersOf(base, b);
  const SideNumbers nn = NumbersOf(next, n);
  for (const ValueSpec& spec : kValues) {
    auto get = [&](const SideNumbers& side) -> std::optional<double> {
      auto it = side.values.find(spec.id);
      return it == side.values.end() ? std::nullopt : it->second;
    };
    ComparedValue v{spec.id, spec.label, spec.unit, get(bn), get(nn)};
    if (!v.base && !v.next && v.id != "step_ms") continue;
    c.values.push_back(std::move(v));
  }
  c.families = CompareFamilies(b, n);
  c.operators = CompareOperators(b, n);
  c.findings = CompareFindings(base, next);
  c.op_alignment = AlignOperators(
      b, c.base.platform, n, c.next.platform,
      options.fingerprints != nullptr ? *options.fingerprints : FingerprintLibrary::Builtin(),
      &c.op_alignment_missing);
  if (const ComparedValue* step = VerdictStep(c.values)) c.step_change_pct = step->delta_pct();
  CheckPredictions(base, &c);
  if (b != nullptr) c.base_density = b->density;
  if (n != nullptr) c.next_density = n->density;
  if (base_rank != nullptr && base_rank->timeline.drawn && base_rank->timeline.step == c.base.step)
    c.base_timeline = base_rank->timeline;
  if (next_rank != nullptr && next_rank->timeline.drawn && next_rank->timeline.step == c.next.step)
    c.next_timeline = next_rank->timeline;
  c.verdict = Verdict(c, options.catalog != nullptr ? *options.catalog : FindingCatalog::Builtin());
  if (const std::string cannot = AddCautions(base, next, options, &c); !cannot.empty()) {
    // No speed-up is claimed, nor a prediction checked, from damaged input.
    c.verdict = fmt::format("cannot conclude: {}; the numbers below are shown as read", cannot);
    c.predictions.clear();
    c.combined_prediction.reset();
  }
  c.workload = CheckWorkload(base, next);
  if (c.workload.verdict == WorkloadVerdict::kDifferent) {
    // Two workloads: a step time of one is no yardstick for the other.
    c.cautions.insert(c.cautions.begin(), c.workload.summary);
    c.verdict = fmt::format(
        "not the same workload ({}): the numbers below are shown side by side, not as a change",
        c.workload.summary);
    c.step_change_pct.reset();
    c.predictions.clear();
    c.combined_prediction.reset();
  }
  return c;
}

}  // namespace trainscope::analysis
