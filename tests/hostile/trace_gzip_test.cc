// Classes 2 and 5 for .json.gz: a gzip bomb (one 300 MB string, gigabytes of
// spaces) is read in bounded memory, the oversized event skipped and counted
// and the events around it kept; a concatenated stream (`cat a.gz b.gz`,
// pigz) is read whole; a damaged stream that must be read whole is held only
// up to the inflation limit, and the message says so.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "allocation/sanitizer_allocator.h"
#include "formats/trace/chrome_json.h"
#include "formats/trace/kineto_reader.h"
#include "hostile/hostile_util.h"
#include "hostile/trace_fixture_util.h"
#include "model/rank_profile.h"
#include "test_paths.h"

namespace trainscope {
namespace {

using formats::trace::ScanOptions;
using testing::GzipPiece;
using testing::Kernel;

std::vector<std::string> Kernels(const std::string& prefix, int n, int64_t ts) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(Kernel(prefix + std::to_string(i), ts + i));
  return out;
}

// {"traceEvents": [before..., {"ph": "X", ..., "name": "AAA...<size>", ...}, after...]}
std::vector<GzipPiece> HugeStringTrace(size_t string_bytes, int before, int after) {
  std::string head = "{\"traceEvents\": [\n";
  for (const std::string& k : Kernels("before", before, 10)) head += k + ",\n";
  head += R"({"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": 500, "dur": 1, "name": ")";
  std::string tail = "\"}";
  for (const std::string& k : Kernels("after", after, 1000)) tail += ",\n" + k;
  tail += "\n]}\n";
  const std::string block(1 << 20, 'A');
  return {{head}, {block, string_bytes >> 20}, {tail}};
}

ScanOptions Limits(size_t max_event, size_t max_inflated, size_t chunk = size_t{4} << 20) {
  ScanOptions o;
  o.chunk_bytes = chunk;
  o.max_event_bytes = max_event;
  o.max_inflated_bytes = max_inflated;
  return o;
}

void ExpectSkippedOne(const model::RankProfile& p, int kept, const char* reason) {
  ASSERT_EQ(p.ledgers.size(), 1u);
  const RowLedger& l = p.ledgers[0];
  EXPECT_EQ(l.rows_read(), kept + 1);
  EXPECT_EQ(l.rows_used(), kept);
  ASSERT_EQ(l.skipped_by_reason().count(reason), 1u);
  EXPECT_EQ(l.skipped_by_reason().at(reason), 1);
  EXPECT_EQ(p.device_events.size(), static_cast<size_t>(kept));
}

TEST(HostileTraceGzip, EventOverTheSizeLimitIsSkippedAndTheRestRead) {
  const std::string dir = testing::MakeTempDir("trace_gzip_long_event");
  const std::string gz = dir + "/long.json.gz";
  ASSERT_TRUE(testing::WriteGzip(gz, HugeStringTrace(size_t{8} << 20, 5, 7)));
  for (size_t chunk : {size_t{64}, size_t{4096}, size_t{4} << 20}) {
    for (unsigned threads : {1u, 2u}) {
      ScanOptions options = Limits(size_t{1} << 20, size_t{4} << 20, chunk);
      options.threads = threads;
      model::RankProfile p;
      ASSERT_TRUE(formats::ReadKinetoTrace(gz, &p, options).ok());
      ExpectSkippedOne(p, 12, "event over the size limit");
      EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
    }
  }
  // The same document uncompressed: the mapped-file scan skips it too.
  const std::string plain = dir + "/long.json";
  {
    std::string text;
    for (const GzipPiece& piece : HugeStringTrace(size_t{8} << 20, 5, 7)) {
      for (size_t r = 0; r < piece.repeat; ++r) text += piece.text;
    }
    ASSERT_TRUE(testing::WriteBytes(plain, text));
    model::RankProfile from_text;
    ASSERT_TRUE(formats::ParseKinetoTrace(text, "long.json", &from_text,
                                          Limits(size_t{1} << 20, size_t{4} << 20))
                    .ok());
    ExpectSkippedOne(from_text, 12, "event over the size limit");
  }
  model::RankProfile p;
  ASSERT_TRUE(formats::ReadKinetoTrace(plain, &p, Limits(size_t{1} << 20, size_t{4} << 20)).ok());
  ExpectSkippedOne(p, 12, "event over the size limit");
}

TEST(HostileTraceGzip, StreamEndingInsideALongEventKeepsWhatCameBefore) {
  const std::string dir = testing::MakeTempDir("trace_gzip_cut_long");
  const std::string gz = dir + "/cut.json.gz";
  std::vector<GzipPiece> pieces = HugeStringTrace(size_t{4} << 20, 6, 0);
  pieces.pop_back();  // the stream ends inside the string
  ASSERT_TRUE(testing::WriteGzip(gz, pieces));
  model::RankProfile p;
  ASSERT_TRUE(
      formats::ReadKinetoTrace(gz, &p, Limits(size_t{1} << 20, size_t{2} << 20, 4096)).ok());
  EXPECT_EQ(p.device_events.size(), 6u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("truncated mid-event"), std::string::npos) << p.warnings[0];
}

TEST(HostileTraceGzip, SpacesBetweenEventsAreDroppedAsTheyCome) {
  const std::string dir = testing::MakeTempDir("trace_gzip_spaces");
  const std::string gz = dir + "/spaces.json.gz";
  const std::string block(1 << 20, ' ');
  std::string head = "{\"traceEvents\": [" + Kernel("k0", 1) + ",\n" + Kernel("k1", 2) + ",";
  ASSERT_TRUE(testing::WriteGzip(gz, {{head},
                                      {block, 64},
                                      {Kernel("k2", 3) + "  "},
                                      {block, 16},
                                      {", " + Kernel("k3", 4) + "]}"}}));
  for (size_t chunk : {size_t{100}, size_t{1} << 20}) {
    model::RankProfile p;
    ASSERT_TRUE(
        formats::ReadKinetoTrace(gz, &p, Limits(size_t{1} << 20, size_t{2} << 20, chunk)).ok());
    EXPECT_EQ(p.device_events.size(), 4u) << chunk;
    EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
    EXPECT_EQ(p.ledgers.at(0).rows_read(), 4);
  }
}

// Events whose first key the cut finder does not know give no cut: the
// buffer fills to the event limit and the complete events in it go as one
// chunk (not one event per refill, which was quadratic).
TEST(HostileTraceGzip, EventsWithoutCutsAreReadInBoundedMemory) {
  const std::string dir = testing::MakeTempDir("trace_gzip_no_cuts");
  std::vector<std::string> events;
  for (int i = 0; i < 3000; ++i) {
    events.push_back(fmt::format(
        R"({{"tts": {}, "ph": "X", "cat": "kernel", "name": "k{}", "pid": 0, "tid": 7, "ts": {}, "dur": 1}})",
        i, i, 10 + i));
  }
  const std::string gz = dir + "/no_cuts.json.gz";
  ASSERT_TRUE(testing::WriteGzip(gz, {{testing::TraceOf(events)}}));
  for (unsigned threads : {1u, 2u}) {
    ScanOptions options = Limits(4096, size_t{1} << 20, 512);
    options.threads = threads;
    model::RankProfile p;
    ASSERT_TRUE(formats::ReadKinetoTrace(gz, &p, options).ok());
    EXPECT_EQ(p.device_events.size(), 3000u);
    EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
  }
}

TEST(HostileTraceGzip, DamagedStreamIsHeldOnlyUpToTheInflationLimit) {
  const std::string dir = testing::MakeTempDir("trace_gzip_cap");
  // Metadata longer than an event before the array: the streaming scan
  // cannot hold it, the whole-document fallback holds 2 MiB of it.
  const std::string gz = dir + "/meta.json.gz";
  ASSERT_TRUE(testing::WriteGzip(gz, {{"{\"note\": \""},
                                      {std::string(1 << 20, 'B'), 8},
                                      {"\", \"traceEvents\": [" + Kernel("k", 1) + "]}"}}));
  model::RankProfile p;
  Status s = formats::ReadKinetoTrace(gz, &p, Limits(size_t{1} << 20, size_t{2} << 20));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no valid trace event in the first 2097152 inflated bytes"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("TRAINSCOPE_MAX_INFLATED_BYTES"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("hint:"), std::string::npos) << s.message();

  bool capped = false;
  auto text = formats::trace::LoadJsonFile(gz, size_t{2} << 20, &capped);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(capped);
  EXPECT_EQ(text->size(), size_t{2} << 20);
}

TEST(HostileTraceGzip, ConcatenatedMembersAreAllRead) {
  const std::string dir = testing::MakeTempDir("trace_gzip_members");
  std::vector<std::string> events = Kernels("k", 40, 10);
  const std::string doc = testing::TraceOf(events);
  // Cut mid-event, as pigz cuts its blocks: the text continues in member two.
  const size_t cut = doc.size() / 2 + 7;
  const std::string gz = dir + "/two.json.gz";
  ASSERT_TRUE(testing::WriteGzipMembers(gz, {{{doc.substr(0, cut)}}, {{doc.substr(cut)}}}));
  for (ScanOptions options : {ScanOptions{}, ScanOptions{64, 2}, ScanOptions{1, 1}}) {
    model::RankProfile p;
    ASSERT_TRUE(formats::ReadKinetoTrace(gz, &p, options).ok());
    EXPECT_EQ(p.device_events.size(), 40u) << options.chunk_bytes;
    EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
  }
  auto text = formats::trace::LoadJsonFile(gz);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(std::string_view(text->data(), text->size()), doc);

  // Damaged (a missing comma) so that the whole-document fallback reads it:
  // the second member is read there too.
  std::string damaged = doc;
  damaged.replace(damaged.rfind(",\n"), 2, "\n");
  const std::string gz2 = dir + "/two_damaged.json.gz";
  ASSERT_TRUE(
      testing::WriteGzipMembers(gz2, {{{damaged.substr(0, cut)}}, {{damaged.substr(cut)}}}));
  model::RankProfile p;
  ASSERT_TRUE(formats::ReadKinetoTrace(gz2, &p).ok());
  EXPECT_EQ(p.device_events.size(), 39u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("expected ',' or ']' after an event"), std::string::npos)
      << p.warnings[0];
}

// Through the CLI with the default limits, peak RSS measured: the issue's
// bound is 2x the largest input + 256 MB.
int64_t PeakKb(const std::string& err) {
  const size_t at = err.rfind("peak_kb=");
  return at == std::string::npos ? -1 : std::stoll(err.substr(at + 8));
}

TEST(HostileTraceGzip, BombsThroughTheCliStayBounded) {
  // The bound is on the release binary's allocator. Under a sanitizer's
  // (quarantine, shadow memory) RSS is the sanitizer's, and inflating 2.3 GB
  // there took 43 s of CI's time a stage; the tests above run the same
  // bounded reads under the sanitizers with small limits.
  if (testing::SanitizerAllocator()) GTEST_SKIP() << "sanitizer build: its allocator decides RSS";
  const std::string dir = testing::MakeTempDir("trace_gzip_bomb");
  // 300 MB of 'A' in one name (~300 KB compressed).
  ASSERT_TRUE(
      testing::WriteGzip(dir + "/string.json.gz", HugeStringTrace(size_t{300} << 20, 3, 4)));
  // 2 GB of spaces between two events (~2 MB compressed).
  const std::string block(1 << 20, ' ');
  ASSERT_TRUE(testing::WriteGzip(
      dir + "/spaces.json.gz",
      {{"{\"traceEvents\": [" + Kernel("k0", 1) + ","}, {block, 2048}, {Kernel("k1", 2) + "]}"}}));
  const testing::TreeSnapshot before = testing::SnapshotTree(dir);
  // What the process costs before it reads anything (`--version`): a few MB
  // in a release build, ~200 MB under ASan (shadow memory and allocator,
  // growing with the binary). The bound is on what the input adds to it.
  const testing::CommandResult idle =
      testing::RunShell(dir, "/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" --version");
  const int64_t baseline_kb = PeakKb(idle.err);
  ASSERT_GT(baseline_kb, 0) << idle.err;
  for (const char* name : {"string.json.gz", "spaces.json.gz"}) {
    const testing::CommandResult r = testing::RunShell(
        dir,
        fmt::format("/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" analyze {} --json out_{}.json",
                    name, name));
    SCOPED_TRACE(name);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
    const int64_t peak_kb = PeakKb(r.err);
    const int64_t input_kb =
        static_cast<int64_t>(testing::ReadFileBytes(dir + "/" + name).size() / 1024);
    EXPECT_GT(peak_kb, 0) << r.err;
    EXPECT_LE(peak_kb - baseline_kb, 2 * input_kb + 256 * 1024)
        << "peak RSS " << peak_kb << " kB, of which " << baseline_kb << " kB before any input";
    std::printf("[ RSS      ] %s: input %lld kB, peak RSS %lld kB (%lld kB before any input)\n",
                name, static_cast<long long>(input_kb), static_cast<long long>(peak_kb),
                static_cast<long long>(baseline_kb));
  }
  const std::string json = testing::ReadFileBytes(dir + "/out_string.json.gz.json");
  EXPECT_NE(json.find("event over the size limit"), std::string::npos);
  // Nothing but the two reports was written.
  testing::TreeSnapshot after = testing::SnapshotTree(dir);
  after.erase("out_string.json.gz.json");
  after.erase("out_spaces.json.gz.json");
  after.erase("");  // the directory's own mtime changed with them
  testing::TreeSnapshot before_files = before;
  before_files.erase("");
  EXPECT_EQ(testing::DiffTrees(before_files, after), "");
}

// `trainscope health` on gzip logs: what a log costs is what the judge
// needs of its training records (records stored by column, a metric's
// values for its medians; docs/hostile-input.md), never its bytes: lines
// are streamed, the gzip stream inflated piece by piece, lines that are not
// training lines counted and dropped.
// Bytes of peak RSS a training record may cost, everything included (the
// record's columns, the metric's values, the analysis' sorted copy of
// them); a record kept whole took 112 and the peak about 135.
constexpr int64_t kBytesPerRecord = 24;
constexpr int64_t kFixedKb = 32 * 1024;
constexpr int64_t kChatterFixedKb = 64 * 1024;

TEST(HostileHealthMemory, RecordsNotBytesDecideThePeak) {
  if (testing::SanitizerAllocator()) GTEST_SKIP() << "sanitizer build: its allocator decides RSS";
  const std::string dir = testing::MakeTempDir("health_memory");
  // 2 M training lines of 14 bytes (28 MB inflated, a few hundred KB of gzip).
  constexpr int64_t kRecords = 2'000'000;
  std::string block;
  for (int i = 0; i < 1000; ++i) block += "{\"loss\": 2.5}\n";
  ASSERT_TRUE(testing::WriteGzip(dir + "/records.log.gz", {{block, kRecords / 1000}}));
  // 256 MB of lines that are not training lines (a chatty launcher).
  std::string chatter;
  while (chatter.size() < (size_t{1} << 20)) chatter += "INFO loading shard 00017 of 00032\n";
  ASSERT_TRUE(
      testing::WriteGzip(dir + "/chatter.log.gz", {{chatter, 256}, {"{\"loss\": 2.5}\n", 3}}));
  const testing::CommandResult idle =
      testing::RunShell(dir, "/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" --version");
  const int64_t baseline_kb = PeakKb(idle.err);
  ASSERT_GT(baseline_kb, 0) << idle.err;
  struct Case {
    const char* name;
    int64_t records;
  };
  for (const Case& c : {Case{"records.log.gz", kRecords}, Case{"chatter.log.gz", 3}}) {
    SCOPED_TRACE(c.name);
    const testing::CommandResult r = testing::RunShell(
        dir, fmt::format("/usr/bin/time -f peak_kb=%M \"$TRAINSCOPE\" health {} --json out.json",
                         c.name));
    EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
    const std::string json = testing::ReadFileBytes(dir + "/out.json");
    EXPECT_NE(json.find(fmt::format("\"records\": {}", c.records)), std::string::npos)
        << json.substr(0, 400);
    const int64_t peak_kb = PeakKb(r.err);
    EXPECT_GT(peak_kb, 0) << r.err;
    const int64_t fixed_kb = c.records > 3 ? kFixedKb : kChatterFixedKb;
    EXPECT_LE(peak_kb - baseline_kb, c.records * kBytesPerRecord / 1024 + fixed_kb)
        << "peak RSS " << peak_kb << " kB, of which " << baseline_kb << " kB before any input";
    std::printf("[ RSS      ] health %s: %lld record(s), peak RSS %lld kB (%lld kB before)\n",
                c.name, static_cast<long long>(c.records), static_cast<long long>(peak_kb),
                static_cast<long long>(baseline_kb));
  }
}

}  // namespace
}  // namespace trainscope
