// Two reads of one communication.json (whole and step by step) give the same
// ops and notes: shared by the piecewise unit test and its corpus twin.
#pragma once

#include <gtest/gtest.h>

#include "model/rank_profile.h"

namespace trainscope::testing {

inline void ExpectSameCommunication(const model::CommunicationData& whole,
                                    const model::CommunicationData& pieces) {
  ASSERT_EQ(whole.ops.size(), pieces.ops.size());
  for (size_t i = 0; i < whole.ops.size(); ++i) {
    EXPECT_EQ(whole.ops[i].name, pieces.ops[i].name) << i;
    EXPECT_EQ(whole.ops[i].step, pieces.ops[i].step) << i;
    EXPECT_EQ(whole.ops[i].start_us, pieces.ops[i].start_us) << i;
    EXPECT_EQ(whole.ops[i].elapse_ms, pieces.ops[i].elapse_ms) << i;
    EXPECT_EQ(whole.ops[i].bandwidth.size(), pieces.ops[i].bandwidth.size()) << i;
  }
  EXPECT_EQ(whole.notes, pieces.notes);
}

}  // namespace trainscope::testing
