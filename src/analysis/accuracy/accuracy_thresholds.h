// Thresholds of `trainscope accuracy` per element type, from
// data/accuracy_thresholds.tsv (compiled in; --thresholds FILE overrides
// rows; docs/accuracy.md gives each row's origin).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/status.h"
#include "model/tensor_dump.h"

namespace trainscope::analysis {

struct AccuracyLimits {
  double min_cosine = 0;
  double max_abs = 0;
  double stat_rel = 0;
  std::string origin;
};

class AccuracyThresholds {
 public:
  static const AccuracyThresholds& Builtin();
  // Rows of |text| (the data file's columns) replace the rows they name.
  Status Override(std::string_view text, const std::string& label);
  // The row of |type| ("other" for integers and bool).
  const AccuracyLimits& For(model::ElementType type) const;
  // The looser of the two rows (the lower-precision side decides).
  const AccuracyLimits& ForPair(model::ElementType a, model::ElementType b) const;
  double loss_tolerance() const { return loss_tolerance_; }
  void set_loss_tolerance(double value) { loss_tolerance_ = value; }
  // --min-cosine / --max-abs: one value for every row.
  void SetEverywhere(std::optional<double> min_cosine, std::optional<double> max_abs);
  const std::map<std::string, AccuracyLimits, std::less<>>& rows() const { return rows_; }

 private:
  std::map<std::string, AccuracyLimits, std::less<>> rows_;
  double loss_tolerance_ = 0;
};

}  // namespace trainscope::analysis
