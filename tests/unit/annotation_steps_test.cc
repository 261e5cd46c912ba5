// Iterations from a repeated annotation (no ProfilerStep#N): each runs from
// one occurrence to the next, and every device event of the capture is in
// an iteration or counted as outside them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "formats/trace/kineto_reader.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

model::RankProfile LoadCase(const std::string& name) {
  const std::string path =
      testing::SourceDir() + "/tests/golden/cases/kineto/" + name + "/input/rank0.pt.trace.json";
  const std::string json = testing::ReadFileBytes(path);
  model::RankProfile profile;
  EXPECT_FALSE(json.empty()) << path;
  EXPECT_TRUE(formats::ParseKinetoTrace(json, path, &profile).ok());
  return profile;
}

// The host ops named |name|, in time order: the annotation's occurrences.
std::vector<size_t> Occurrences(const model::RankProfile& p, const std::string& name) {
  const model::HostOps& ops = p.timeline.host_ops;
  std::vector<size_t> found;
  for (size_t i = 0; i < ops.size(); ++i)
    if (p.strings.Get(ops.name[i]) == name) found.push_back(i);
  std::sort(found.begin(), found.end(),
            [&ops](size_t a, size_t b) { return ops.start_ns[a] < ops.start_ns[b]; });
  return found;
}

struct Totals {
  int64_t count = 0;
  int64_t duration_ns = 0;
};

Totals OverSteps(const model::DeviceEvents& events) {
  Totals t;
  for (const int32_t step : events.Steps()) {
    for (const uint32_t row : events.RowsOf(step)) {
      ++t.count;
      t.duration_ns += events.duration_ns[row];
    }
  }
  return t;
}

Totals OfCapture(const model::DeviceEvents& events) {
  Totals t;
  for (size_t row = 0; row < events.size(); ++row) {
    ++t.count;
    t.duration_ns += events.duration_ns[row];
  }
  return t;
}

// Windows from one occurrence's start to the next one's.
void ExpectOccurrenceToOccurrence(const model::RankProfile& p, const std::vector<size_t>& occ) {
  const model::Timeline& tl = p.timeline;
  ASSERT_EQ(tl.steps.size(), occ.size());
  for (size_t k = 0; k < occ.size(); ++k) {
    EXPECT_EQ(tl.steps[k].number, static_cast<int32_t>(k));
    EXPECT_EQ(tl.steps[k].start_ns, tl.host_ops.start_ns[occ[k]]);
    if (k + 1 < occ.size()) {
      EXPECT_EQ(tl.steps[k].end_ns, tl.host_ops.start_ns[occ[k + 1]]);
    }
  }
}

// A short DataLoader __next__ per iteration, kernels launched after it:
// before, no step was found (the annotation covers little time) and the
// whole capture was one step; now each __next__ starts an iteration.
TEST(AnnotationSteps, DataLoaderNextStartsEachIteration) {
  const model::RankProfile p = LoadCase("dataloader_steps");
  const std::string name = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  ASSERT_EQ(p.timeline.step_source, model::StepSource::kRepeatedAnnotation);
  EXPECT_EQ(p.timeline.step_annotation, name);
  const std::vector<size_t> occ = Occurrences(p, name);
  ASSERT_EQ(occ.size(), 3u);
  ExpectOccurrenceToOccurrence(p, occ);
  // The last iteration runs past its short annotation to the capture's
  // last device activity (earlier than one full period after its start).
  const model::DeviceEvents& ev = p.device_events;
  int64_t device_end = 0;
  for (size_t row = 0; row < ev.size(); ++row) device_end = std::max(device_end, ev.end_ns(row));
  const model::HostOps& ops = p.timeline.host_ops;
  ASSERT_LT(device_end, ops.start_ns[occ[2]] + (ops.start_ns[occ[1]] - ops.start_ns[occ[0]]));
  EXPECT_EQ(p.timeline.steps.back().end_ns, device_end);
  // The kernels launched between two occurrences are in the earlier one's
  // iteration: two per iteration.
  for (int32_t step = 0; step < 3; ++step) EXPECT_EQ(ev.RowsOf(step).size(), 2u) << step;
  // Cross-check: the iterations hold all of the capture's device activity.
  const Totals steps = OverSteps(ev), capture = OfCapture(ev);
  EXPECT_EQ(steps.count, capture.count);
  EXPECT_EQ(steps.duration_ns, capture.duration_ns);
  EXPECT_EQ(p.steps_from.find("in no step"), std::string::npos) << p.steps_from;
}

// train_step ranges: the copy launched after each range (before the next)
// is in its iteration; a warm-up kernel before the first range and a
// checkpoint kernel launched after the last iteration are counted and said.
TEST(AnnotationSteps, TrainStepRangesCoverTheGapsAndCountTheRest) {
  const model::RankProfile p = LoadCase("train_step_iterations");
  ASSERT_EQ(p.timeline.step_source, model::StepSource::kRepeatedAnnotation);
  EXPECT_EQ(p.timeline.step_annotation, "train_step");
  const std::vector<size_t> occ = Occurrences(p, "train_step");
  ASSERT_EQ(occ.size(), 3u);
  ExpectOccurrenceToOccurrence(p, occ);
  // The last iteration: as long as the longest earlier one (the capture's
  // device activity goes on later, after the loop).
  const model::HostOps& ops = p.timeline.host_ops;
  const int64_t period = ops.start_ns[occ[1]] - ops.start_ns[occ[0]];
  EXPECT_EQ(p.timeline.steps.back().end_ns, ops.start_ns[occ[2]] + period);

  const model::DeviceEvents& ev = p.device_events;
  Totals before, after;
  for (size_t row = 0; row < ev.size(); ++row) {
    if (ev.kind[row] == model::ActivityKind::kMemcpy) {
      EXPECT_NE(ev.step[row], model::kNoStep);
    }
    if (ev.step[row] != model::kNoStep) continue;
    const int64_t launched = ops.start_ns[static_cast<size_t>(ev.launcher[row])];
    Totals& outside = launched < p.timeline.steps.front().start_ns ? before : after;
    if (&outside == &after) {
      EXPECT_GE(launched, p.timeline.steps.back().end_ns);
    }
    ++outside.count;
    outside.duration_ns += ev.duration_ns[row];
  }
  EXPECT_EQ(before.count, 1);
  EXPECT_EQ(after.count, 1);
  for (int32_t step = 0; step < 3; ++step) EXPECT_EQ(ev.RowsOf(step).size(), 3u) << step;
  // Cross-check: iterations plus what is said to be outside them make the
  // capture, count and time.
  const Totals steps = OverSteps(ev), capture = OfCapture(ev);
  EXPECT_EQ(steps.count + before.count + after.count, capture.count);
  EXPECT_EQ(steps.duration_ns + before.duration_ns + after.duration_ns, capture.duration_ns);
  for (const auto& [outside, where] :
       {std::pair{before, "before the first iteration"}, {after, "after the last iteration"}}) {
    const std::string said = fmt::format("{} device event ({:.1f} µs) {}, in no step",
                                         outside.count, outside.duration_ns / 1000.0, where);
    EXPECT_NE(p.steps_from.find(said), std::string::npos) << said << "\n" << p.steps_from;
  }
}

}  // namespace
}  // namespace trainscope
