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

// Marks every finding of |findings| as having no gain to show (see
// Finding::gain_withheld), with |why| as its gain model.
void WithholdGains(const std::string& why, std::vector<Finding>* findings);

// Sorts by estimated gain, largest first; ties by id for stable output.
void RankFindings(std::vector<Finding>* findings);

}  // namespace trainscope::analysis
