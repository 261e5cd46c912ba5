// Cluster analysis end to end on real multi-rank captures (skipped when the
// shared corpus is absent).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/common/family_rules.h"
#include "analysis/job/rank_analysis.h"
#include "formats/load_profiles.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/steps_table.h"
#include "report/text_report.h"
#include "test_paths.h"

namespace trainscope::analysis {
namespace {

JobAnalysis Analyze(const std::string& dir) {
  auto profiles = formats::LoadProfiles({dir}, 2);
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  auto rules = FamilyRules::Merge({}, FamilyRules::Builtin());
  auto job = AnalyzeJob(profiles->profiles, rules, AnalysisOptions(), 2);
  EXPECT_TRUE(job.ok());
  return std::move(*job);
}

TEST(ClusterCorpus, AscendResnet2RankReadsCommunicationJson) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-text-level1");
  JobAnalysis job = Analyze(corpus_path + "/ascend/msinsight-pytorch-2rank-text-level1");
  ASSERT_TRUE(job.cluster.present);
  EXPECT_EQ(job.cluster.ranks, 2);
  EXPECT_FALSE(job.cluster.collectives.empty());
  EXPECT_GT(job.cluster.links_checked, 0);
  EXPECT_GT(job.cluster.by_last_arrival.instances_tested, 0);
}

// The ResNet job's 4 all-reduces per step move count x 4 bytes (FP32):
// 4,097,000 + 16,781,312 + 37,752,832 + 2,469,696 elements, 61.1 MB a call
// on average, over an 8-rank group (both ranks' communication_matrix.json
// links reach group-local rank 7), though only ranks 0 and 1 were captured.
// The text export (trace_view.json args) and the .db export
// (COMMUNICATION_OP) of the same job say so alike; their captures differ,
// so the bandwidths only agree in size.
TEST(ClusterCorpus, AscendResnetMessageAndGroupAreTheSameInTextAndDb) {
  TS_REQUIRE_CORPUS("ascend/msinsight-pytorch-2rank-db-level1");
  ASSERT_TRUE(std::filesystem::exists(corpus_path + "/ascend/msinsight-pytorch-2rank-text-level1"));
  for (const char* set :
       {"msinsight-pytorch-2rank-text-level1", "msinsight-pytorch-2rank-db-level1"}) {
    SCOPED_TRACE(set);
    JobAnalysis job = Analyze(corpus_path + "/ascend/" + set);
    ASSERT_EQ(job.cluster.collectives.size(), 1u);
    const CollectiveTypeStats& s = job.cluster.collectives[0];
    EXPECT_EQ(s.type, "allreduce");
    EXPECT_EQ(s.count, 8);      // 4 calls x 2 ranks
    EXPECT_EQ(s.instances, 4);  // matched by op name across the ranks
    EXPECT_DOUBLE_EQ(s.mean_bytes, 61'100'840.0 * 4 / 4);
    EXPECT_EQ(s.group_size_min, 8);
    EXPECT_EQ(s.group_size_max, 8);
    EXPECT_EQ(s.group_size_source, GroupSizeSource::kLinks);
    ASSERT_TRUE(s.bandwidth_known && s.busbw_known);
    EXPECT_DOUBLE_EQ(s.busbw_gbps / s.algbw_gbps, 2.0 * 7 / 8);
    // Shortest call of each instance: 2.2-22 ms for 9.9-151 MB.
    EXPECT_GT(s.algbw_gbps, 1.0);
    EXPECT_LT(s.algbw_gbps, 80.0);
  }
}

TEST(ClusterCorpus, AscendQwen4Rank) {
  TS_REQUIRE_CORPUS("ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  JobAnalysis job =
      Analyze(corpus_path + "/ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  ASSERT_TRUE(job.cluster.present);
  EXPECT_EQ(job.cluster.ranks, 4);
  EXPECT_GT(job.cluster.links_checked, 0);
  // Every bulk link runs at 18.7-20.9 GB/s; the 24-96 byte all-gathers and
  // all-reduces at 0.004-0.08 GB/s are latency-bound and must not be "slow".
  EXPECT_TRUE(job.cluster.slow_links.empty());
  // The rank x rank matrix: the "total" records of all four
  // communication_matrix.json files summed per (src, dst, transport), local
  // ids made global by the self links; the numbers are python's over the
  // raw files (sum of Transit Size(MB) and Transit Time(ms)).
  ASSERT_EQ(job.cluster.link_matrix.size(), 12u);
  auto cell = [&](int32_t src, int32_t dst) -> const LinkCell* {
    for (const LinkCell& c : job.cluster.link_matrix) {
      if (c.src == src && c.dst == dst && c.transport == "HCCS") return &c;
    }
    return nullptr;
  };
  ASSERT_TRUE(cell(0, 1) && cell(1, 0) && cell(0, 2) && cell(0, 3));
  EXPECT_NEAR(cell(0, 1)->size_mb, 1127.447, 1e-3);
  EXPECT_NEAR(cell(0, 1)->time_ms, 59.515, 1e-3);
  EXPECT_NEAR(cell(1, 0)->time_ms, 59.523, 1e-3);
  EXPECT_NEAR(cell(0, 2)->size_mb, 639.107, 1e-3);
  EXPECT_NEAR(cell(0, 2)->time_ms, 33.457, 1e-3);
  EXPECT_NEAR(cell(0, 2)->bandwidth_gbps(), 639.107 / 33.457, 1e-3);
  EXPECT_NEAR(cell(0, 3)->size_mb, 96e-6, 1e-9);  // 96 bytes: handshake-sized only
  // Ranks 1 and 3 have no kernel_details.csv: they do not count in the step
  // statistics, and between the two ranks left "last to arrive" is no verdict.
  EXPECT_LT(job.cluster.step_time_spread_pct, 5);
  EXPECT_GT(job.cluster.mean_step_time_ns, 700'000'000);
  EXPECT_TRUE(job.cluster.straggler_ranks.empty());
  // They are listed with what they have, their step columns unknown: null
  // in the JSON, "n/a" in the text, never 0.
  EXPECT_EQ(job.cluster.ranks_with_step, 2);
  ASSERT_EQ(job.cluster.per_rank.size(), 4u);
  for (const RankClusterStats& r : job.cluster.per_rank) {
    EXPECT_EQ(r.has_device_step, r.rank == 0 || r.rank == 2) << r.rank;
  }
  const std::string json = report::RenderJson(job, "test");
  EXPECT_NE(json.find("\"has_device_step\": false,"), std::string::npos);
  EXPECT_NE(json.find("\"step_time_us\": null,"), std::string::npos);
  const std::string text = report::RenderText(job, {});
  EXPECT_NE(text.find("n/a  (no device events in the step)"), std::string::npos);
}

TEST(ClusterCorpus, KinetoDlrm8Rank) {
  TS_REQUIRE_CORPUS("kineto/dlrm_ddp_8rank_v100_param");
  JobAnalysis job = Analyze(corpus_path + "/kineto/dlrm_ddp_8rank_v100_param");
  ASSERT_TRUE(job.cluster.present);
  EXPECT_EQ(job.cluster.ranks, 8);
  EXPECT_GT(job.cluster.by_shortest_comm.instances_tested, 0);
  // HTA names [2, 7] (always its top 2 of one kernel); rank 7 is the clear
  // one here: last in 5 of 8 collectives, ~0.65 ms late on average, rank 2
  // ties with rank 6 (~0.42 ms). docs/clusters.md has the comparison.
  EXPECT_EQ(job.cluster.straggler_ranks, std::vector<int32_t>{7});
  // Every rank has its host (Kineto CPU ops): the path's device idle is
  // charged to its causes, mostly launches (52% of the 19.7 ms span: 246
  // kernels of p50 3 us, one issued every 43 us), and the host findings take
  // their gains from the replay: host-bound 51.5% (its estimate 49.8%); rank
  // 3's data loader (5.7% of its iteration) is on no rank's path: 0.
  const CriticalPath& path = job.cluster.critical_path;
  ASSERT_TRUE(path.computed);
  EXPECT_TRUE(path.host_known);
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  EXPECT_GT(static_cast<double>(path.host.launch_ns), 0.4 * span);
  EXPECT_GT(path.host.launch_ns, path.compute_ns);
  bool host_bound = false, input_bound = false;
  for (const Finding& f : job.findings) {
    if (f.id == "host-bound") {
      host_bound = true;
      EXPECT_TRUE(f.gain_replayed);
      EXPECT_GT(f.estimated_gain_pct, 40);
    }
    if (f.id == "input-bound") {
      input_bound = true;
      EXPECT_TRUE(f.gain_replayed);
      EXPECT_LT(f.estimated_gain_pct, 1);
    }
  }
  EXPECT_TRUE(host_bound);
  EXPECT_TRUE(input_bound);
}

TEST(ClusterCorpus, KinetoSampled2Of128) {
  TS_REQUIRE_CORPUS("kineto/hta_sampled_2rank_of128job");
  JobAnalysis job = Analyze(corpus_path + "/kineto/hta_sampled_2rank_of128job");
  ASSERT_TRUE(job.cluster.present);
  EXPECT_EQ(job.cluster.ranks, 2);
  // HTA's [0, 1] is its top 2 of 2 ranks; two ranks cannot single one out.
  EXPECT_TRUE(job.cluster.straggler_ranks.empty());
  // Their collectives wait for 126 ranks outside the trace: the unchanged
  // replay (944 ms) is far from the measured span (624 ms), so no finding
  // takes its gain from it, and the path says why.
  const CriticalPath& path = job.cluster.critical_path;
  ASSERT_TRUE(path.computed);
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  EXPECT_GT(std::abs(static_cast<double>(path.replayed_ns) - span), 0.1 * span);
  EXPECT_NE(path.replay_note.find("keep their own estimates"), std::string::npos);
  EXPECT_FALSE(path.findings_together_gain_pct.has_value());
  for (const Finding& f : job.findings) EXPECT_FALSE(f.gain_replayed) << f.id;
  EXPECT_EQ(job.projection.replayed_findings, 0);
}

// On the Qwen3 4-rank pipeline job the replay reproduces the measured span
// (810.45 against 810.25 ms), so the findings it can express take their
// gains from it (exposed communication overlapped to the normal band: 8.6%
// against the estimate's 4.6%); the pipeline findings, which it cannot
// (send/receive are not its edges), keep theirs.
TEST(ClusterCorpus, AscendQwen4RankGainsByReplay) {
  TS_REQUIRE_CORPUS("ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  JobAnalysis job =
      Analyze(corpus_path + "/ascend/msinsight-st-qwen3-0.6b-4rank-level2-cann8.3.RC1");
  const CriticalPath& path = job.cluster.critical_path;
  ASSERT_TRUE(path.computed);
  const auto span = static_cast<double>(path.end_ns - path.start_ns);
  EXPECT_NEAR(static_cast<double>(path.replayed_ns), span, 0.01 * span);
  EXPECT_TRUE(path.replay_note.empty()) << path.replay_note;
  // No host trace on the ranks the path runs through: the host's causes
  // are unknown, and their time stays idle.
  EXPECT_FALSE(path.host_known);
  EXPECT_EQ(path.host.total(), 0);
  EXPECT_GT(path.idle_ns, 0);
  bool exposed = false;
  for (const Finding& f : job.findings) {
    if (f.id == "exposed-communication") {
      exposed = true;
      EXPECT_TRUE(f.gain_replayed);
      EXPECT_GT(f.estimated_gain_pct, 0);
    }
    if (f.id == "pipeline-bubble" || f.id == "stage-imbalance") {
      EXPECT_FALSE(f.gain_replayed) << f.id;
    }
  }
  EXPECT_TRUE(exposed);
  EXPECT_GT(job.projection.replayed_findings, 0);
  ASSERT_TRUE(job.projection.replayed_gain_pct.has_value());
  // The text says which gains were replayed.
  EXPECT_NE(report::RenderText(job, {}).find("replayed together across the ranks"),
            std::string::npos);
}

// step_trace_time.csv's step of the one row of |file|: Computing +
// Communication(Not Overlapped) + Free, in ns (read here, apart from the
// reader under test).
double GptStepTraceNs(const std::string& file) {
  std::ifstream in(file);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  std::vector<double> cells;
  std::stringstream fields(row);
  for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(std::stod(cell));
  EXPECT_GE(cells.size(), 6u) << file;
  return cells.size() >= 6 ? (cells[1] + cells[2] + cells[5]) * 1e3 : 0;
}

// The gpt3 old-format job: both ranks' kernel_details.csv disagree with
// step_trace_time.csv (48-55% of the step), so their timelines are set
// aside. The cluster's step, the projection's step and the every-step table
// are step_trace_time.csv's (291.7 and 294.6 ms), never the device spans of
// the set-aside timelines (267.8 and 16.4 ms, a 142.1 ms mean); nothing is
// drawn from those timelines.
TEST(ClusterCorpus, AscendGpt3SetAsideTimelinesEnterWithTheirBudget) {
  const std::string dir = "ascend/msinsight-server-testdata-gpt3-2rank-oldformat";
  TS_REQUIRE_CORPUS(dir);
  JobAnalysis job = Analyze(corpus_path + "/" + dir);
  const double step0 = GptStepTraceNs(corpus_path + "/" + dir +
                                      "/test_rank_0/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
  const double step1 = GptStepTraceNs(corpus_path + "/" + dir +
                                      "/test_rank_1/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
  ASSERT_TRUE(job.cluster.present);
  EXPECT_EQ(job.cluster.ranks_with_step, 2);
  EXPECT_EQ(job.cluster.ranks_with_timeline, 0);
  ASSERT_EQ(job.cluster.per_rank.size(), 2u);
  EXPECT_TRUE(job.cluster.per_rank[0].timeline_set_aside);
  EXPECT_TRUE(job.cluster.per_rank[1].timeline_set_aside);
  EXPECT_NEAR(static_cast<double>(job.cluster.per_rank[0].step_time_ns), step0, 1);
  EXPECT_NEAR(static_cast<double>(job.cluster.per_rank[1].step_time_ns), step1, 1);
  EXPECT_NEAR(job.cluster.mean_step_time_ns, (step0 + step1) / 2, 1);
  EXPECT_NEAR(job.cluster.step_time_spread_pct, (step1 - step0) / ((step0 + step1) / 2) * 100,
              1e-6);
  ASSERT_TRUE(job.projection.step_ns.has_value());
  EXPECT_NEAR(static_cast<double>(*job.projection.step_ns), (step0 + step1) / 2, 1);
  // The every-step table: the budget's step for both ranks.
  const report::StepsTable table = report::BuildStepsTable(job);
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].timeline_set_aside_ranks, 2);
  EXPECT_NEAR(table.rows[0].mean_span_ns, (step0 + step1) / 2, 1);
  // No picture of a set-aside timeline, and the reports say why.
  for (const RankAnalysis& rank : job.ranks) {
    EXPECT_FALSE(rank.timeline.set_aside.empty()) << rank.header.rank;
    EXPECT_FALSE(rank.timeline.drawn);
    EXPECT_EQ(rank.timeline.span_ns, 0);
  }
  const std::string text = report::RenderText(job, {});
  EXPECT_NE(text.find(fmt::format("step {:.1f} ms ->", (step0 + step1) / 2e6)), std::string::npos)
      << text.substr(0, 4000);
  EXPECT_EQ(text.find("142.1 ms"), std::string::npos);
  EXPECT_NE(text.find("timeline set aside: step and comm from step_trace_time.csv"),
            std::string::npos);
  const std::string json = report::RenderJson(job, "test");
  EXPECT_NE(json.find("\"first_kernel_skew_us\": null"), std::string::npos);
  EXPECT_NE(json.find("\"step_start_offset_us\": null"), std::string::npos);
}

// The whitespace-separated fields of the text cluster table's row of
// |rank| ("  rank  step ms  start +ms ... lateness µs"), empty when absent.
std::vector<std::string> ClusterTextRow(const std::string& text, int32_t rank) {
  const size_t table = text.find("  rank  step ms  start +ms");
  if (table == std::string::npos) return {};
  const std::string head = fmt::format("\n  {:>4}  ", rank);
  const size_t at = text.find(head, table);
  if (at == std::string::npos) return {};
  std::istringstream line(text.substr(at + 1, text.find('\n', at + 1) - at - 1));
  std::vector<std::string> fields;
  for (std::string field; line >> field;) fields.push_back(field);
  return fields;
}

// Both gpt3 ranks' timelines are set aside (start times rounded as by a
// spreadsheet): their collectives' start times and durations are not
// evidence, so no straggler method (a)-(d) compares them and their
// arrivals, lateness, late starts and least communication are unknown in
// every output, not the +-995 us the rounded starts gave.
TEST(ClusterCorpus, AscendGpt3SetAsideTimelinesGiveNoStragglerNumbers) {
  const std::string dir = "ascend/msinsight-server-testdata-gpt3-2rank-oldformat";
  TS_REQUIRE_CORPUS(dir);
  JobAnalysis job = Analyze(corpus_path + "/" + dir);
  const ClusterAnalysis& c = job.cluster;
  ASSERT_TRUE(c.present);
  ASSERT_EQ(c.per_rank.size(), job.ranks.size());
  for (size_t i = 0; i < c.per_rank.size(); ++i) {
    const RankClusterStats& r = c.per_rank[i];
    SCOPED_TRACE(r.rank);
    EXPECT_EQ(r.steps_set_aside, static_cast<int64_t>(job.ranks[i].steps.size()));
    EXPECT_GT(r.steps_set_aside, 0);
    EXPECT_EQ(r.instances_compared, 0);
    EXPECT_EQ(r.start_steps_compared, 0);
    EXPECT_EQ(r.comm_steps_compared, 0);
    EXPECT_EQ(r.last_arrivals, 0);
    EXPECT_EQ(r.mean_lateness_ns, 0);
  }
  for (const StragglerMethod* m :
       {&c.by_shortest_comm, &c.by_last_arrival, &c.by_late_start, &c.by_least_comm}) {
    EXPECT_EQ(m->instances_tested, 0) << m->id;
    EXPECT_TRUE(m->ranks.empty()) << m->id;
  }
  EXPECT_TRUE(c.straggler_ranks.empty());
  // Nor a critical path: its times would be the timeline judged wrong.
  EXPECT_FALSE(c.critical_path.computed);
  EXPECT_NE(c.critical_path.note.find("set aside"), std::string::npos) << c.critical_path.note;
  bool noted = false;
  for (const std::string& note : c.notes)
    noted = noted || note.find("device timeline set aside in every step") != std::string::npos;
  EXPECT_TRUE(noted);

  // Text: short-flags, last and lateness are n/a; the note says why.
  const std::string text = report::RenderText(job, {});
  for (const RankClusterStats& r : c.per_rank) {
    const std::vector<std::string> row = ClusterTextRow(text, r.rank);
    ASSERT_GE(row.size(), 11u) << text.substr(text.find("Cluster ("), 3000);
    EXPECT_EQ(row[8], "n/a") << r.rank;
    EXPECT_EQ(row[9], "n/a") << r.rank;
    EXPECT_EQ(row[10], "n/a") << r.rank;
  }
  EXPECT_NE(text.find("device timeline set aside in every step"), std::string::npos);

  // JSON: null, with the counts that say why.
  const std::string json = report::RenderJson(job, "test");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  simdjson::dom::array per_rank;
  ASSERT_EQ(doc["cluster"]["per_rank"].get(per_rank), simdjson::SUCCESS);
  ASSERT_EQ(per_rank.size(), c.per_rank.size());
  for (simdjson::dom::element r : per_rank) {
    for (const char* key : {"shortest_flags", "last_arrivals", "mean_lateness_us",
                            "late_start_flags", "mean_start_lateness_us", "least_comm_flags"}) {
      EXPECT_TRUE(r[key].is_null()) << key;
    }
    int64_t compared = -1;
    ASSERT_EQ(r["instances_compared"].get(compared), simdjson::SUCCESS);
    EXPECT_EQ(compared, 0);
  }

  // The collectives: every call counted, none timed; no time, mean,
  // bandwidth or "small" read off the set-aside timelines, in any output.
  ASSERT_FALSE(c.collectives.empty());
  for (const CollectiveTypeStats& s : c.collectives) {
    SCOPED_TRACE(s.type);
    EXPECT_GT(s.count, 0);
    EXPECT_EQ(s.timed_count, 0);
    EXPECT_EQ(s.total_ns, 0);
    EXPECT_FALSE(s.bandwidth_known);
    EXPECT_FALSE(s.busbw_known);
  }
  simdjson::dom::array collectives;
  ASSERT_EQ(doc["cluster"]["collectives"].get(collectives), simdjson::SUCCESS);
  ASSERT_EQ(collectives.size(), c.collectives.size());
  for (simdjson::dom::element s : collectives) {
    for (const char* key : {"total_us", "mean_us", "small_count", "small_us", "algbw_gbps"})
      EXPECT_TRUE(s[key].is_null()) << key;
    int64_t timed = -1;
    ASSERT_EQ(s["timed_count"].get(timed), simdjson::SUCCESS);
    EXPECT_EQ(timed, 0);
  }
  EXPECT_NE(text.find("calls read off a set-aside device timeline: counted, their times left out"),
            std::string::npos);

  // HTML: the skew and the wait are n/a as in the text; each rank's last
  // arrivals and lateness too.
  const std::string html = report::RenderHtml(job, {});
  EXPECT_NE(html.find("first-kernel skew n/a, step-start wait mean n/a / max n/a"),
            std::string::npos);
  for (const RankClusterStats& r : c.per_rank) {
    const size_t at =
        html.find(fmt::format("<tr><td>{}</td><td>{} <span class=\"muted\">", r.rank,
                              report::FormatDurationNs(static_cast<double>(r.step_time_ns))));
    ASSERT_NE(at, std::string::npos) << r.rank;
    const std::string row = html.substr(at, html.find("</tr>", at) - at);
    EXPECT_TRUE(row.ends_with("<td>n/a</td><td>n/a</td>")) << row;
  }
}

// The DLRM job's files are named worker{r}_step_12.{ms}.pt.trace.json: read
// as {host}_{pid}, one host of eight V100s becomes eight "hosts". Their
// offsets are the collectives' µs of end jitter, none is applied, and the
// ranks' times are the trace's own.
TEST(ClusterCorpus, DlrmWorkerNamesReadAsHostsMoveNothing) {
  const std::string dir = "kineto/dlrm_ddp_8rank_v100_param";
  TS_REQUIRE_CORPUS(dir);
  const JobAnalysis job = Analyze(corpus_path + "/" + dir);
  const ClockAlignment& clock = job.cluster.clock;
  ASSERT_TRUE(clock.estimated) << clock.note;
  EXPECT_FALSE(clock.applied);
  EXPECT_EQ(clock.hosts.size(), 8u);
  for (const HostClock& host : clock.hosts) {
    EXPECT_FALSE(host.applied) << host.host;
    ASSERT_TRUE(host.offset_ns.has_value()) << host.host;
    EXPECT_LT(std::abs(*host.offset_ns), 10'000) << host.host;
  }
  EXPECT_EQ(clock.end_spread_after_ns, clock.end_spread_before_ns);
  EXPECT_NE(clock.note.find("not applied"), std::string::npos) << clock.note;
}

}  // namespace
}  // namespace trainscope::analysis
