// TensorDescriptions (model/tensor_descriptions.h): one id per distinct set
// of a kernel's four tensor strings, whatever its cache answers, and the
// device table's rows reading their own set back.
#include "model/tensor_descriptions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "model/device_events.h"

namespace trainscope::model {
namespace {

TEST(TensorDescriptions, NoStringsIsIdZero) {
  TensorDescriptions descriptions;
  EXPECT_EQ(descriptions.size(), 1u);
  EXPECT_EQ(descriptions.Intern({}), kNoTensors);
  EXPECT_EQ(descriptions[kNoTensors], TensorDescription{});
  EXPECT_EQ(descriptions.size(), 1u);
}

// More sets than the cache has slots, interned twice in another order: the
// same ids, one entry each, and the empty set still id 0 once every slot
// held another set.
TEST(TensorDescriptions, EachSetHasOneIdWhateverTheCacheHolds) {
  TensorDescriptions descriptions;
  std::vector<TensorDescription> sets;
  for (StringId a = 1; a <= 40; ++a) {
    for (StringId b = 0; b < 25; ++b) {
      sets.push_back(
          {.input_shapes = a, .input_dtypes = b, .output_shapes = a + b, .output_dtypes = b % 3});
    }
  }
  std::vector<TensorDescriptionId> first;
  for (const TensorDescription& d : sets) first.push_back(descriptions.Intern(d));
  EXPECT_EQ(descriptions.size(), sets.size() + 1);
  for (size_t k = sets.size(); k-- > 0;) {
    EXPECT_EQ(descriptions.Intern(sets[k]), first[k]) << k;
    EXPECT_EQ(descriptions[first[k]], sets[k]) << k;
    EXPECT_NE(first[k], kNoTensors);
  }
  EXPECT_EQ(descriptions.Intern({}), kNoTensors);
  EXPECT_EQ(descriptions.size(), sets.size() + 1);
}

TEST(TensorDescriptions, ARowReadsItsOwnSet) {
  DeviceEvents events;
  DeviceEvent row;
  row.tensors = events.InternTensors({.input_shapes = 7, .input_dtypes = 8});
  events.Append(row);
  row.tensors = kNoTensors;
  events.Append(row);
  row.tensors = events.InternTensors({.input_shapes = 7, .input_dtypes = 8});
  events.Append(row);
  EXPECT_EQ(events.tensors_of(0).input_shapes, 7u);
  EXPECT_EQ(events.tensors_of(0).input_dtypes, 8u);
  EXPECT_EQ(events.tensors_of(1), TensorDescription{});
  EXPECT_EQ(events.tensors[2], events.tensors[0]);
  // Handed to a table rebuilt from the columns, the ids still read the same.
  DeviceEvents rebuilt(DeviceEventColumns(events), PmuColumns(), events.TakeTensorDescriptions());
  EXPECT_EQ(rebuilt.tensors_of(2).input_shapes, 7u);
  EXPECT_EQ(events.tensor_descriptions().size(), 1u);  // what was taken left an empty set
}

}  // namespace
}  // namespace trainscope::model
