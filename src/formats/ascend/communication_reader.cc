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
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    double* target = nullptr;
    if (key == "Start Timestamp(us)") target = &op->start_us;
    else if (key == "Elapse Time(ms)") target = &op->elapse_ms;
    else if (key == "Transit Time(ms)") target = &op->transit_ms;
    else if (key == "Wait Time(ms)") target = &op->wait_ms;
    else if (key == "Synchronization Time(ms)") target = &op->sync_ms;
    else if (key == "Idle Time(ms)") target = &op->idle_ms;
    else if (key == "Wait Time Ratio") target = &op->wait_ratio;
    else if (key == "Synchronization Time Ratio") target = &op->sync_ratio;
    if (target != nullptr) {
      if (auto error = ReadNumber(field.value(), target)) return error;
    }
  }
  return simdjson::SUCCESS;
}

error_code ReadTransport(std::string_view transport, od::object object, model::CommOpRecord* op) {
  model::CommTransportBandwidth b;
  b.transport.assign(transport);
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    double* target = nullptr;
    if (key == "Transit Size(MB)") target = &b.size_mb;
    else if (key == "Transit Time(ms)") target = &b.time_ms;
    else if (key == "Bandwidth(GB/s)") target = &b.bandwidth_gbps;
    else if (key == "Large Packet Ratio") target = &b.large_packet_ratio;
    if (target != nullptr) {
      if (auto error = ReadNumber(field.value(), target)) return error;
    }
  }
  // Transports that moved nothing are noise (every op lists all five).
  if (b.size_mb > 0 || b.time_ms > 0) op->bandwidth.push_back(std::move(b));
  return simdjson::SUCCESS;
}

error_code ReadOp(od::object object, model::CommOpRecord* op) {
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    if (key == "Communication Time Info") {
      od::object info;
      if (auto error = field.value().get_object().get(info)) return error;
      if (auto error = ReadTimeInfo(info, op)) return error;
    } else if (key == "Communication Bandwidth Info") {
      od::object bw;
      if (auto error = field.value().get_object().get(bw)) return error;
      for (auto t_result : bw) {
        od::field t;
        if (auto error = std::move(t_result).get(t)) return error;
        std::string_view transport;
        if (auto error = t.unescaped_key().get(transport)) return error;
        od::object per;
        if (auto error = t.value().get_object().get(per)) return error;
        if (auto error = ReadTransport(transport, per, op)) return error;
      }
    }
  }
  return simdjson::SUCCESS;
}

// One "collective" / "p2p" section of communication.json.
error_code ReadOpSection(od::object section, int32_t step, bool p2p,
                         model::CommunicationData* data) {
  for (auto field_result : section) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    if (key == "Total Op Info") continue;  // a sum of the ops listed
    model::CommOpRecord op;
    op.step = step;
    op.p2p = p2p;
    SplitAt(key, &op.name, &op.group_hash);
    od::object object;
    if (auto error = field.value().get_object().get(object)) return error;
    if (auto error = ReadOp(object, &op)) return error;
    data->ops.push_back(std::move(op));
  }
  return simdjson::SUCCESS;
}

error_code ReadLink(od::object object, model::CommLinkRecord* link) {
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    if (key == "Transport Type") {
      if (auto error = JsonValueToString(field.value(), &link->transport)) return error;
    } else if (key == "Op Name") {
      if (auto error = JsonValueToString(field.value(), &link->op_name)) return error;
    } else if (key == "Transit Size(MB)") {
      if (auto error = ReadNumber(field.value(), &link->size_mb)) return error;
    } else if (key == "Transit Time(ms)") {
      if (auto error = ReadNumber(field.value(), &link->time_ms)) return error;
    } else if (key == "Bandwidth(GB/s)") {
      if (auto error = ReadNumber(field.value(), &link->bandwidth_gbps)) return error;
    }
  }
  return simdjson::SUCCESS;
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
  for (auto field_result : section) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    model::CommLinkRecord proto;
    proto.step = step;
    proto.p2p = p2p;
    std::string type_stat;
    SplitAt(key, &type_stat, &proto.group_hash);
    const size_t dash = type_stat.rfind('-');
    proto.op_type = dash == std::string::npos ? type_stat : type_stat.substr(0, dash);
    proto.statistic = dash == std::string::npos ? "" : type_stat.substr(dash + 1);
    od::object links;
    if (auto error = field.value().get_object().get(links)) return error;
    for (auto link_result : links) {
      od::field link_field;
      if (auto error = std::move(link_result).get(link_field)) return error;
      std::string_view link_key;
      if (auto error = link_field.unescaped_key().get(link_key)) return error;
      model::CommLinkRecord link = proto;
      od::object object;
      if (auto error = link_field.value().get_object().get(object)) return error;
      if (!ParseLinkKey(link_key, &link.src, &link.dst)) continue;  // unknown layout: skip
      if (auto error = ReadLink(object, &link)) return error;
      data->links.push_back(std::move(link));
    }
  }
  return simdjson::SUCCESS;
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
