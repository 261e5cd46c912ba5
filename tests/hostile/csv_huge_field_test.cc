// Class 5: a field over the 16 MiB record limit (a 20 MB name, a quote that
// never closes) costs its row; the rows after it are read.
#include <gtest/gtest.h>

#include <string>

#include "formats/ascend/kernel_details_reader.h"
#include "formats/csv/csv_reader.h"
#include "hostile/csv_util.h"
#include "hostile/hostile_util.h"
#include "model/rank_profile.h"

namespace trainscope::testing {
namespace {

constexpr size_t kTwentyMb = 20u << 20;

TEST(HostileCsvHugeField, TwentyMegabyteNameCostsOnlyItsRow) {
  const std::string data = std::string(kKernelDetailsHeader) + KernelRows(0, 2) + "1," +
                           std::string(kTwentyMb, 'n') +
                           ",MatMulV3,AI_CORE,1764246877000060.000\t,12.5,0,8\n" + KernelRows(3, 2);
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseKernelDetails(data, "kd.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 5);
  EXPECT_EQ(ledger.rows_used(), 4);
  EXPECT_EQ(ledger.skipped_by_reason().at("record over the size limit"), 1);
  ASSERT_EQ(ledger.samples().size(), 1u);
  EXPECT_EQ(ledger.samples()[0].line, 4);
  EXPECT_NE(ledger.samples()[0].detail.find("longer than 16777216 bytes"), std::string::npos);
  ASSERT_EQ(profile.device_events.size(), 4u);
  EXPECT_EQ(profile.strings.Get(profile.device_events.name[2]), "kernel_3");
}

TEST(HostileCsvHugeField, UnterminatedQuoteRunningToTheEndIsDroppedAndTheRestRead) {
  // RFC 4180 reads everything after the stray quote as one field; past the
  // limit the row is skipped and reading resumes at the next line.
  const int after = 300000;  // ~21 MB of good rows behind the quote
  const std::string data = std::string(kKernelDetailsHeader) + KernelRows(0, 2) +
                           "1,\"never closed,MatMulV3,AI_CORE,1764246877000060.000,12.5,0,8\n" +
                           KernelRows(3, after);
  ASSERT_GT(data.size(), formats::CsvReader::kDefaultMaxRecordBytes);
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseKernelDetails(data, "kd.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_used(), 2 + after);
  EXPECT_EQ(ledger.rows_skipped(), 1);
  EXPECT_EQ(ledger.rows_read(), ledger.rows_used() + ledger.rows_skipped());
  EXPECT_EQ(ledger.skipped_by_reason().at("record over the size limit"), 1);
  ASSERT_EQ(ledger.samples().size(), 1u);
  EXPECT_EQ(ledger.samples()[0].line, 4);
  EXPECT_NE(ledger.samples()[0].detail.find("column 3 (byte 207)"), std::string::npos)
      << ledger.samples()[0].detail;
  EXPECT_EQ(profile.strings.Get(profile.device_events.name.back()),
            "kernel_" + std::to_string(3 + after - 1));
}

TEST(HostileCsvHugeField, UnterminatedQuoteInASmallFileCostsOneRow) {
  const std::string data = std::string(kKernelDetailsHeader) + KernelRows(0, 2) +
                           "1,\"never closed,MatMulV3,AI_CORE,1764246877000060.000,12.5,0,8\n" +
                           KernelRows(3, 2);
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseKernelDetails(data, "kd.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 5);
  EXPECT_EQ(ledger.rows_used(), 4);
  EXPECT_EQ(ledger.skipped_by_reason().at("unterminated quoted field"), 1);
  EXPECT_EQ(ledger.samples()[0].line, 4);
}

TEST(HostileCsvHugeField, LimitIsOverridableFromTheEnvironment) {
  // A 10 KB name is fine by default and over a 4 KB limit.
  const std::string data = std::string(kKernelDetailsHeader) + KernelRows(0, 2) +
                           DeviceEvent(2, std::string(10000, 'n')) + KernelRows(3, 2);
  const std::string job = WriteAscendJob("limit_env", data);
  const CommandResult plain = RunShell(job, "$TRAINSCOPE analyze .");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("5 used + 0 skipped"), std::string::npos) << plain.out;
  const CommandResult limited =
      RunShell(job, "TRAINSCOPE_CSV_MAX_RECORD_BYTES=4096 $TRAINSCOPE analyze .");
  EXPECT_EQ(limited.exit_code, 0) << limited.err;
  EXPECT_NE(limited.out.find("4 used + 1 skipped"), std::string::npos) << limited.out;
  EXPECT_NE(limited.out.find("1 rows skipped: record over the size limit"), std::string::npos);
  EXPECT_NE(limited.out.find("record limit of 4096 bytes"), std::string::npos) << limited.out;
}

TEST(HostileCsvHugeField, HugeUnparsableValueIsQuotedShortInTheLedger) {
  // A 1 MB start time (under the record limit): the row is skipped and its
  // sample quotes 120 bytes and the length, not the megabyte.
  const std::string data = std::string(kKernelDetailsHeader) + KernelRows(0, 1) +
                           "1,k,MatMulV3,AI_CORE," + std::string(1 << 20, '7') + "x,12.5,0,8\n";
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseKernelDetails(data, "kd.csv", &profile).ok());
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.skipped_by_reason().at("unparsable start time"), 1);
  ASSERT_EQ(ledger.samples().size(), 1u);
  EXPECT_EQ(ledger.samples()[0].detail, std::string(120, '7') + "... (1048577 bytes)");
}

}  // namespace
}  // namespace trainscope::testing
