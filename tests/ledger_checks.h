// The row accounting every reader keeps (rows read = used + skipped), as
// the tests of readers check it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "model/rank_profile.h"

namespace trainscope::testing {

// Every ledger of |profile| adds up, and its skips add up to their reasons.
inline void ExpectLedgersAddUp(const model::RankProfile& profile) {
  for (const RowLedger& ledger : profile.ledgers) {
    int64_t skipped = 0;
    for (const auto& [reason, count] : ledger.skipped_by_reason()) skipped += count;
    EXPECT_EQ(ledger.rows_read(), ledger.rows_used() + ledger.rows_skipped()) << ledger.file();
    EXPECT_EQ(ledger.rows_skipped(), skipped) << ledger.file();
  }
}

// The ledger of the file named |file_name| (no directory), or nullptr.
inline const RowLedger* LedgerFor(const model::RankProfile& profile, const std::string& file_name) {
  for (const RowLedger& ledger : profile.ledgers) {
    if (std::filesystem::path(ledger.file()).filename() == file_name) return &ledger;
  }
  return nullptr;
}

}  // namespace trainscope::testing
