// Class 5: one NUL byte in a kernel_details.csv field costs its row, not the
// rest of the file.
#include <gtest/gtest.h>

#include <string>

#include "formats/ascend/kernel_details_reader.h"
#include "hostile/csv_util.h"
#include "hostile/hostile_util.h"
#include "model/rank_profile.h"

namespace trainscope::testing {
namespace {

std::string NulFile() {
  return std::string(kKernelDetailsHeader) + KernelRows(0, 2) +
         DeviceEvent(2, std::string("bad\0name", 8)) + KernelRows(3, 2);
}

TEST(HostileCsvNulByte, RowSkippedWithReasonAndTheRestRead) {
  model::RankProfile profile;
  ASSERT_TRUE(formats::ParseKernelDetails(NulFile(), "kd.csv", &profile).ok());
  ASSERT_EQ(profile.ledgers.size(), 1u);
  const RowLedger& ledger = profile.ledgers[0];
  EXPECT_EQ(ledger.rows_read(), 5);
  EXPECT_EQ(ledger.rows_used(), 4);
  EXPECT_EQ(ledger.rows_skipped(), 1);
  EXPECT_EQ(ledger.skipped_by_reason().at("NUL byte in the record"), 1);
  ASSERT_EQ(ledger.samples().size(), 1u);
  EXPECT_EQ(ledger.samples()[0].line, 4);
  EXPECT_NE(ledger.samples()[0].detail.find("column 7 (byte 211)"), std::string::npos)
      << ledger.samples()[0].detail;
  ASSERT_EQ(profile.device_events.size(), 4u);
  EXPECT_EQ(profile.strings.Get(profile.device_events.name[3]), "kernel_4");
  EXPECT_TRUE(profile.warnings.empty());
}

TEST(HostileCsvNulByte, CliReportsTheRowAndAnalysesTheRest) {
  const std::string job = WriteAscendJob("nul_cli", NulFile());
  const TreeSnapshot before = SnapshotTree(job);
  const CommandResult r = RunTrainscopeIn(job, {"analyze", job});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 rows skipped: NUL byte in the record"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4 used + 1 skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("line 4: NUL byte in the record"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\0'), std::string::npos);
  EXPECT_EQ(DiffTrees(before, SnapshotTree(job)), "");
}

}  // namespace
}  // namespace trainscope::testing
