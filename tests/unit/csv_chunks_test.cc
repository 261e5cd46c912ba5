// Reading kernel_details.csv in chunks on several threads must give exactly
// what one reader reading the file front to back gives: rows, their order,
// strings, the ledger, its samples and their lines (formats/csv/csv_chunks.h).
#include "formats/csv/csv_chunks.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/parallel.h"
#include "core/row_ledger.h"
#include "formats/ascend/kernel_details_reader.h"
#include "model/device_events.h"

namespace trainscope::formats {
namespace {

TEST(CsvChunksTest, SplitsJustAfterLineBreaksAndCoversTheBody) {
  const std::string data = "h\naaaa\nbb\ncccccc\nd\neeeeeeee\nf";
  const std::vector<CsvChunk> chunks = SplitAtLineStarts(data, 2, 3);
  ASSERT_GE(chunks.size(), 3u);
  EXPECT_EQ(chunks.front().begin, 2u);
  EXPECT_EQ(chunks.back().end, data.size());
  EXPECT_TRUE(chunks.back().last);
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0) {
      EXPECT_EQ(chunks[i].begin, chunks[i - 1].end);
      EXPECT_EQ(data[chunks[i].begin - 1], '\n') << "chunk " << i << " starts mid-line";
    }
    EXPECT_EQ(chunks[i].last, i + 1 == chunks.size());
  }
}

TEST(CsvChunksTest, NoLineBreakMeansOneChunkAndSmallFilesAreOneChunk) {
  EXPECT_EQ(SplitAtLineStarts("a,b\r1,2\r3,4\r5,6\r", 0, 2).size(), 1u);  // CR-only line ends
  EXPECT_EQ(SplitAtLineStarts("h\n1\n2\n", 2, 1 << 20).size(), 1u);
  const std::vector<CsvChunk> empty = SplitAtLineStarts("h\n", 2, 4);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].begin, 2u);
  EXPECT_EQ(empty[0].end, 2u);
}

constexpr std::string_view kHeader =
    "Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),"
    "Block Dim,Input Shapes,Input Data Types,Output Shapes,Output Data Types\n";

// 240 rows of several shapes, with every kind of damage a row can carry,
// and (|multi_line|) a quoted name holding line breaks, so that some split
// points fall inside a quoted field.
std::string MixedKernelDetails(bool multi_line) {
  std::string out(kHeader);
  for (int i = 0; i < 240; ++i) {
    const int step = 3 + i / 80;
    const std::string name = fmt::format("aclnnOp{}_Kernel{}", i % 13, i % 5);
    const std::string start = fmt::format("{}.{:03d}\t", 1736405443881000 + (240 - i) * 7, i);
    switch (i % 17) {
      case 3:
        out += fmt::format("{},2,{},MatMulV3,AI_CORE,{},x12,0,24,\"\"\"8,16\"\"\",FLOAT16,,\n",
                           step, name, start);  // bad duration: skipped
        break;
      case 5:
        out += fmt::format("{},2,{},Add,AI_VECTOR_CORE,{},1.5\n", step, name, start);  // short
        break;
      case 7:
        out +=
            fmt::format("{},N/A,hcom_allReduce__{}_0_1,N/A,HCCL,{},80.25,3.5,0,N/A,N/A,N/A,N/A\n",
                        step, i, start);
        break;
      case 11:
        out += fmt::format("{},2,{},Cast,AI_VECTOR_CORE,{},2.0,abc,8,\"4,4\",BF16,\"4,4\",FLOAT\n",
                           step, name, start);  // bad wait: noted, row kept
        break;
      case 13:
        if (multi_line) {
          out += fmt::format("{},2,\"multi\nline\nname {}\",Foo,AI_CORE,{},3.0,0,1,,,,\n", step, i,
                             start);
          break;
        }
        [[fallthrough]];
      default:
        out += fmt::format(
            "{},{},{},Op{},AI_CORE,{},{}.{},0.5,{},\"\"\"{},{}\"\"\",FLOAT16,\"\"\"{}\"\"\",BF16\n",
            step, i % 3, name, i % 13, start, 1 + i % 9, i % 10, 8 + i % 4, i, 2 * i, i % 7);
    }
    if (i == 100) out += "\n\n";  // blank lines carry no record
  }
  return out;
}

std::string Describe(const model::RankProfile& profile) {
  std::string out;
  const model::DeviceEvents& k = profile.device_events;
  auto s = [&](StringId id) { return std::string(profile.strings.Get(id)); };
  for (size_t i = 0; i < k.size(); ++i) {
    out += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}\n", k.step[i], k.stream[i],
                       s(k.name[i]), s(k.op_type[i]), s(k.accelerator[i]), k.start_ns[i],
                       k.duration_ns[i], k.wait_ns[i], k.block_dim[i],
                       s(k.tensors_of(i).input_shapes), s(k.tensors_of(i).input_dtypes),
                       s(k.tensors_of(i).output_shapes), s(k.tensors_of(i).output_dtypes),
                       static_cast<int>(k.kind[i]), k.op_type_derived[i]);
  }
  for (size_t i = 0; i < k.size(); ++i) {
    out += fmt::format("op state {}", static_cast<int>(k.op_state[i]));
    if (k.has_pmu()) {
      out += fmt::format(" pmu {} {} {}", k.pmu().aic_mac_ratio[i], k.pmu().aic_mte2_ratio[i],
                         k.pmu().aiv_vec_ratio[i]);
    }
    out += "\n";
  }
  for (int32_t step : k.Steps()) {
    out += fmt::format("step {}: {} rows, extent {}-{}\n", step, k.RowsOf(step).size(),
                       k.ExtentOf(step)->first_start_ns, k.ExtentOf(step)->last_end_ns);
  }
  for (const RowLedger& ledger : profile.ledgers) {
    out += fmt::format("{}: read {} used {} skipped {}\n", ledger.file(), ledger.rows_read(),
                       ledger.rows_used(), ledger.rows_skipped());
    for (const auto& [reason, n] : ledger.skipped_by_reason())
      out += fmt::format("  skip {} {}\n", reason, n);
    for (const auto& [reason, n] : ledger.notes_by_reason())
      out += fmt::format("  note {} {}\n", reason, n);
    for (const RowIssueSample& sample : ledger.samples()) {
      out += fmt::format("  line {}: {}: {}\n", sample.line, sample.reason, sample.detail);
    }
  }
  out += "steps from: " + profile.steps_from + "\n";
  return out;
}

std::string ParseWith(std::string_view data, unsigned threads, size_t chunk_bytes) {
  model::RankProfile profile;
  KernelDetailsOptions options;
  options.threads = threads;
  options.chunk_bytes = chunk_bytes;
  const Status status = ParseKernelDetails(data, "kd.csv", &profile, options);
  EXPECT_TRUE(status.ok()) << status.message();
  // The CSV has no correlation, external id, collective or launcher: the
  // sparse columns keep none, whatever the chunks (and their threads) did.
  const model::DeviceEvents& events = profile.device_events;
  EXPECT_FALSE(events.correlation.stored() || events.external_id.stored() ||
               events.collective.stored() || events.launcher.stored());
  EXPECT_EQ(events.launcher.size(), events.size());
  return Describe(profile);
}

void ExpectChunkedEqualsWhole(std::string_view data) {
  const std::string whole = ParseWith(data, 1, size_t{1} << 30);
  for (size_t chunk_bytes : {1, 40, 97, 256, 1000, 4096}) {
    for (unsigned threads : {1u, 2u, 3u}) {
      EXPECT_EQ(ParseWith(data, threads, chunk_bytes), whole)
          << "chunks of " << chunk_bytes << " bytes on " << threads << " threads";
    }
  }
}

TEST(CsvChunksTest, ChunkedKernelDetailsEqualWholeFileRead) {
  const std::string data = MixedKernelDetails(false);
  const std::string whole = ParseWith(data, 1, size_t{1} << 30);
  // The fixture really has what it claims: skipped, noted and used rows,
  // samples with lines, rows out of time order.
  EXPECT_NE(whole.find("skip "), std::string::npos);
  EXPECT_NE(whole.find("note "), std::string::npos);
  EXPECT_NE(whole.find("line "), std::string::npos);
  ExpectChunkedEqualsWhole(data);
}

TEST(CsvChunksTest, SplitInsideAMultiLineFieldFallsBackToOneRead) {
  const std::string data = MixedKernelDetails(true);
  EXPECT_NE(ParseWith(data, 1, size_t{1} << 30).find("multi\nline\nname"), std::string::npos);
  ExpectChunkedEqualsWhole(data);
}

TEST(CsvChunksTest, StrayQuoteAndNulAndCrLfEqualWholeFileRead) {
  std::string data = MixedKernelDetails(false);
  // A quote that never closes in the middle of the file, a NUL byte, CRLF.
  const size_t middle = data.find('\n', data.size() / 2) + 1;
  data.insert(middle, "4,2,\"never closed,Add,AI_CORE,1736405443881000.5,1.0,0,1,,,,\n");
  constexpr char kNulRow[] = "4,2,nul\0here,Add,AI_CORE,1.0,1.0,0,1,,,,\n";
  data.insert(data.find('\n', data.size() / 3) + 1, std::string(kNulRow, sizeof(kNulRow) - 1));
  ASSERT_NE(data.find('\0'), std::string::npos);
  ExpectChunkedEqualsWhole(data);
  std::string crlf;
  for (char c : MixedKernelDetails(false)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  ExpectChunkedEqualsWhole(crlf);
}

// |data| with two more columns, a PMU ratio and the OP State, on every line
// (short rows stay short), so the PMU side table is filled chunk by chunk.
std::string WithPmuAndOpState(std::string_view data) {
  std::string out;
  size_t line = 0;
  for (size_t begin = 0; begin < data.size(); ++line) {
    size_t end = data.find('\n', begin);
    if (end == std::string_view::npos) end = data.size();
    out += data.substr(begin, end - begin);
    if (line == 0) {
      out += ",aic_mac_ratio,OP State";
    } else if (end > begin) {
      out += fmt::format(",0.{},{}", line % 10, line % 3 == 0 ? "dynamic" : "static");
    }
    out += '\n';
    begin = end + 1;
  }
  return out;
}

TEST(CsvChunksTest, PmuColumnsAndOpStateEqualWholeFileRead) {
  const std::string data = WithPmuAndOpState(MixedKernelDetails(false));
  const std::string whole = ParseWith(data, 1, size_t{1} << 30);
  EXPECT_NE(whole.find(" pmu 0.3 nan nan"), std::string::npos) << whole.substr(0, 400);
  EXPECT_NE(whole.find("op state 2"), std::string::npos);
  ExpectChunkedEqualsWhole(data);
}

// Records ended by a lone '\r' are records (as in Python's csv), so a file
// can hold more records than line feeds: the rows past a chunk's slot spill
// and join in file order.
TEST(CsvChunksTest, LoneCarriageReturnsReadAsLineFeedsDo) {
  const std::string lf = WithPmuAndOpState(MixedKernelDetails(false));
  std::string cr = lf;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  const std::string expected = ParseWith(lf, 1, size_t{1} << 30);
  EXPECT_EQ(ParseWith(cr, 1, size_t{1} << 30), expected);
  EXPECT_EQ(ParseWith(cr, 2, 97), expected);
  // Some records end in '\n', some in '\r': split points fall after the
  // '\n's, and the chunks hold more records than their line feeds.
  std::string mixed = lf;
  for (size_t i = 0, seen = 0; i < mixed.size(); ++i) {
    if (mixed[i] == '\n' && ++seen % 3 != 0) mixed[i] = '\r';
  }
  EXPECT_EQ(ParseWith(mixed, 1, size_t{1} << 30), expected);
  ExpectChunkedEqualsWhole(mixed);
  EXPECT_EQ(ParseWith(mixed, 2, 256), expected);
}

TEST(CsvChunksTest, ReleaseIsCalledForEveryChunkOnceAfterItsRead) {
  const std::string data = MixedKernelDetails(false);
  model::RankProfile profile;
  KernelDetailsOptions options;
  options.chunk_bytes = 512;
  std::vector<std::pair<size_t, size_t>> released;
  options.release = [&](size_t begin, size_t end) { released.emplace_back(begin, end); };
  ASSERT_TRUE(ParseKernelDetails(data, "kd.csv", &profile, options).ok());
  // First the whole body (the split touched a page at every cut), then one
  // pass (one thread: in file order) covering the body once, chunk by chunk.
  ASSERT_GT(released.size(), 3u);
  EXPECT_EQ(released.front(), std::make_pair(kHeader.size(), data.size()));
  EXPECT_EQ(released[1].first, kHeader.size());
  EXPECT_EQ(released.back().second, data.size());
  for (size_t i = 2; i < released.size(); ++i) {
    EXPECT_EQ(released[i].first, released[i - 1].second);
  }
}

// A file of a few MiB whose rows are long (|long_in_samples|) or short in
// the stretches the reader samples to size its table (16 stretches of
// 64 KiB spread evenly over the body, kernel_details_reader.cc) and the
// other way round elsewhere: the estimate of its rows is far too low (the
// slots past the table spill) or far too high (the table is cut down).
std::string SkewedKernelDetails(bool long_in_samples) {
  constexpr size_t kBody = size_t{4} << 20;
  constexpr size_t kSample = size_t{64} << 10;
  constexpr size_t kSlack = size_t{24} << 10;  // the body ends a row or so off kBody
  const size_t step = (kBody - kSample) / 15;
  auto in_sample = [&](size_t offset) {
    const size_t k = std::min<size_t>(15, (offset + kSlack) / step);
    const size_t window = k * step;
    return offset + kSlack >= window && offset < window + kSample + kSlack;
  };
  std::string out(kHeader);
  const std::string long_name(1500, 'n');
  for (int64_t i = 0; out.size() - kHeader.size() < kBody; ++i) {
    const bool long_row = in_sample(out.size() - kHeader.size()) == long_in_samples;
    out += fmt::format("3,2,{}{},Add,AI_CORE,{}.5,1.0,0,1,,,,\n", long_row ? long_name : "k", i,
                       1736405443881000 + i * 3);
  }
  return out;
}

TEST(CsvChunksTest, ATableSizedTooSmallOrTooBigStillHoldsEveryRowInFileOrder) {
  for (bool long_in_samples : {true, false}) {
    const std::string data = SkewedKernelDetails(long_in_samples);
    const std::string whole = ParseWith(data, 1, size_t{1} << 30);
    ASSERT_NE(whole.find("read "), std::string::npos);
    for (unsigned threads : {1u, 2u, 3u}) {
      EXPECT_EQ(ParseWith(data, threads, size_t{64} << 10), whole)
          << (long_in_samples ? "estimate too low" : "estimate too high") << ", " << threads
          << " threads";
    }
  }
}

TEST(RowLedgerAbsorbTest, AddsCountsAndShiftsSampleLinesKeepingTheFirstSamples) {
  RowLedger whole("f.csv");
  RowLedger first("f.csv");
  RowLedger second("f.csv");
  for (int line = 2; line < 6; ++line) {
    first.CountRead();
    first.Skip(RowIssue::kCsvWrongFieldCount, line, "short");
  }
  first.CountRead();
  first.Use();
  for (int line = 1; line < 4; ++line) {
    second.CountRead();
    second.Skip(RowIssue::kCsvWrongFieldCount, line, "short");
    second.Note(RowIssue::kUnparsableField, "Wait", line, "x");
  }
  whole.Absorb(first, 0);
  whole.Absorb(second, 10);
  EXPECT_EQ(whole.rows_read(), 8);
  EXPECT_EQ(whole.rows_used(), 1);
  EXPECT_EQ(whole.rows_skipped(), 7);
  EXPECT_TRUE(whole.Balanced());
  EXPECT_EQ(whole.skipped_by_reason().begin()->second, 7);
  ASSERT_EQ(whole.notes_by_reason().size(), 1u);
  EXPECT_EQ(whole.notes_by_reason().begin()->second, 3);
  std::vector<int64_t> lines;
  for (const RowIssueSample& sample : whole.samples()) lines.push_back(sample.line);
  // Three skips from the first part (lines 2-4), its fourth dropped, none
  // from the second; the second's notes at lines 11-13.
  EXPECT_EQ(lines, (std::vector<int64_t>{2, 3, 4, 11, 12, 13}));
}

TEST(DeviceEventsAppendColumnsTest, EqualsAppendingRowByRow) {
  model::DeviceEventColumns part;
  model::PmuColumns pmu;
  const int32_t steps[] = {2, 2, model::kNoStep, 3, 3, 2};
  for (int i = 0; i < 6; ++i) {
    model::DeviceEvent row;
    row.step = steps[i];
    row.start_ns = 100 * (6 - i);
    row.duration_ns = 10 + i;
    part.Append(row);
    model::PmuMetrics metrics;
    metrics.aic_mac_ratio = 0.1F * static_cast<float>(i);
    pmu.Append(metrics);
  }
  model::DeviceEvents by_rows;
  model::DeviceEvents by_columns;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass appends after existing rows
    for (size_t i = 0; i < part.size(); ++i) by_rows.Append(part.Row(i), pmu.Row(i));
    by_columns.AppendColumns(part, &pmu);
  }
  ASSERT_EQ(by_columns.size(), 12u);
  EXPECT_EQ(by_columns.start_ns, by_rows.start_ns);
  EXPECT_EQ(by_columns.step, by_rows.step);
  EXPECT_EQ(by_columns.pmu().aic_mac_ratio, by_rows.pmu().aic_mac_ratio);
  for (int32_t step : {model::kNoStep, 2, 3}) {
    const auto a = by_columns.RowsOf(step);
    const auto b = by_rows.RowsOf(step);
    EXPECT_EQ(std::vector<uint32_t>(a.begin(), a.end()), std::vector<uint32_t>(b.begin(), b.end()));
    EXPECT_EQ(by_columns.ExtentOf(step)->first_start_ns, by_rows.ExtentOf(step)->first_start_ns);
    EXPECT_EQ(by_columns.ExtentOf(step)->last_end_ns, by_rows.ExtentOf(step)->last_end_ns);
    EXPECT_EQ(by_columns.ExtentOf(step)->events, by_rows.ExtentOf(step)->events);
  }
  EXPECT_EQ(by_columns.Steps(), (std::vector<int32_t>{2, 3}));
  // Rows without PMU metrics after rows with them get NaN, as Append does.
  by_columns.AppendColumns(part, nullptr);
  EXPECT_EQ(by_columns.pmu().size(), 18u);
}

// The sparse columns (correlation, external id, collective, launcher) are
// appended a part at a time as row by row: a part that stores none adds
// absent rows, a part that stores some stores the whole column from then on.
TEST(DeviceEventsAppendColumnsTest, SparseColumnsStoreOnlyOnceAPartHasAValue) {
  model::DeviceEventColumns bare;
  model::DeviceEventColumns linked;
  for (int i = 0; i < 4; ++i) {
    model::DeviceEvent row;
    row.start_ns = 10 * i;
    bare.Append(row);
    row.correlation = 100 + i;
    row.launcher = i == 2 ? 7 : model::kNoIndex;
    linked.Append(row);
  }
  EXPECT_FALSE(bare.correlation.stored());
  EXPECT_FALSE(linked.collective.stored());
  model::DeviceEvents by_columns;
  model::DeviceEvents by_rows;
  for (const model::DeviceEventColumns* part : {&bare, &bare, &linked, &bare}) {
    by_columns.AppendColumns(*part, nullptr);
    for (size_t i = 0; i < part->size(); ++i) by_rows.Append(part->Row(i));
  }
  ASSERT_EQ(by_columns.size(), 16u);
  EXPECT_TRUE(by_columns.correlation.stored());
  EXPECT_TRUE(by_columns.launcher.stored());
  EXPECT_FALSE(by_columns.collective.stored());
  EXPECT_FALSE(by_columns.external_id.stored());
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(by_columns.correlation[i], by_rows.correlation[i]) << i;
    EXPECT_EQ(by_columns.launcher[i], by_rows.launcher[i]) << i;
    EXPECT_EQ(by_columns.correlation[i],
              i >= 8 && i < 12 ? 100 + static_cast<int64_t>(i) - 8 : model::kNoId)
        << i;
  }
  EXPECT_EQ(by_columns.launcher[10], 7);
  EXPECT_EQ(by_columns.launcher.values().size(), 16u);
}

// Every row (RowsOf(kNoStep), the table's range) is the same from any
// thread and follows the table through appends, truncation, copies and
// moves.
TEST(DeviceEventsAppendColumnsTest, EveryRowIsMadeWhenAskedAndFollowsTheTable) {
  auto identity = [](size_t n) {
    std::vector<uint32_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = static_cast<uint32_t>(i);
    return rows;
  };
  auto all = [](const model::DeviceEvents& events) {
    const auto rows = events.RowsOf(model::kNoStep);
    return std::vector<uint32_t>(rows.begin(), rows.end());
  };
  model::DeviceEvents events;
  EXPECT_TRUE(all(events).empty());
  for (int i = 0; i < 5; ++i) {
    model::DeviceEvent row;
    row.step = i % 2;
    row.start_ns = 10 * (5 - i);
    events.Append(row);
  }
  std::vector<std::vector<uint32_t>> seen(8);
  ParallelFor(seen.size(), 4, [&](size_t k) { seen[k] = all(events); });
  for (const auto& rows : seen) EXPECT_EQ(rows, identity(5));
  events.SortByStart();
  EXPECT_EQ(all(events), identity(5));
  model::DeviceEvents copy = events;
  model::DeviceEvent more;
  copy.Append(more);
  EXPECT_EQ(all(copy), identity(6));
  EXPECT_EQ(all(events), identity(5));
  copy.Truncate(2);
  EXPECT_EQ(all(copy), identity(2));
  const model::DeviceEvents moved = std::move(copy);
  EXPECT_EQ(all(moved), identity(2));
  EXPECT_EQ(events.ExtentOf(model::kNoStep)->events, 5);
}

}  // namespace
}  // namespace trainscope::formats
