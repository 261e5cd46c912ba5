// `trainscope accuracy` output (docs/accuracy.md): the text summary, the JSON
// document (schema trainscope.accuracy/2, docs/json-schema.md) and the HTML
// page; the same three for a loss-curve comparison (--loss).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "analysis/accuracy/accuracy.h"

namespace trainscope::report {

inline constexpr std::string_view kAccuracyJsonSchema = "trainscope.accuracy/2";

struct AccuracyTextOptions {
  size_t growth_rows = 12;  // points of the error curve shown (sampled evenly)
};

std::string RenderAccuracyText(const analysis::AccuracyComparison& c,
                               const AccuracyTextOptions& options = {});
std::string RenderAccuracyJson(const analysis::AccuracyComparison& c, std::string_view version);
// One row per tensor pair with msprobe compare's columns (NPU = NEW, Bench =
// BASE), so scripts written for its result CSV keep working.
std::string RenderAccuracyCsv(const analysis::AccuracyComparison& c);

// The JSON and CSV documents handed to |sink| in chunks of about 1 MiB as
// they are written: a comparison of a million tensor pairs is gigabytes of
// JSON, which then never sits whole in memory. The bytes equal
// RenderAccuracyJson's and RenderAccuracyCsv's.
using AccuracySink = std::function<void(std::string_view)>;
void StreamAccuracyJson(const analysis::AccuracyComparison& c, std::string_view version,
                        const AccuracySink& sink);
void StreamAccuracyCsv(const analysis::AccuracyComparison& c, const AccuracySink& sink);
std::string RenderAccuracyHtml(const analysis::AccuracyComparison& c, std::string_view version);

std::string RenderLossText(const analysis::LossComparison& c);
std::string RenderLossJson(const analysis::LossComparison& c, std::string_view version);
std::string RenderLossHtml(const analysis::LossComparison& c, std::string_view version);

}  // namespace trainscope::report
