// Host ops: threads kept once per (pid, tid), the sort and nesting by
// thread, and the builder's sizing of its lists from the share read.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "formats/trace/kineto_reader.h"
#include "formats/trace/timeline_builder.h"
#include "model/device_events.h"
#include "model/rank_profile.h"
#include "model/timeline.h"

namespace trainscope {
namespace {

model::HostOp OpOn(model::HostOps* ops, int64_t pid, int64_t tid, int64_t start_ns,
                   int64_t duration_ns) {
  model::HostOp op;
  op.thread = ops->ThreadOf(pid, tid);
  op.start_ns = start_ns;
  op.duration_ns = duration_ns;
  return op;
}

TEST(HostOps, ThreadsAreKeptOncePerPidAndTid) {
  model::HostOps ops;
  // Index 0 is the thread of an op whose thread is never set.
  ops.Append(model::HostOp{});
  EXPECT_EQ(ops.pid(0), 0);
  EXPECT_EQ(ops.tid(0), 0);
  EXPECT_EQ(ops.ThreadOf(0, 0), 0);
  EXPECT_EQ(ops.ThreadOf(5, 1), 1);
  EXPECT_EQ(ops.ThreadOf(2, 9), 2);
  EXPECT_EQ(ops.ThreadOf(5, 1), 1);
  EXPECT_EQ(ops.ThreadOf(5, 2), 3);  // same pid, other tid
  EXPECT_EQ(ops.ThreadOf(2, 9), 2);
  ASSERT_EQ(ops.threads.size(), 4u);
  ops.Append(OpOn(&ops, -(int64_t{1} << 41), 7, 0, 1));  // a synthetic pid
  EXPECT_EQ(ops.pid(1), -(int64_t{1} << 41));
  EXPECT_EQ(ops.tid(1), 7);
}

TEST(HostOps, SortAndNestByPidAndTidWhateverOrderThreadsWereMet) {
  model::HostOps ops;
  // Threads met in the order (5, 1), (2, 9): the sort still puts pid 2 first.
  ops.Append(OpOn(&ops, 5, 1, 0, 100));   // A
  ops.Append(OpOn(&ops, 2, 9, 10, 10));   // B
  ops.Append(OpOn(&ops, 5, 1, 10, 20));   // C, inside A
  ops.Append(OpOn(&ops, 2, 9, 10, 30));   // D, starts with B, longer: B's parent
  ops.Append(OpOn(&ops, 5, 1, 150, 10));  // E, after A
  const std::vector<uint32_t> order = formats::trace::SortAndNestHostOps(&ops);
  EXPECT_EQ(order, (std::vector<uint32_t>{3, 1, 0, 2, 4}));
  const std::vector<int64_t> pids = {2, 2, 5, 5, 5};
  const std::vector<int32_t> depths = {0, 1, 0, 1, 0};
  const std::vector<int32_t> parents = {model::kNoIndex, 0, model::kNoIndex, 2, model::kNoIndex};
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops.pid(i), pids[i]) << i;
    EXPECT_EQ(ops.depth[i], depths[i]) << i;
    EXPECT_EQ(ops.parent[i], parents[i]) << i;
  }
  // Equal keys keep their input order, as a stable sort would.
  model::HostOps twins;
  for (int k = 0; k < 3; ++k) twins.Append(OpOn(&twins, 1, 1, 5, 5));
  EXPECT_EQ(formats::trace::SortAndNestHostOps(&twins), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(TimelineBuilder, SizesItsListsFromTheShareRead) {
  model::RankProfile profile;
  formats::trace::TimelineBuilder builder(&profile);
  model::HostOps& ops = builder.timeline().host_ops;
  for (int k = 0; k < 100; ++k) builder.AddHostOp(OpOn(&ops, 1, 1, k, 1));
  const size_t before = ops.capacity();
  builder.ExpectTotal(0.01);  // too early to project
  EXPECT_EQ(ops.capacity(), before);
  // 100 in a tenth: about 1000 in all, and room for a quarter more (room
  // is address space until a row is written there).
  builder.ExpectTotal(0.1);
  EXPECT_GE(ops.capacity(), 1250u);
  EXPECT_LT(ops.capacity(), 1300u);
  const size_t projected = ops.capacity();
  for (int k = 0; k < 450; ++k) builder.AddHostOp(OpOn(&ops, 1, 1, 100 + k, 1));
  EXPECT_EQ(ops.capacity(), projected);  // no regrowth on the way
  // At half the input, 550 rows: 1100 in all, 10 % over the first
  // projection but within the room, so the rows are not moved.
  builder.ExpectTotal(0.5);
  EXPECT_EQ(ops.capacity(), projected);
}

TEST(TimelineBuilder, SizesItsListsAgainWhenTheRateOutgrowsTheRoom) {
  model::RankProfile profile;
  formats::trace::TimelineBuilder builder(&profile);
  model::HostOps& ops = builder.timeline().host_ops;
  for (int k = 0; k < 100; ++k) builder.AddHostOp(OpOn(&ops, 1, 1, k, 1));
  builder.ExpectTotal(0.1);
  for (int k = 0; k < 900; ++k) builder.AddHostOp(OpOn(&ops, 1, 1, 100 + k, 1));
  // At half the input the list holds twice what was projected: sized again.
  builder.ExpectTotal(0.5);
  EXPECT_GE(ops.capacity(), 2500u);
  // Each column is sized alike.
  EXPECT_GE(ops.name.capacity(), 2500u);
  EXPECT_GE(ops.thread.capacity(), 2500u);
}

TEST(ThreadTable, FindsThreadsPastTheScannedFewAndAfterOthers) {
  // The first threads are found by a scan, the later ones through the map:
  // each (pid, tid) keeps its index either way, whatever came in between.
  model::ThreadTable table;
  std::vector<int32_t> first;
  for (int64_t t = 0; t < 100; ++t) first.push_back(table.ThreadOf(7, t));
  for (int64_t t = 99; t >= 0; --t) EXPECT_EQ(table.ThreadOf(7, t), first[static_cast<size_t>(t)]);
  EXPECT_EQ(table.ThreadOf(0, 0), 0);
  EXPECT_EQ(table.threads.size(), 101u);
  for (size_t i = 1; i < table.threads.size(); ++i) {
    EXPECT_EQ(table.threads[i].pid, 7);
    EXPECT_EQ(table.threads[i].tid, static_cast<int64_t>(i - 1));
  }
}

TEST(Columnar, PermuteOfAnEmptyTableLeavesItEmpty) {
  // Its columns have no storage (null data): nothing may be copied.
  model::HostOps ops;
  ops.Permute({});
  EXPECT_EQ(ops.size(), 0u);
  EXPECT_TRUE(formats::trace::SortAndNestHostOps(&ops).empty());
}

TEST(Columnar, PermuteReordersEveryColumnOfEveryWidth) {
  // Columns of 1, 4 and 8 bytes, reordered through one spare.
  model::DeviceEventColumns table;
  constexpr uint32_t kRows = 1000;
  for (uint32_t i = 0; i < kRows; ++i) {
    model::DeviceEvent row;
    row.start_ns = int64_t{1} << 40 | i;
    row.stream = static_cast<int32_t>(i * 7);
    row.kind = i % 2 == 0 ? model::ActivityKind::kCompute : model::ActivityKind::kCommunication;
    row.op_type_derived = static_cast<uint8_t>(i % 3);
    table.Append(row);
  }
  std::vector<uint32_t> order(kRows);
  for (uint32_t k = 0; k < kRows; ++k) order[k] = (k * 389) % kRows;  // 389 is prime to 1000
  const model::DeviceEventColumns before = table;
  table.Permute(order);
  ASSERT_EQ(table.size(), kRows);
  for (uint32_t k = 0; k < kRows; ++k) {
    const uint32_t old = order[k];
    EXPECT_EQ(table.start_ns[k], before.start_ns[old]) << k;
    EXPECT_EQ(table.stream[k], before.stream[old]) << k;
    EXPECT_EQ(table.kind[k], before.kind[old]) << k;
    EXPECT_EQ(table.op_type_derived[k], before.op_type_derived[old]) << k;
  }
}

model::HostOp OpAt(int64_t start_ns, StringId source) {
  model::HostOp op;
  op.start_ns = start_ns;
  op.duration_ns = 1;
  op.source = source;
  return op;
}

TEST(SparseColumn, StoresNothingWhileEveryRowHoldsTheDefault) {
  model::HostOps ops;
  ops.Reserve(1000);
  for (int64_t i = 0; i < 1000; ++i) ops.Append(OpAt(1000 - i, StringPool::kEmpty));
  EXPECT_EQ(ops.source.size(), 1000u);
  EXPECT_FALSE(ops.source.stored());
  EXPECT_TRUE(ops.source.values().empty());
  EXPECT_EQ(ops.source[999], StringPool::kEmpty);
  EXPECT_EQ(ops.Row(17).input_dims, StringPool::kEmpty);
  // Reordering and setting the default keep it empty, and its size follows.
  formats::trace::SortAndNestHostOps(&ops);
  EXPECT_EQ(ops.start_ns[0], 1);
  EXPECT_EQ(ops.source.size(), 1000u);
  ops.Set(3, ops.Row(3));
  EXPECT_FALSE(ops.source.stored());
}

TEST(SparseColumn, TheFirstOtherValueStoresEveryRow) {
  constexpr StringId kFrame = 7;
  model::HostOps ops;
  for (int64_t i = 0; i < 10; ++i) ops.Append(OpAt(i, StringPool::kEmpty));
  ops.Append(OpAt(10, kFrame));
  for (int64_t i = 11; i < 16; ++i) ops.Append(OpAt(i, StringPool::kEmpty));
  ASSERT_TRUE(ops.source.stored());
  ASSERT_EQ(ops.source.values().size(), 16u);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(ops.source[i], i == 10 ? kFrame : StringPool::kEmpty);
  EXPECT_FALSE(ops.input_dims.stored());  // each column on its own
  // Reordered with the other columns: the frame follows its op.
  std::vector<uint32_t> order(16);
  for (uint32_t k = 0; k < 16; ++k) order[k] = 15 - k;
  ops.Permute(order);
  for (size_t k = 0; k < 16; ++k) {
    EXPECT_EQ(ops.start_ns[k], static_cast<int64_t>(15 - k));
    EXPECT_EQ(ops.source[k], k == 5 ? kFrame : StringPool::kEmpty) << k;
  }
}

TEST(SparseColumn, SettingAnotherValueStoresTheColumn) {
  model::columnar::SparseColumn<StringId> column(StringPool::kEmpty);
  column.resize(4);
  column.Set(2, StringPool::kEmpty);
  EXPECT_FALSE(column.stored());
  column.Set(1, 9);
  ASSERT_TRUE(column.stored());
  EXPECT_EQ(column.values(), (std::vector<StringId>{0, 9, 0, 0}));
  column.clear();
  EXPECT_TRUE(column.empty());
}

// A trace recorded without with_stack and record_shapes stores none of the
// three text columns; one with them stores each.
TEST(SparseColumn, AKinetoTraceStoresOnlyTheTextItHas) {
  const char* kPlain = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5, "args": {"External id": 2}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 3, "dur": 2, "args": {"External id": 2, "device": 0, "stream": 7, "correlation": 5}}
  ]})J";
  model::RankProfile plain;
  ASSERT_TRUE(formats::ParseKinetoTrace(kPlain, "plain", &plain).ok());
  const model::HostOps& plain_ops = plain.timeline.host_ops;
  ASSERT_EQ(plain_ops.size(), 1u);
  EXPECT_FALSE(plain_ops.source.stored());
  EXPECT_FALSE(plain_ops.input_dims.stored());
  EXPECT_FALSE(plain_ops.input_types.stored());

  const char* kShapes = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "args": {"External id": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5, "args": {"External id": 2, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"], "Call stack": "train.py(12): step"}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 3, "dur": 2, "args": {"External id": 2, "device": 0, "stream": 7, "correlation": 5}}
  ]})J";
  model::RankProfile shapes;
  ASSERT_TRUE(formats::ParseKinetoTrace(kShapes, "shapes", &shapes).ok());
  const model::HostOps& ops = shapes.timeline.host_ops;
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_TRUE(ops.source.stored());
  EXPECT_TRUE(ops.input_dims.stored());
  EXPECT_TRUE(ops.input_types.stored());
  EXPECT_EQ(ops.input_dims[0], StringPool::kEmpty);  // aten::add, before the first shapes
  EXPECT_EQ(shapes.strings.Get(ops.input_dims[1]), "[[2, 3], [3, 4]]");
  EXPECT_EQ(shapes.strings.Get(ops.source[1]), "train.py(12): step");
}

}  // namespace
}  // namespace trainscope
