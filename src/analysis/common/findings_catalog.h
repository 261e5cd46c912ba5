// The findings catalogue: what each finding id says (data/findings.tsv) and
// the thresholds the detectors decide with (data/thresholds.tsv), both
// compiled in; `analyze --thresholds FILE` overrides thresholds.
//
// Detectors emit ids and numbers (Finding::evidence_values, text_values,
// text_labels); FindingCatalog::Render turns them into the title, evidence
// sentence, cause, remedy and gain model with the templates of
// analysis/common/finding_template.h. docs/findings.md lists every id and
// threshold with its origin.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/common/finding.h"
#include "analysis/common/finding_template.h"
#include "core/status.h"
#include "model/platform.h"

namespace trainscope::analysis {

// Every threshold a detector decides with. Values come from
// data/thresholds.tsv (the members have no defaults of their own); "pct"
// members are percentages, "share"/"ratio" members fractions.
struct FindingThresholds {
  double exposed_comm_normal = 0;          // share of the step
  double exposed_comm_examine = 0;         // share of the step
  double device_free_normal = 0;           // share of the step
  double dominant_operator = 0;            // share of kernel time
  double pipe_operator_min_share = 0;      // share of kernel time
  double pipe_top_operators = 0;           // count
  double pipe_busy = 0;                    // AI Core pipe ratio
  double pipe_low = 0;                     // AI Core pipe ratio
  double fingerprint_min_instances = 0;    // count per step
  double straggler_gain_cap_pct = 0;       // % of the step
  double skew_wait_pct = 0;                // % of the step
  double skew_residual_pct = 0;            // % of the step
  double skew_min_gain_pct = 0;            // % of the step
  double pseudo_overlap_pct = 0;           // % of the step
  double pseudo_overlap_min_count = 0;     // count per rank
  double pseudo_overlap_min_share = 0;     // share of the rank's all-gathers
  double slow_link_ratio = 0;              // share of the transport's mean bandwidth
  double slow_link_min_mb = 0;             // MB per step: a link that moved less is not judged
  double fragmented_min_slices = 0;        // count per rank
  double fragmented_min_share = 0;         // share of communication time
  double comm_resume_us = 0;               // us after a collective's end (a latency)
  double pseudo_overlap_min_idle_us = 0;   // us of compute idle behind an all-gather
  double small_collective_ms = 0;          // ms: a shorter collective is "small"
  double small_collective_kb = 0;          // KB: and, where the size is known, smaller
  double straggler_min_flag_share = 0;     // share of the tested instances
  double straggler_min_instances = 0;      // count
  double straggler_min_last_share = 0;     // share of the rank's instances
  double straggler_chance_p = 0;           // family-wise chance level of method (b)
  double compare_same_pct = 0;             // compare's verdict: below this, "about the same"
  double straggler_min_lateness_us = 0;    // us behind the median rank
  double replay_max_error_pct = 0;         // % of the measured span
  double straggler_min_step_share = 0;     // share of the tested steps
  double straggler_start_late_pct = 0;     // % of the step behind the median rank
  double stage_imbalance_pct = 0;          // % of the step between pipeline stages
  double input_idle_normal = 0;            // share of the iteration
  double dynamic_shape_min_share = 0;      // share of compute kernel time in dynamic kernels
  double online_compile_pct = 0;           // % of the step in online operator compilation
  double matmul_yardstick_min_share = 0;   // share of the step's matmul time
  double slow_matmul_min_share = 0;        // share of the step's matmul time
  double slow_matmul_relative = 0;         // achieved over the yardstick
  double slow_matmul_min_gain_pct = 0;     // % of the step
  double fragmentation_min_gap_share = 0;  // share of the step's peak reserved memory
  double memory_peak_holder_share = 0;     // share of the allocated peak
  double oom_headroom_share = 0;           // share of the device's memory
  double judge_min_kernels = 0;            // count: a step with fewer kernels gets no gain
  double memory_imbalance_share = 0;       // share of the median rank's allocated peak
  double health_window = 0;                // count of records before the one judged
  double loss_spike_z = 0;                 // robust (modified) z-score
  double loss_spike_min_rise = 0;          // share of the window's median loss
  double grad_explosion_ratio = 0;         // over the window's median grad norm
  double hang_ratio = 0;                   // over the median interval between records
  double throughput_drop_share = 0;        // share of the first third's throughput
  double step_time_drift_share = 0;        // fitted rise over the run, share of the median step
  double slow_warmup_share = 0;            // share above the steady-state step time
  double slow_warmup_min_records = 0;      // count of leading slow records
  double periodic_spike_share = 0;         // share above the median step time
  double periodic_min_spikes = 0;          // count of spikes at a regular period
  double mfu_mismatch_share = 0;           // share of the model's MFU
  double loss_early_rise_share = 0;        // share above the running minimum loss
  double loss_divergence_share = 0;        // share above the lowest window median loss
  double overflow_skip_share = 0;          // share of the steps skipped on fp16 overflow
  double overflow_min_skips = 0;           // count of skipped steps
  double rank_outlier_share = 0;           // share off the median of the ranks' medians
};

// One row of data/thresholds.tsv.
struct ThresholdInfo {
  std::string key;
  double value = 0;
  std::string unit;         // share | pct | ratio | count | factor | us | ms | kb | mb
  std::string relative_to;  // step | kernel-time | ... | none
  std::string origin;       // where the number comes from
  std::string source;       // file:line it was last set from
};

// What one id says: templates per part, by variant ("" = the default).
struct FindingEntry {
  std::string id;
  std::vector<std::string> values;                 // placeholders the detector provides
  std::vector<std::string> thresholds;             // threshold keys the detector decides with
  std::map<std::string, std::string> parts;        // "title", "title@examine", "evidence", ...
  std::map<std::string, std::string> part_source;  // part -> file:line
  std::string source;                              // file:line of its first row

  // The template of |part| for |variant| and |platform|, the most specific
  // first: PART@VARIANT:PLATFORM, PART@VARIANT:gpu (any GPU), PART@VARIANT,
  // then the same without the variant; "" when the id has no such part.
  // |variant| may list several ("examine+megatron"), tried in that order.
  const std::string& Part(const std::string& part, const std::string& variant = "",
                          model::Platform platform = model::Platform::kUnknown) const;
};

class FindingCatalog {
 public:
  // Parses a findings table and a thresholds table; |*_name| names them in
  // errors ("file:line: ...").
  static Result<FindingCatalog> Parse(std::string_view findings_tsv,
                                      const std::string& findings_name,
                                      std::string_view thresholds_tsv,
                                      const std::string& thresholds_name);
  // The compiled-in data/findings.tsv and data/thresholds.tsv.
  static const FindingCatalog& Builtin();

  // Overrides thresholds from |text| (rows: key value [unit [relative_to
  // [origin]]]): an unknown key, a bad value or a unit that differs from the
  // built-in one is an error naming |name|:line.
  Status OverrideThresholds(std::string_view text, const std::string& name);

  const FindingThresholds& thresholds() const { return thresholds_; }
  const std::vector<ThresholdInfo>& threshold_info() const { return threshold_info_; }
  const ThresholdInfo* FindThreshold(std::string_view key) const;
  const std::vector<FindingEntry>& entries() const { return entries_; }
  // The entry of |id|; ids of the fingerprint library render with the
  // "fingerprint" entry. Null when neither exists.
  const FindingEntry* EntryFor(std::string_view id) const;
  const FindingEntry* Find(std::string_view id) const;

  // Fills title, evidence, root_cause, remedy and gain_model of |f| from the
  // entry of |f->id| (or |entry_id|), variant |f->variant|. Returns the names
  // of placeholders that had no value (empty: complete).
  std::vector<std::string> Render(Finding* f, std::string_view entry_id = {},
                                  model::Platform platform = model::Platform::kUnknown) const;
  // One template filled from |f|'s values and the thresholds.
  std::string RenderPart(const std::string& tmpl, const Finding& f,
                         std::vector<std::string>* missing) const;

 private:
  std::vector<FindingEntry> entries_;
  std::vector<ThresholdInfo> threshold_info_;
  FindingThresholds thresholds_;
};

// Renders each finding from its template_entry (or its id's entry). The
// analysis emits findings as data; text is made once, for the findings a
// job shows.
void RenderFindings(const FindingCatalog& catalog, std::vector<Finding>* findings,
                    model::Platform platform);

}  // namespace trainscope::analysis
