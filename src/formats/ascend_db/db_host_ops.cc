// The host side of the rank database: PYTORCH_API (the host ops, their
// categories from ENUM_API_TYPE), PYTORCH_CALLCHAINS (their call stacks),
// CONNECTION_IDS (which host op launched each device task), and the steps
// of the ProfilerStep#N ops.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/numbers.h"
#include "formats/ascend_db/db_readers.h"
#include "formats/trace/chrome_json.h"
#include "formats/trace/timeline_builder.h"

namespace trainscope::formats::ascend_db {
namespace {

// PYTORCH_API.type -> its ENUM_API_TYPE name (torch_npu's fixed ids when
// the enum table is absent).
Result<std::unordered_map<int64_t, std::string>> ApiTypeNames(const SqliteDb& db) {
  std::unordered_map<int64_t, std::string> names = {
      {50001, "op"}, {50002, "queue"}, {50003, "trace"}, {50004, "mstx"}};
  TS_RETURN_IF_ERROR(ReadEnumTable(db, "ENUM_API_TYPE", &names));
  return names;
}

// The category trace_view.json gives the same host op: torch ops are
// cpu_op, the task queue's ops enqueue / dequeue, the Python tracer's
// frames python_function; another type keeps its enum name.
std::string_view HostCategory(std::string_view type_name, std::string_view name) {
  if (type_name == "op") return "cpu_op";
  if (type_name == "queue") return name.starts_with("Dequeue") ? "dequeue" : "enqueue";
  if (type_name == "trace") return "python_function";
  return type_name;
}

// PYTORCH_CALLCHAINS: callchainId -> the user frames of its stack, innermost
// first, one per line (frames ordered by stackDepth, 0 innermost; the rule
// of a trace's "Call stack", trace::UserFramesOf). Absent table: no call
// stacks (with_stack off).
Result<std::unordered_map<int64_t, StringId>> ReadCallChains(const DbContext& ctx) {
  std::unordered_map<int64_t, StringId> sources;
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("PYTORCH_CALLCHAINS"));
  if (!present) {
    NoteMissingTable(db, "PYTORCH_CALLCHAINS table (call stacks of host ops: with_stack=True)",
                     ctx.profile);
    return sources;
  }
  static constexpr DbColumn kColumns[] = {{"id", true}, {"stack", true}, {"stackDepth", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "PYTORCH_CALLCHAINS", "c", kColumns,
                                                       " ORDER BY c.id, c.stackDepth"));
  RowLedger ledger(db.path() + ":PYTORCH_CALLCHAINS");
  StringPool& pool = ctx.profile->strings;
  // Rows come by id: one chain's frames are gathered, then interned.
  int64_t chain = 0;
  std::string frames;
  bool open = false;
  const auto close = [&] {
    if (open) sources[chain] = frames.empty() ? StringPool::kEmpty : pool.Intern(frames);
    frames.clear();
  };
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> id = stmt.Int64(0);
    if (!id) {
      ledger.Skip(stmt.IsNull(0) ? RowIssue::kMissingValue : RowIssue::kUnparsableValue, "id", line,
                  std::string(stmt.Text(0)));
      return;
    }
    if (!open || *id != chain) {
      close();
      chain = *id;
      open = true;
    }
    const std::string user =
        trace::UserFramesOf(ctx.strings->Text(stmt.Int64(1), &ledger, "stack", line));
    if (!user.empty()) {
      if (!frames.empty()) frames += '\n';
      frames += user;
    }
    ledger.Use();
  }));
  close();
  ctx.profile->ledgers.push_back(std::move(ledger));
  return sources;
}

// PYTORCH_API: the host ops (torch ops, the task queue, the Python tracer's
// frames) into |tl|, with each op's connectionId (kNoId: none) in
// |connections|, row for row.
Status ReadPytorchApi(const DbContext& ctx, model::Timeline* tl,
                      std::vector<int64_t>* connections) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(auto chains, ReadCallChains(ctx));
  TS_ASSIGN_OR_RETURN(auto type_names, ApiTypeNames(db));
  static constexpr DbColumn kColumns[] = {
      {"startNs", true}, {"endNs", true},        {"globalTid", false}, {"connectionId", false},
      {"name", true},    {"callchainId", false}, {"type", false}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "PYTORCH_API", "p", kColumns));
  RowLedger ledger(db.path() + ":PYTORCH_API");
  StringPool& pool = ctx.profile->strings;
  IdCache names;
  std::map<std::pair<int64_t, StringId>, StringId> categories;  // (type, name) -> category
  model::HostOp op;
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    if (!ReadSpan(stmt, 0, 1, &ledger, line, &op.start_ns, &op.duration_ns)) return;
    // globalTid is (pid << 32) | tid.
    const uint64_t global_tid = static_cast<uint64_t>(stmt.Int64(2).value_or(0));
    op.thread = tl->host_ops.ThreadOf(static_cast<int64_t>(global_tid >> 32),
                                      static_cast<int64_t>(global_tid & 0xFFFFFFFFu));
    op.name = ctx.strings->Intern(stmt.Int64(4), &ledger, "name", line, &names);
    const int64_t type = stmt.Int64(6).value_or(-1);
    auto [cat, inserted] = categories.try_emplace({type, op.name}, StringPool::kEmpty);
    if (inserted) {
      auto known = type_names.find(type);
      const std::string_view type_name =
          known == type_names.end() ? std::string_view() : std::string_view(known->second);
      cat->second = pool.Intern(HostCategory(type_name, pool.Get(op.name)));
    }
    op.category = cat->second;
    op.source = StringPool::kEmpty;
    if (const std::optional<int64_t> chain = stmt.Int64(5)) {
      if (auto it = chains.find(*chain); it != chains.end()) op.source = it->second;
    }
    tl->host_ops.Append(op);
    connections->push_back(stmt.Int64(3).value_or(model::kNoId));
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  return Status::Ok();
}

// CONNECTION_IDS: PYTORCH_API.connectionId -> the connectionIds of the
// device tasks it launched (TASK.connectionId, COMMUNICATION_OP's), kept on
// the device events as their correlation. Each linked event gets its
// launcher and an async_npu flow, as trace_view.json's flows give them.
// Where two host ops claim one task, the torch op (cpu_op) wins, then the
// deeper one (the op that issued it rather than its caller).
Status LinkLaunches(const DbContext& ctx, const std::vector<int64_t>& connections,
                    model::Timeline* tl) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("CONNECTION_IDS"));
  if (!present) {
    NoteMissingTable(db, "CONNECTION_IDS table (which host op launched each device task)",
                     ctx.profile);
    return Status::Ok();
  }
  std::unordered_map<int64_t, int32_t> op_of;  // PYTORCH_API.connectionId -> host op
  for (size_t i = 0; i < connections.size(); ++i) {
    if (connections[i] != model::kNoId) op_of.emplace(connections[i], static_cast<int32_t>(i));
  }
  static constexpr DbColumn kColumns[] = {{"id", true}, {"connectionId", true}};
  TS_ASSIGN_OR_RETURN(SqliteStatement stmt, SelectFrom(db, "CONNECTION_IDS", "c", kColumns));
  RowLedger ledger(db.path() + ":CONNECTION_IDS");
  const model::HostOps& ops = tl->host_ops;
  const StringId cpu_op = ctx.profile->strings.Intern("cpu_op");
  auto better = [&](int32_t a, int32_t b) {  // whether host op a launched rather than b
    const bool a_op = ops.category[static_cast<size_t>(a)] == cpu_op;
    const bool b_op = ops.category[static_cast<size_t>(b)] == cpu_op;
    if (a_op != b_op) return a_op;
    return ops.depth[static_cast<size_t>(a)] > ops.depth[static_cast<size_t>(b)];
  };
  std::unordered_map<int64_t, int32_t> launcher_of;  // task connectionId -> host op
  TS_RETURN_IF_ERROR(ForEachRow(stmt, ledger, [&](int64_t line) {
    const std::optional<int64_t> id = stmt.Int64(0);
    const std::optional<int64_t> task = stmt.Int64(1);
    if (!id || !task) {
      ledger.Skip(RowIssue::kMissingValue, !id ? "id" : "connectionId", line, "");
      return;
    }
    auto op = op_of.find(*id);
    if (op == op_of.end()) {
      ledger.Skip(RowIssue::kLinkWithoutHostOp, line, std::to_string(*id));
      return;
    }
    auto [it, inserted] = launcher_of.try_emplace(*task, op->second);
    if (!inserted && better(op->second, it->second)) it->second = op->second;
    ledger.Use();
  }));
  ctx.profile->ledgers.push_back(std::move(ledger));
  model::DeviceEvents& events = ctx.profile->device_events;
  const StringId async_npu = ctx.profile->strings.Intern("async_npu");
  for (size_t row = 0; row < events.size(); ++row) {
    if (events.correlation[row] == model::kNoId) continue;
    auto it = launcher_of.find(events.correlation[row]);
    if (it == launcher_of.end()) continue;
    events.launcher.Set(row, it->second);
    tl->flows.push_back(
        model::Flow{events.correlation[row], async_npu, it->second, static_cast<int32_t>(row)});
  }
  return Status::Ok();
}

}  // namespace

// Host ops, their call stacks and launch links into profile->timeline;
// steps from the ProfilerStep#N ops. Without PYTORCH_API the rank has no
// timeline (the analyses that need host ops say so).
Status ReadHostOps(const DbContext& ctx) {
  const SqliteDb& db = *ctx.db;
  TS_ASSIGN_OR_RETURN(bool present, db.HasTable("PYTORCH_API"));
  if (!present) {
    NoteMissingTable(db,
                     "PYTORCH_API table (host ops: launch delays, host-bound steps, source lines)",
                     ctx.profile);
    return Status::Ok();
  }
  model::Timeline tl;
  std::vector<int64_t> connections;
  TS_RETURN_IF_ERROR(ReadPytorchApi(ctx, &tl, &connections));
  const std::vector<uint32_t> order = trace::SortAndNestHostOps(&tl.host_ops);
  std::vector<int64_t> sorted(order.size());
  for (size_t k = 0; k < order.size(); ++k) sorted[k] = connections[order[k]];
  TS_RETURN_IF_ERROR(LinkLaunches(ctx, sorted, &tl));
  constexpr std::string_view kPrefix = "ProfilerStep#";
  const StringPool& pool = ctx.profile->strings;
  for (size_t i = 0; i < tl.host_ops.size(); ++i) {
    const std::string_view name = pool.Get(tl.host_ops.name[i]);
    if (!name.starts_with(kPrefix)) continue;
    const std::optional<int64_t> number = ParseInt64(name.substr(kPrefix.size()));
    if (!number || *number < 0 || *number > INT32_MAX) continue;
    tl.steps.push_back(model::Step{static_cast<int32_t>(*number), tl.host_ops.start_ns[i],
                                   tl.host_ops.end_ns(i), static_cast<int32_t>(i)});
  }
  std::sort(tl.steps.begin(), tl.steps.end(),
            [](const model::Step& a, const model::Step& b) { return a.start_ns < b.start_ns; });
  tl.step_source = tl.steps.empty() ? model::StepSource::kNone : model::StepSource::kProfilerStep;
  tl.present = true;
  tl.format = "ascend_db";
  tl.source = db.path();
  ctx.profile->timeline = std::move(tl);
  return Status::Ok();
}

}  // namespace trainscope::formats::ascend_db
