// RowSet (model/row_set.h) and the device table's rows of a step: a range
// while a step's rows are one run of the table, a list once another step's
// row breaks the run, and in both cases the rows a scan of the step column
// finds.
#include "model/row_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/device_events.h"
#include "random_draws.h"

namespace trainscope::model {
namespace {

std::vector<uint32_t> Listed(const RowSet& rows) { return {rows.begin(), rows.end()}; }

TEST(RowSet, ARangeAndAListReadAlike) {
  const RowSet range = RowSet::Range(3, 4);
  const std::vector<uint32_t> list{3, 4, 5, 6};
  const RowSet listed(list);
  EXPECT_TRUE(range.is_range());
  EXPECT_FALSE(listed.is_range());
  for (const RowSet& rows : {range, listed}) {
    EXPECT_EQ(Listed(rows), list);
    EXPECT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[2], 5u);
    EXPECT_EQ(rows.front(), 3u);
    EXPECT_EQ(rows.back(), 6u);
    EXPECT_EQ(*std::lower_bound(rows.begin(), rows.end(), 5u), 5u);
    EXPECT_EQ(rows.end() - rows.begin(), 4);
  }
  EXPECT_TRUE(RowSet().empty());
  EXPECT_EQ(Listed(RowSet()), std::vector<uint32_t>{});
}

TEST(RowSet, AStepIsARangeUntilAnotherStepBreaksItsRun) {
  DeviceEvents events;
  for (const int32_t step : {1, 1, 2, 2, 1, kNoStep}) {
    DeviceEvent row;
    row.step = step;
    events.Append(row);
  }
  EXPECT_FALSE(events.RowsOf(1).is_range());
  EXPECT_EQ(Listed(events.RowsOf(1)), (std::vector<uint32_t>{0, 1, 4}));
  EXPECT_TRUE(events.RowsOf(2).is_range());
  EXPECT_EQ(Listed(events.RowsOf(2)), (std::vector<uint32_t>{2, 3}));
  EXPECT_TRUE(events.RowsOf(kNoStep).is_range());
  EXPECT_EQ(events.RowsOf(kNoStep).size(), 6u);
  EXPECT_TRUE(events.RowsOf(3).empty());
  EXPECT_EQ(events.Steps(), (std::vector<int32_t>{1, 2}));
}

TEST(RowSet, AStepsRowsAreTheRowsOfItsNumberOnRandomTables) {
  testing::RandomDraws draw(7);
  for (int trial = 0; trial < 100; ++trial) {
    DeviceEvents events;
    std::vector<int32_t> steps;
    // Runs of steps, mostly ascending, some going back (a step's rows
    // interleaved with another's) and rows outside every step.
    int32_t step = 0;
    const int runs = draw(12);
    for (int r = 0; r < runs; ++r) {
      const int32_t roll = draw(6);
      step = roll == 0 ? kNoStep : roll == 1 ? static_cast<int32_t>(draw(4)) : step + roll % 2;
      const int length = 1 + draw(5);
      for (int k = 0; k < length; ++k) steps.push_back(step);
    }
    // Half the tables row by row, half as columns (the readers' two ways).
    DeviceEventColumns columns;
    for (const int32_t s : steps) {
      DeviceEvent row;
      row.step = s;
      if (trial % 2 == 0) {
        events.Append(row);
      } else {
        columns.Append(row);
      }
    }
    if (trial % 2 == 1) events = DeviceEvents(std::move(columns));
    for (int32_t s = 0; s < 8; ++s) {  // (kNoStep asks for every row)
      std::vector<uint32_t> expected;
      for (size_t i = 0; i < steps.size(); ++i) {
        if (steps[i] == s) expected.push_back(static_cast<uint32_t>(i));
      }
      EXPECT_EQ(Listed(events.RowsOf(s)), expected) << "trial " << trial << " step " << s;
    }
    EXPECT_EQ(events.RowsOf(kNoStep).size(), steps.size());
  }
}

}  // namespace
}  // namespace trainscope::model
