// The communication ops of the rank database: COMMUNICATION_OP (one row per
// collective or point-to-point op), their data types from
// ENUM_HCCL_DATA_TYPE.
#include <algorithm>
#include <map>

#include "core/numbers.h"
#include "formats/ascend/kernel_details_reader.h"
#include "formats/ascend_db/db_readers.h"

namespace trainscope::formats::ascend_db {
namespace {

// ENUM_HCCL_DATA_TYPE: COMMUNICATION_OP.dataType -> HCCL's name of it (FP32,
// BFP16, ...; trace_view.json's "data_type" spells them the same).
Result<std::map<int64_t, std::string>> HcclDataTypeNames(const SqliteDb& db) {
  std::map<int64_t, std::string> names;
  TS_RETURN_IF_ERROR(ReadEnumTable(db, "ENUM_HCCL_DATA_TYPE", &names));
  return names;
}

// COMMUNICATION_OP's record of the op's message and group (columns 6-8 of
// ReadCommunicationOps' select), as trace_view.json's op-level args.
model::CommOpMessage MessageOf(const SqliteStatement& stmt, std::string_view name,
                               const std::map<int64_t, std::string>& data_types,
                               StringTable* strings, RowLedger* ledger, int64_t line) {
  model::CommOpMessage message;
  message.name = std::string(name);
  const std::optional<int64_t> count = stmt.Int64(6);
  message.count = count && *count >= 0 ? *count : -1;
  if (const std::optional<int64_t> type = stmt.Int64(7)) {
    auto it = data_types.find(*type);
    if (it != data_types.end() && !IsMissingValue(it->second) && it->second != "INVALID_TYPE") {
      message.data_type = it->second;
    }
  }
  message.group_name = std::string(strings->Text(stmt.Int64(8), ledger, "groupName", line));
  return message;
}

}  // namespace

// COMMUNICATION_OP: one row per collective or point-to-point op, its whole
// span (kernel_details.csv's hcom_* rows).
// The rows go to |ops| (sorted by start, stable) and the ledger to
// |ledger_out|: ReadComputeTasks merges them into the event table in start
// order, so a capture whose TASK rows come in time order needs no sort.
Status ReadCommunicationOps(const DbContext& ctx, std::vector<model::DeviceEvent>* ops,
                            std::optional<RowLedger>* ledger_out) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("COMMUNICATION_OP"));
  if (!present) {
    NoteMissingTable(db, "COMMUNICATION_OP table (communication ops; single-card runs have none)",
                     ctx.profile);
    return Status::Ok();
  }
  static constexpr DbColumn kColumns[] = {
      {"opName", true},  {"startNs", true},   {"endNs", true},
      {"opType", false}, {"waitNs", false},   {"connectionId", false},
      {"count", false},  {"dataType", false}, {"groupName", false}};
  TS_ASSIGN_OR_RETURN(std::string list, SelectList(db, "COMMUNICATION_OP", "o", kColumns));
  TS_ASSIGN_OR_RETURN(auto data_types, HcclDataTypeNames(db));
  TS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT " + list + " FROM COMMUNICATION_OP o", "COMMUNICATION_OP"));
  RowLedger ledger(db.path() + ":COMMUNICATION_OP");
  StringTable& strings = *ctx.strings;
  const StringId hccl = ctx.profile->strings.Intern("HCCL");
  model::DeviceEvent row;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    if (!ReadSpan(stmt, 1, 2, &ledger, line, &row.start_ns, &row.duration_ns)) return;
    const std::string_view name = strings.Text(stmt.Int64(0), &ledger, "opName", line);
    row.name = ctx.profile->strings.Intern(name);
    const std::string_view op_type = strings.Text(stmt.Int64(3), &ledger, "opType", line);
    row.op_type_derived = IsMissingValue(op_type);
    row.op_type =
        ctx.profile->strings.Intern(row.op_type_derived ? DeriveOpTypeFromName(name) : op_type);
    row.accelerator = hccl;
    row.kind = model::ActivityKind::kCommunication;
    row.device = ctx.device;
    row.stream = model::kNoStream;
    row.block_dim = 0;
    row.tensors = model::kNoTensors;
    const std::optional<int64_t> wait = stmt.Int64(4);
    row.wait_ns = wait && InTimeRange(*wait) ? *wait : 0;
    row.op_state = model::OpState::kUnknown;
    row.step = StepOf(*ctx.steps, row.start_ns);
    row.correlation = stmt.Int64(5).value_or(model::kNoId);
    ops->push_back(row);
    ctx.profile->communication.messages.push_back(
        MessageOf(stmt, name, data_types, &strings, &ledger, line));
    ledger.Use();
  }));
  std::stable_sort(ops->begin(), ops->end(),
                   [](const model::DeviceEvent& a, const model::DeviceEvent& b) {
                     return a.start_ns < b.start_ns;
                   });
  *ledger_out = std::move(ledger);
  return Status::Ok();
}

}  // namespace trainscope::formats::ascend_db
