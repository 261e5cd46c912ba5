// The interactive timeline's payload (report/timeline_payload.h): every
// kernel of the shown step of every rank, decoded here as the page's script
// does, must be the ranks' kernels.
#include "report/timeline_payload.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "synth/synth.h"
#include "synth_job.h"

namespace trainscope::report {
namespace {

std::string FromBase64(std::string_view text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    bits = bits << 6 | static_cast<uint32_t>(kAlphabet.find(c));
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xFF));
    }
  }
  return out;
}

struct DecodedRank {
  int64_t rank = -1;
  int64_t n = 0;
  int64_t dropped = 0;
  std::vector<int64_t> start, duration, lane, name, family, instance;
};

std::vector<DecodedRank> Decode(const std::string& payload, size_t* strings) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(payload);
  *strings = simdjson::dom::array(doc["strings"]).size();
  std::vector<DecodedRank> ranks;
  for (simdjson::dom::element r : simdjson::dom::array(doc["ranks"])) {
    DecodedRank d;
    d.rank = int64_t(r["rank"]);
    d.n = int64_t(r["n"]);
    d.dropped = int64_t(r["dropped"]);
    const std::string bytes = FromBase64(std::string_view(r["kernels"]));
    size_t p = 0;
    auto varint = [&] {
      int64_t value = 0;
      int shift = 0;
      while (p < bytes.size()) {
        const auto c = static_cast<unsigned char>(bytes[p++]);
        value |= static_cast<int64_t>(c & 0x7F) << shift;
        shift += 7;
        if ((c & 0x80) == 0) break;
      }
      return value;
    };
    int64_t t = 0;
    for (int64_t k = 0; k < d.n; ++k) {
      t += varint();
      d.start.push_back(t);
      d.duration.push_back(varint());
      d.lane.push_back(varint());
      varint();  // op type
      d.name.push_back(varint());
      d.family.push_back(varint());
      d.instance.push_back(varint() - 1);
    }
    EXPECT_EQ(p, bytes.size()) << "rank " << d.rank;
    ranks.push_back(std::move(d));
  }
  return ranks;
}

TEST(TimelinePayloadTest, Base64OfTheRfc4648Vectors) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64(std::string("\xff\x00\x80", 3)), "/wCA");
}

class TimelinePayloadJobTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    synth::SynthOptions options;
    options.ranks = 3;
    options.steps = 3;
    options.trace_view = true;  // host ops with launch links, as the demo writes
    options.with_stack = true;
    auto loaded = testing::LoadSynthJob(options, "timeline_payload");
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    analysis::AnalysisOptions analysis_options;
    analysis_options.timeline_kernels = true;
    auto job = analysis::AnalyzeJob(loaded->profiles, analysis::FamilyRules::Builtin(),
                                    analysis_options, 2);
    ASSERT_TRUE(job.ok()) << job.status().message();
    job_ = new analysis::JobAnalysis(std::move(job).value());
  }
  static void TearDownTestSuite() { delete job_; }
  static analysis::JobAnalysis* job_;
};
analysis::JobAnalysis* TimelinePayloadJobTest::job_ = nullptr;

TEST_F(TimelinePayloadJobTest, EveryKernelOfTheShownStepOfEveryRank) {
  ASSERT_EQ(job_->ranks.size(), 3u);
  TimelinePayloadStats stats;
  const std::string payload = TimelinePayload(*job_, kTimelinePageKernels, &stats);
  size_t strings = 0;
  const std::vector<DecodedRank> ranks = Decode(payload, &strings);
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_EQ(stats.ranks, 3);
  int64_t total = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const analysis::StepTimeline& t = job_->ranks[r].timeline;
    const analysis::StepDistribution* step = job_->ranks[r].selected();
    ASSERT_NE(step, nullptr);
    // The page holds the step's kernels: the timeline's count, the
    // distribution's kernels + copies + memsets, and the summed durations.
    EXPECT_GT(t.kernel_count, 1000);
    EXPECT_EQ(ranks[r].n, t.kernel_count);
    EXPECT_EQ(ranks[r].n,
              step->kernels.count + step->kernels.memcpy_count + step->kernels.memset_count);
    EXPECT_EQ(ranks[r].dropped, 0);
    int64_t summed = 0;
    int64_t tagged = 0;
    for (int64_t k = 0; k < ranks[r].n; ++k) {
      const auto kk = static_cast<size_t>(k);
      EXPECT_EQ(ranks[r].duration[kk], t.track.kernels[kk].duration_ns);
      EXPECT_LT(ranks[r].name[kk], static_cast<int64_t>(strings));
      EXPECT_LT(ranks[r].family[kk], static_cast<int64_t>(strings));
      EXPECT_LE(ranks[r].lane[kk], 2);
      summed += ranks[r].duration[kk];
      tagged += ranks[r].instance[kk] >= 0 ? 1 : 0;
    }
    int64_t expected_ns = 0;
    for (const analysis::TimelineKernel& kernel : t.track.kernels)
      expected_ns += kernel.duration_ns;
    EXPECT_EQ(summed, expected_ns);
    EXPECT_GT(tagged, 0) << "no kernel in a motif instance";
    EXPECT_EQ(ranks[r].start.front(), 0);  // the first kernel starts the step
    EXPECT_EQ(ranks[r].start.back(), t.track.kernels.back().start_ns);
    total += ranks[r].n;
  }
  EXPECT_EQ(stats.kernels, total);
  // Host launches: one per kernel with a launch link (synth's trace_view.json).
  int64_t launches = 0;
  for (const analysis::RankAnalysis& rank : job_->ranks)
    launches += static_cast<int64_t>(rank.timeline.track.launches.size());
  EXPECT_GT(launches, 0);
  EXPECT_EQ(stats.launches, launches);
}

TEST_F(TimelinePayloadJobTest, ABudgetKeepsEachRanksShareOfTheLongest) {
  TimelinePayloadStats stats;
  const std::string payload = TimelinePayload(*job_, 300, &stats);
  size_t strings = 0;
  const std::vector<DecodedRank> ranks = Decode(payload, &strings);
  ASSERT_EQ(ranks.size(), 3u);
  for (size_t r = 0; r < ranks.size(); ++r) {
    const analysis::StepTimeline& t = job_->ranks[r].timeline;
    EXPECT_EQ(ranks[r].n, 100);
    EXPECT_EQ(ranks[r].dropped, t.kernel_count - 100);
    // Every kernel kept is at least as long as every kernel left out.
    std::vector<int64_t> durations;
    for (const analysis::TimelineKernel& kernel : t.track.kernels)
      durations.push_back(kernel.duration_ns);
    std::sort(durations.rbegin(), durations.rend());
    const int64_t shortest_kept =
        *std::min_element(ranks[r].duration.begin(), ranks[r].duration.end());
    EXPECT_EQ(shortest_kept, durations[99]);
    for (size_t k = 1; k < ranks[r].start.size(); ++k)
      EXPECT_LE(ranks[r].start[k - 1], ranks[r].start[k]);
  }
  EXPECT_EQ(stats.kernels, 300);
}

// Ranks on one clock share the axis: each rank's offset is its step start
// after the earliest; a rank an hour off (hosts' clocks not synchronised)
// puts every rank on its own step start.
TEST_F(TimelinePayloadJobTest, OneAxisOnlyForOneClock) {
  auto offsets = [](const std::string& payload, bool* shared) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(payload);
    *shared = bool(doc["shared_axis"]);
    std::vector<int64_t> out;
    for (simdjson::dom::element r : simdjson::dom::array(doc["ranks"]))
      out.push_back(int64_t(r["offset"]));
    return out;
  };
  bool shared = false;
  const std::vector<int64_t> synced =
      offsets(TimelinePayload(*job_, kTimelinePageKernels), &shared);
  EXPECT_TRUE(shared);
  int64_t t0 = INT64_MAX;
  for (const analysis::RankAnalysis& rank : job_->ranks)
    t0 = std::min(t0, rank.timeline.step_start_ns);
  ASSERT_EQ(synced.size(), 3u);
  for (size_t r = 0; r < 3; ++r) EXPECT_EQ(synced[r], job_->ranks[r].timeline.step_start_ns - t0);
  analysis::JobAnalysis job = *job_;
  job.ranks[1].timeline.step_start_ns += 3'600'000'000'000;
  const std::vector<int64_t> apart = offsets(TimelinePayload(job, kTimelinePageKernels), &shared);
  EXPECT_FALSE(shared);
  EXPECT_EQ(apart, (std::vector<int64_t>{0, 0, 0}));
}

// The cross-rank critical path over the rows: every segment of the path of
// the shown step, on the page's axis, in time order and covering the span
// from the earliest rank's first kernel; with a host's clock offset applied
// by the cluster analysis, its ranks' segments move back onto their kernels.
TEST_F(TimelinePayloadJobTest, TheCriticalPathOnThePagesAxis) {
  const analysis::CriticalPath& path = job_->cluster.critical_path;
  ASSERT_TRUE(path.computed) << path.note;
  ASSERT_EQ(path.step, job_->ranks[0].timeline.step);
  auto segments = [](const std::string& payload) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.parse(payload);
    std::vector<std::vector<int64_t>> out;
    simdjson::dom::array array;
    if (doc["critical_path"].get(array) != simdjson::SUCCESS) return out;
    for (simdjson::dom::element seg : array) {
      std::vector<int64_t> v;
      for (simdjson::dom::element x : simdjson::dom::array(seg)) v.push_back(int64_t(x));
      out.push_back(v);
    }
    return out;
  };
  const auto drawn = segments(TimelinePayload(*job_, kTimelinePageKernels));
  ASSERT_EQ(drawn.size(), path.segments.size());
  int64_t t0 = INT64_MAX;
  for (const analysis::RankAnalysis& rank : job_->ranks)
    t0 = std::min(t0, rank.timeline.step_start_ns);
  for (size_t i = 0; i < drawn.size(); ++i) {
    const analysis::PathSegment& s = path.segments[i];
    ASSERT_EQ(drawn[i].size(), 4u);
    EXPECT_EQ(job_->ranks[static_cast<size_t>(drawn[i][0])].header.rank, s.rank);
    EXPECT_EQ(drawn[i][1], s.start_ns - t0);
    EXPECT_EQ(drawn[i][2], s.end_ns - t0);
    EXPECT_EQ(drawn[i][3], static_cast<int64_t>(s.kind));
  }
  // Rank 2's host ran 3.7 ms ahead and the alignment took it off: its
  // segments are drawn 3.7 ms later, where its kernels are.
  analysis::JobAnalysis job = *job_;
  analysis::HostClock host;
  host.ranks = {2};
  host.offset_ns = 3'700'000;
  host.applied = true;
  job.cluster.clock.hosts = {host};
  const auto shifted = segments(TimelinePayload(job, kTimelinePageKernels));
  ASSERT_EQ(shifted.size(), drawn.size());
  for (size_t i = 0; i < drawn.size(); ++i) {
    const int64_t expected = path.segments[i].rank == 2 ? 3'700'000 : 0;
    EXPECT_EQ(shifted[i][1] - drawn[i][1], expected) << i;
  }
  // Not the shown step's path: none drawn.
  job.cluster.critical_path.step += 100;
  EXPECT_TRUE(segments(TimelinePayload(job, kTimelinePageKernels)).empty());
}

// The step selector's data: every other step whose kernels the analysis
// kept, whole, each rank's kernels as in its track; the first captured step
// (a warm-up, no kernels kept) named as such; a budget that only the shown
// step fits leaves the others out and says which.
TEST_F(TimelinePayloadJobTest, EveryStepWithKeptKernelsWithinTheBudget) {
  const analysis::RankAnalysis& rank0 = job_->ranks[0];
  ASSERT_GE(rank0.steps.size(), 3u);
  ASSERT_FALSE(rank0.other_tracks.empty());
  TimelinePayloadStats stats;
  const std::string payload = TimelinePayload(*job_, kTimelinePageKernels, &stats);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(payload);
  EXPECT_EQ(int64_t(doc["v"]), 2);
  const int32_t shown = rank0.timeline.step;
  EXPECT_EQ(int64_t(doc["step"]), shown);
  std::vector<int32_t> expected_steps{shown};
  for (const analysis::StepTimeline& other : rank0.other_tracks)
    expected_steps.push_back(other.step);
  std::sort(expected_steps.begin(), expected_steps.end());
  EXPECT_EQ(stats.steps, expected_steps);
  EXPECT_TRUE(stats.steps_left_out.empty());
  // The first captured step is a warm-up: no kernels kept, named as such.
  EXPECT_EQ(stats.steps_without_track, (std::vector<int32_t>{rank0.steps.front().step}));
  // Each other step: every rank, and each rank's kernels those of its track.
  int64_t other_kernels = 0;
  size_t index = 0;
  for (simdjson::dom::element step : simdjson::dom::array(doc["other_steps"])) {
    const auto number = static_cast<int32_t>(int64_t(step["step"]));
    EXPECT_NE(number, shown);
    size_t r = 0;
    for (simdjson::dom::element rank : simdjson::dom::array(step["ranks"])) {
      ASSERT_LT(r, job_->ranks.size());
      const analysis::StepTimeline& track = job_->ranks[r].other_tracks.at(index);
      EXPECT_EQ(track.step, number);
      EXPECT_EQ(int64_t(rank["rank"]), job_->ranks[r].header.rank);
      EXPECT_EQ(int64_t(rank["n"]), static_cast<int64_t>(track.track.kernels.size()));
      EXPECT_EQ(int64_t(rank["span"]), track.span_ns);
      EXPECT_FALSE(bool(rank["straggler"]));
      other_kernels += int64_t(rank["n"]);
      ++r;
    }
    EXPECT_EQ(r, job_->ranks.size());
    ++index;
  }
  EXPECT_EQ(index, rank0.other_tracks.size());
  EXPECT_EQ(stats.other_step_kernels, other_kernels);
  EXPECT_GT(other_kernels, 0);
  // A budget the shown step fills: no other step, each named as left out.
  TimelinePayloadStats tight;
  const std::string shown_only = TimelinePayload(*job_, static_cast<size_t>(stats.kernels), &tight);
  simdjson::dom::element small = parser.parse(shown_only);
  EXPECT_EQ(simdjson::dom::array(small["other_steps"]).size(), 0u);
  EXPECT_EQ(tight.steps, (std::vector<int32_t>{shown}));
  std::vector<int32_t> left_out;
  for (const analysis::StepTimeline& other : rank0.other_tracks) left_out.push_back(other.step);
  EXPECT_EQ(tight.steps_left_out, left_out);
  EXPECT_EQ(tight.kernels, stats.kernels);  // the shown step itself whole
  EXPECT_EQ(tight.dropped, 0);
}

TEST_F(TimelinePayloadJobTest, NothingWithoutTracks) {
  analysis::JobAnalysis job = *job_;
  for (analysis::RankAnalysis& rank : job.ranks) rank.timeline.track = {};
  EXPECT_EQ(TimelinePayload(job, kTimelinePageKernels), "");
}

}  // namespace
}  // namespace trainscope::report
