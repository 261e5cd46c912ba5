#include "formats/ascend/communication_reader.h"

#include <simdjson.h>

#include <utility>

#include "core/mapped_file.h"
#include "core/numbers.h"
#include "formats/ascend/json_common.h"

namespace trainscope::formats {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// "step<N>" -> N; "step" (no step info) or anything else -> -1.
int32_t StepFromKey(std::string_view key) {
  constexpr std::string_view kPrefix = "step";
  if (key.size() <= kPrefix.size() || key.substr(0, kPrefix.size()) != kPrefix) return -1;
  std::optional<int64_t> n = ParseInt64(key.substr(kPrefix.size()));
  return n && *n >= 0 && *n <= INT32_MAX ? static_cast<int32_t>(*n) : -1;
}

// Numbers may be written as JSON numbers or (rarely) strings; both are read.
error_code ReadNumber(od::value value, double* out) {
  std::string text;
  if (auto error = JsonValueToString(value, &text)) return error;
  std::optional<double> v = ParseDouble(text);
  *out = v ? *v : 0.0;
  return simdjson::SUCCESS;
}

// Splits "<name>@<hash>" into its parts (no '@': the whole text is the name).
void SplitAt(std::string_view key, std::string* name, std::string* hash) {
  const size_t at = key.rfind('@');
  if (at == std::string_view::npos) {
    name->assign(key);
    hash->clear();
    return;
  }
  name->assign(key.substr(0, at));
  hash->assign(key.substr(at + 1));
}

error_code ReadTimeInfo(od::object object, model::CommOpRecord* op) {
  return ForEachJsonField(object, [&](std::string_view key, od::value value) -> error_code {
    double* target = nullptr;
    if (key == "Start Timestamp(us)") target = &op->start_us;
    else if (key == "Elapse Time(ms)") target = &op->elapse_ms;
    else if (key == "Transit Time(ms)") target = &op->transit_ms;
    else if (key == "Wait Time(ms)") target = &op->wait_ms;
    else if (key == "Synchronization Time(ms)") target = &op->sync_ms;
    else if (key == "Idle Time(ms)") target = &op->idle_ms;
    else if (key == "Wait Time Ratio") target = &op->wait_ratio;
    else if (key == "Synchronization Time Ratio") target = &op->sync_ratio;
    return target != nullptr ? ReadNumber(value, target) : simdjson::SUCCESS;
  });
}

error_code ReadTransport(std::string_view transport, od::object object, model::CommOpRecord* op) {
  model::CommTransportBandwidth b;
  b.transport.assign(transport);
  error_code error = ForEachJsonField(object, [&](std::string_view key, od::value value) -> error_code {
    double* target = nullptr;
    if (key == "Transit Size(MB)") target = &b.size_mb;
    else if (key == "Transit Time(ms)") target = &b.time_ms;
    else if (key == "Bandwidth(GB/s)") target = &b.bandwidth_gbps;
    else if (key == "Large Packet Ratio") target = &b.large_packet_ratio;
    return target != nullptr ? ReadNumber(value, target) : simdjson::SUCCESS;
  });
  if (error) return error;
  // Transports that moved nothing are noise (every op lists all five).
  if (b.size_mb > 0 || b.time_ms > 0) op->bandwidth.push_back(std::move(b));
  return simdjson::SUCCESS;
}

// The object value of a field, for a nested walk.
error_code ObjectOf(od::value value, od::object* object) { return value.get_object().get(*object); }

error_code ReadOp(od::object object, model::CommOpRecord* op) {
  return ForEachJsonField(object, [&](std::string_view key, od::value value) -> error_code {
    od::object inner;
    if (key == "Communication Time Info") {
      if (auto error = ObjectOf(value, &inner)) return error;
      return ReadTimeInfo(inner, op);
    }
    if (key == "Communication Bandwidth Info") {
      if (auto error = ObjectOf(value, &inner)) return error;
      return ForEachJsonField(inner, [&](std::string_view transport, od::value per_transport) -> error_code {
        od::object per;
        if (auto error = ObjectOf(per_transport, &per)) return error;
        return ReadTransport(transport, per, op);
      });
    }
    return simdjson::SUCCESS;
  });
}

// One "collective" / "p2p" section of communication.json.
error_code ReadOpSection(od::object section, int32_t step, bool p2p,
                         model::CommunicationData* data) {
  return ForEachJsonField(section, [&](std::string_view key, od::value value) -> error_code {
    if (key == "Total Op Info") return simdjson::SUCCESS;  // a sum of the ops listed
    model::CommOpRecord op;
    op.step = step;
    op.p2p = p2p;
    SplitAt(key, &op.name, &op.group_hash);
    od::object object;
    if (auto error = ObjectOf(value, &object)) return error;
    if (auto error = ReadOp(object, &op)) return error;
    data->ops.push_back(std::move(op));
    return simdjson::SUCCESS;
  });
}

error_code ReadLink(od::object object, model::CommLinkRecord* link) {
  return ForEachJsonField(object, [&](std::string_view key, od::value value) -> error_code {
    if (key == "Transport Type") return JsonValueToString(value, &link->transport);
    if (key == "Op Name") return JsonValueToString(value, &link->op_name);
    if (key == "Transit Size(MB)") return ReadNumber(value, &link->size_mb);
    if (key == "Transit Time(ms)") return ReadNumber(value, &link->time_ms);
    if (key == "Bandwidth(GB/s)") return ReadNumber(value, &link->bandwidth_gbps);
    return simdjson::SUCCESS;
  });
}

// "<src>-<dst>" with group-local ranks.
bool ParseLinkKey(std::string_view key, int32_t* src, int32_t* dst) {
  const size_t dash = key.find('-');
  if (dash == std::string_view::npos) return false;
  std::optional<int64_t> s = ParseInt64(key.substr(0, dash));
  std::optional<int64_t> d = ParseInt64(key.substr(dash + 1));
  if (!s || !d || *s < 0 || *d < 0 || *s > INT32_MAX || *d > INT32_MAX) return false;
  *src = static_cast<int32_t>(*s);
  *dst = static_cast<int32_t>(*d);
  return true;
}

// One "collective" / "p2p" section of communication_matrix.json.
error_code ReadMatrixSection(od::object section, int32_t step, bool p2p,
                             model::CommunicationData* data) {
  return ForEachJsonField(section, [&](std::string_view key, od::value value) -> error_code {
    model::CommLinkRecord proto;
    proto.step = step;
    proto.p2p = p2p;
    std::string type_stat;
    SplitAt(key, &type_stat, &proto.group_hash);
    const size_t dash = type_stat.rfind('-');
    proto.op_type = dash == std::string::npos ? type_stat : type_stat.substr(0, dash);
    proto.statistic = dash == std::string::npos ? "" : type_stat.substr(dash + 1);
    od::object links;
    if (auto error = ObjectOf(value, &links)) return error;
    return ForEachJsonField(links, [&](std::string_view link_key, od::value link_value) -> error_code {
      model::CommLinkRecord link = proto;
      od::object object;
      if (auto error = ObjectOf(link_value, &object)) return error;
      if (!ParseLinkKey(link_key, &link.src, &link.dst)) return simdjson::SUCCESS;  // unknown layout: skip
      if (auto error = ReadLink(object, &link)) return error;
      data->links.push_back(std::move(link));
      return simdjson::SUCCESS;
    });
  });
}

using SectionFn = error_code (*)(od::object, int32_t, bool, model::CommunicationData*);

// Both files share the outer layout {"step<N>": {"collective": {...}, "p2p": {...}}}.
Status ParseSteps(std::string_view json, const std::string& file_label, SectionFn section_fn,
                  model::CommunicationData* data) {
  return ForEachTopLevelJsonField(json, file_label, [&](std::string_view step_key, od::value step_value) {
    const int32_t step = StepFromKey(step_key);
    od::object sections;
    if (auto error = step_value.get_object().get(sections)) return error;
    return ForEachJsonField(sections, [&](std::string_view name, od::value section_value) {
      if (name != "collective" && name != "p2p") return simdjson::SUCCESS;
      od::object section;
      if (auto error = section_value.get_object().get(section)) return error;
      return section_fn(section, step, name == "p2p", data);
    });
  });
}

}  // namespace

Status ParseCommunication(std::string_view json, const std::string& file_label,
                          model::CommunicationData* data) {
  TS_RETURN_IF_ERROR(ParseSteps(json, file_label, &ReadOpSection, data));
  data->ops_present = true;
  return Status::Ok();
}

Status ParseCommunicationMatrix(std::string_view json, const std::string& file_label,
                                model::CommunicationData* data) {
  TS_RETURN_IF_ERROR(ParseSteps(json, file_label, &ReadMatrixSection, data));
  data->matrix_present = true;
  return Status::Ok();
}

Status ReadCommunicationFile(const std::string& path, model::CommunicationData* data) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return ParseCommunication(file.data(), path, data);
}

Status ReadCommunicationMatrixFile(const std::string& path, model::CommunicationData* data) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return ParseCommunicationMatrix(file.data(), path, data);
}

}  // namespace trainscope::formats
