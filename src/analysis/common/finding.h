// Finding: one entry of the root-cause portrait (methodology §2 step 5).
//
// Every analysis that can say "this costs you time, change that" emits
// Findings; the job's findings are ranked by estimated gain and lead the
// terminal summary, the JSON and the HTML report.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trainscope::analysis {

// One rank's own numbers for a finding seen on several ranks: the merged
// finding shows the worst rank's title and evidence, and each rank keeps
// its own here (its title names its own band, e.g. "watch" vs "examine").
struct RankEvidence {
  int32_t rank = -1;
  std::string title;
  int64_t occurrences = 0;
  double estimated_gain_pct = 0;  // this rank's gain (its instances of the id summed)
  bool gain_withheld = false;
  std::vector<std::pair<std::string, double>> evidence_values;
};

struct Finding {
  // Stable id, e.g. unfused-rmsnorm, exposed-communication, straggler-rank.
  std::string id;
  std::string title;           // one line, for people
  std::vector<int32_t> ranks;  // ranks where it was seen (empty: job-wide)
  int64_t occurrences = 0;     // instances per step (per rank, summed over ranks where it applies)
  std::string evidence;        // the numbers, in a sentence
  std::vector<std::pair<std::string, double>>
      evidence_values;  // the same numbers, machine-readable
  std::string root_cause;
  std::string remedy;             // concrete switches
  double estimated_gain_pct = 0;  // expected step-time saving, % of the step
  std::string gain_model;         // how the gain was estimated (assumptions)
  // Not enough to judge a gain (a step of a handful of kernels): the gain
  // is unknown, shown as null / "n/a", never as a percentage; gain_model
  // says why and estimated_gain_pct stays 0 (nothing in projections).
  bool gain_withheld = false;
  // The gain is the finding's own replay across the ranks' step
  // (findings/replayed_gains.h), not its detector's estimate.
  bool gain_replayed = false;
  // Each rank's own values, rank order, for a finding the ranks emitted
  // each for themselves (merged by MergeRankFindings); empty for a
  // job-wide finding (stragglers, pipeline stages), whose numbers are the
  // job's.
  std::vector<RankEvidence> per_rank;

  // What the catalogue (data/findings.tsv) renders the text above from,
  // beyond evidence_values; not part of the JSON. variant picks alternative
  // templates of the id (e.g. "examine"); text_values are numbers the
  // sentence shows, text_labels names (operator types, rank lists).
  std::string variant;
  // The catalogue entry the text is rendered from; "" = the entry of |id|
  // (fingerprint findings share the entry "fingerprint").
  std::string template_entry;
  std::vector<std::pair<std::string, double>> text_values;
  std::vector<std::pair<std::string, std::string>> text_labels;
};

// evidence_values and text_values are in the units their keys name (µs for
// *_us, ms for *_ms: data/findings.tsv, docs/json-schema.md). The analysis
// keeps nanoseconds; these convert where a finding's evidence is made.
inline double EvidenceUs(double ns) { return ns / 1e3; }
inline double EvidenceMs(double ns) { return ns / 1e6; }

// The gain as exports write it: NaN (null, empty) when withheld.
double ExportedGainPct(const Finding& finding);
// Where its gain comes from, as every output names it: "replay" or
// "estimate".
inline const char* GainSource(const Finding& finding) {
  return finding.gain_replayed ? "replay" : "estimate";
}

// Marks every finding of |findings| as having no gain to show (see
// Finding::gain_withheld), with |why| as its gain model.
void WithholdGains(const std::string& why, std::vector<Finding>* findings);

// The ranks whose own title is the finding's title (those the title is
// true of); all of |ranks| when the finding has no per-rank values.
std::vector<int32_t> RanksMeetingTitle(const Finding& finding);

// The other ranks grouped by their own title, in rank order of each
// group's first rank: ("Exposed communication above the 10% normal band",
// {2, 3}).
std::vector<std::pair<std::string, std::vector<int32_t>>> RanksWithOtherTitles(
    const Finding& finding);

// Sorts by estimated gain, largest first; ties by id for stable output.
void RankFindings(std::vector<Finding>* findings);

}  // namespace trainscope::analysis
