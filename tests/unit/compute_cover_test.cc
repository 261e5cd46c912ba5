// ComputeCover (analysis/cluster/compute_cover.h) against its definitions
// on the kernels themselves: the time of a window some compute kernel runs
// in, counted one ns at a time, and the first compute start at or after a
// time with the latest end of those before it. Steps of random kernels,
// long ones across many blocks of the index included, rows in and out of
// start order.
#include "analysis/cluster/compute_cover.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/device_events.h"
#include "random_draws.h"

namespace trainscope::analysis {
namespace {

using model::ActivityKind;

struct DrawnKernel {
  ActivityKind kind;
  int32_t step;
  int64_t start;
  int64_t end;
};

model::DeviceEvents TableOf(const std::vector<DrawnKernel>& kernels, bool sorted) {
  model::DeviceEvents events;
  for (const DrawnKernel& k : kernels) {
    model::DeviceEvent row;
    row.kind = k.kind;
    row.step = k.step;
    row.start_ns = k.start;
    row.duration_ns = k.end - k.start;
    events.Append(row);
  }
  if (sorted) events.SortByStart();
  return events;
}

// Per ns of [0, kSpan): whether a compute kernel of |step| runs then.
constexpr int64_t kSpan = 1200;
std::vector<bool> ComputeCells(const std::vector<DrawnKernel>& kernels, int32_t step) {
  std::vector<bool> busy(kSpan, false);
  for (const DrawnKernel& k : kernels) {
    if (k.step != step || k.kind != ActivityKind::kCompute) continue;
    for (int64_t t = std::max<int64_t>(k.start, 0); t < k.end && t < kSpan; ++t)
      busy[static_cast<size_t>(t)] = true;
  }
  return busy;
}

int64_t CoveredByCells(const std::vector<bool>& busy, int64_t from, int64_t to) {
  int64_t covered = 0;
  for (int64_t t = std::max<int64_t>(from, 0); t < to && t < kSpan; ++t)
    covered += busy[static_cast<size_t>(t)] ? 1 : 0;
  return covered;
}

std::optional<ComputeCover::Resume> ResumeByScan(const std::vector<DrawnKernel>& kernels,
                                                 int32_t step, int64_t t) {
  std::optional<int64_t> next, prior;
  for (const DrawnKernel& k : kernels) {
    if (k.step != step || k.kind != ActivityKind::kCompute) continue;
    if (k.start >= t) next = std::min(next.value_or(INT64_MAX), k.start);
    if (k.start < t) prior = std::max(prior.value_or(INT64_MIN), k.end);
  }
  if (!next || !prior) return std::nullopt;
  return ComputeCover::Resume{*next, *prior};
}

TEST(ComputeCover, AStepsWindowsAndResumptions) {
  // Step 1: compute [0,10) [5,30) [40,50), a collective [20,45) (not
  // compute), step 2's kernel [12,14) (not this step's).
  const std::vector<DrawnKernel> kernels = {{ActivityKind::kCompute, 1, 0, 10},
                                            {ActivityKind::kCompute, 1, 5, 30},
                                            {ActivityKind::kCompute, 2, 12, 14},
                                            {ActivityKind::kCommunication, 1, 20, 45},
                                            {ActivityKind::kCompute, 1, 40, 50}};
  const model::DeviceEvents events = TableOf(kernels, true);
  const ComputeCover cover(events, 1);
  EXPECT_EQ(cover.first_start(), 0);
  EXPECT_EQ(cover.CoveredIn(0, 50), 40);
  EXPECT_EQ(cover.CoveredIn(25, 45), 10);  // [25,30) and [40,45)
  EXPECT_EQ(cover.CoveredIn(30, 40), 0);
  EXPECT_EQ(cover.CoveredIn(45, 45), 0);
  EXPECT_EQ(cover.CoveredIn(45, 20), 0);
  const auto resume = cover.ResumeAt(35);
  ASSERT_TRUE(resume.has_value());
  EXPECT_EQ(resume->next_start, 40);
  EXPECT_EQ(resume->prior_end, 30);
  EXPECT_FALSE(cover.ResumeAt(0).has_value());   // nothing starts before
  EXPECT_FALSE(cover.ResumeAt(41).has_value());  // nothing starts after
  std::vector<int64_t> starts;
  cover.ForEach([&](int64_t start, int64_t) { starts.push_back(start); });
  EXPECT_EQ(starts, (std::vector<int64_t>{0, 5, 40}));
  EXPECT_EQ(ComputeCover(events, 3).first_start(), INT64_MAX);
  EXPECT_EQ(ComputeCover(events, 3).CoveredIn(0, 50), 0);
}

TEST(ComputeCover, IsItsDefinitionOnRandomSteps) {
  testing::RandomDraws draw(20261207);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<DrawnKernel> kernels;
    const int count = 1 + draw(400);  // up to six blocks of the index
    for (int i = 0; i < count; ++i) {
      const int64_t start = draw(600);
      // Mostly short kernels, some across much of the step.
      const int64_t length = draw(10) == 0 ? draw(300) : draw(6);
      const ActivityKind kind =
          draw(4) == 0 ? ActivityKind::kCommunication : ActivityKind::kCompute;
      kernels.push_back({kind, static_cast<int32_t>(draw(2)), start, start + length});
    }
    const model::DeviceEvents events = TableOf(kernels, trial % 2 == 0);
    for (int32_t step : {0, 1}) {
      const ComputeCover cover(events, step);
      const std::vector<bool> busy = ComputeCells(kernels, step);
      int64_t first = INT64_MAX;
      for (const DrawnKernel& k : kernels) {
        if (k.step == step && k.kind == ActivityKind::kCompute) first = std::min(first, k.start);
      }
      EXPECT_EQ(cover.first_start(), first);
      int64_t last_start = INT64_MIN;
      cover.ForEach([&](int64_t start, int64_t) {
        EXPECT_LE(last_start, start);
        last_start = start;
      });
      for (int q = 0; q < 40; ++q) {
        const int64_t from = draw(950) - 20;
        const int64_t to = from + draw(200);
        ASSERT_EQ(cover.CoveredIn(from, to), CoveredByCells(busy, from, to))
            << "trial " << trial << " step " << step << " [" << from << ", " << to << ")";
        const auto resume = cover.ResumeAt(from);
        const auto expected = ResumeByScan(kernels, step, from);
        ASSERT_EQ(resume.has_value(), expected.has_value()) << "trial " << trial << " t " << from;
        if (resume) {
          EXPECT_EQ(resume->next_start, expected->next_start);
          EXPECT_EQ(resume->prior_end, expected->prior_end);
        }
      }
    }
  }
}

}  // namespace
}  // namespace trainscope::analysis
