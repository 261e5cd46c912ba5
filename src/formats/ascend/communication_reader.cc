#include "formats/ascend/communication_reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <limits>
#include <utility>

#include "core/mapped_file.h"
#include "core/numbers.h"
#include "core/safe_text.h"
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

// The plausible range of each kind of value. Outside it (inf from 1e400,
// nan from a string "nan", negative, absurd) a value is unknown: NaN in the
// model, null in JSON, "n/a" in text, and never evidence for a finding.
struct Range {
  double max;
};
constexpr double kMaxTimeMs = static_cast<double>(kMaxTimeNs) / 1e6;  // 146 years
constexpr Range kTimeMs{kMaxTimeMs};
constexpr Range kTimestampUs{static_cast<double>(kMaxTimeNs) / 1e3};
constexpr Range kSizeMb{1e9};         // 1 PB in one op
constexpr Range kBandwidthGbps{1e5};  // 100 TB/s, ~100x the fastest link
constexpr Range kRatio{1.0};

// Counts unknown values for the file's warning.
struct Unknowns {
  int64_t count = 0;
  std::string first;  // "Bandwidth(GB/s) = 1e400"
  void Add(std::string_view key, std::string_view text) {
    if (count++ == 0) first = fmt::format("{} = {}", key, TerminalSafe(text.substr(0, 40)));
  }
};

// Numbers may be written as JSON numbers or (rarely) strings; both are read.
// A missing or unparsable value stays 0 (as before: "not reported"); a
// number outside |range| becomes NaN and is counted.
error_code ReadNumber(od::value value, std::string_view key, Range range, Unknowns* unknowns,
                      double* out) {
  std::string text;
  if (auto error = JsonValueToString(value, &text)) return error;
  std::optional<double> v = ParseDouble(text);
  if (!v) {
    // from_chars rejects out-of-range exponents ("1e400"): an overflowing
    // number is infinite, not absent.
    const std::string_view trimmed = TrimField(text);
    const bool numeric = !trimmed.empty() && (trimmed.front() == '-' || trimmed.front() == '+' ||
                                              (trimmed.front() >= '0' && trimmed.front() <= '9') ||
                                              trimmed.front() == '.');
    const bool named = trimmed == "inf" || trimmed == "-inf" || trimmed == "nan" ||
                       trimmed == "Infinity" || trimmed == "-Infinity" || trimmed == "NaN";
    if (!numeric && !named) {
      *out = 0.0;
      return simdjson::SUCCESS;
    }
    v = std::numeric_limits<double>::quiet_NaN();
  }
  if (!std::isfinite(*v) || *v < 0 || *v > range.max) {
    unknowns->Add(key, text);
    *out = std::numeric_limits<double>::quiet_NaN();
    return simdjson::SUCCESS;
  }
  *out = *v;
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

error_code ReadTimeInfo(od::object object, Unknowns* unknowns, model::CommOpRecord* op) {
  return ForEachJsonField(object, [&](std::string_view key, od::value value) -> error_code {
    double* target = nullptr;
    Range range = kTimeMs;
    if (key == "Start Timestamp(us)")
      target = &op->start_us, range = kTimestampUs;
    else if (key == "Elapse Time(ms)")
      target = &op->elapse_ms;
    else if (key == "Transit Time(ms)")
      target = &op->transit_ms;
    else if (key == "Wait Time(ms)")
      target = &op->wait_ms;
    else if (key == "Synchronization Time(ms)")
      target = &op->sync_ms;
    else if (key == "Idle Time(ms)")
      target = &op->idle_ms;
    else if (key == "Wait Time Ratio")
      target = &op->wait_ratio, range = kRatio;
    else if (key == "Synchronization Time Ratio")
      target = &op->sync_ratio, range = kRatio;
    return target != nullptr ? ReadNumber(value, key, range, unknowns, target) : simdjson::SUCCESS;
  });
}

// Bandwidth is size / time: with a transit time of 0 (or unknown) and bytes
// moved, the written bandwidth is not a measurement.
void CheckBandwidth(double size_mb, double time_ms, double* bandwidth_gbps, Unknowns* unknowns) {
  if (std::isnan(*bandwidth_gbps) || *bandwidth_gbps == 0) return;
  if (size_mb > 0 && !(time_ms > 0)) {
    unknowns->Add("Bandwidth(GB/s) with Transit Time(ms) 0", fmt::format("{}", *bandwidth_gbps));
    *bandwidth_gbps = std::numeric_limits<double>::quiet_NaN();
  }
}

error_code ReadTransport(std::string_view transport, od::object object, Unknowns* unknowns,
                         model::CommOpRecord* op) {
  model::CommTransportBandwidth b;
  b.transport.assign(transport);
  error_code error =
      ForEachJsonField(object, [&](std::string_view key, od::value value) -> error_code {
        double* target = nullptr;
        Range range = kTimeMs;
        if (key == "Transit Size(MB)")
          target = &b.size_mb, range = kSizeMb;
        else if (key == "Transit Time(ms)")
          target = &b.time_ms;
        else if (key == "Bandwidth(GB/s)")
          target = &b.bandwidth_gbps, range = kBandwidthGbps;
        else if (key == "Large Packet Ratio")
          target = &b.large_packet_ratio, range = kRatio;
        return target != nullptr ? ReadNumber(value, key, range, unknowns, target)
                                 : simdjson::SUCCESS;
      });
  if (error) return error;
  CheckBandwidth(b.size_mb, b.time_ms, &b.bandwidth_gbps, unknowns);
  // Transports that moved nothing are noise (every op lists all five).
  if (b.size_mb > 0 || b.time_ms > 0) op->bandwidth.push_back(std::move(b));
  return simdjson::SUCCESS;
}

// The object value of a field, for a nested walk.
error_code ObjectOf(od::value value, od::object* object) { return value.get_object().get(*object); }

error_code ReadOp(od::object object, Unknowns* unknowns, model::CommOpRecord* op) {
  return ForEachJsonField(object, [&](std::string_view key, od::value value) -> error_code {
    od::object inner;
    if (key == "Communication Time Info") {
      if (auto error = ObjectOf(value, &inner)) return error;
      return ReadTimeInfo(inner, unknowns, op);
    }
    if (key == "Communication Bandwidth Info") {
      if (auto error = ObjectOf(value, &inner)) return error;
      return ForEachJsonField(
          inner, [&](std::string_view transport, od::value per_transport) -> error_code {
            od::object per;
            if (auto error = ObjectOf(per_transport, &per)) return error;
            return ReadTransport(transport, per, unknowns, op);
          });
    }
    return simdjson::SUCCESS;
  });
}

// One "collective" / "p2p" section of communication.json.
error_code ReadOpSection(od::object section, int32_t step, bool p2p, Unknowns* unknowns,
                         model::CommunicationData* data) {
  return ForEachJsonField(section, [&](std::string_view key, od::value value) -> error_code {
    if (key == "Total Op Info") return simdjson::SUCCESS;  // a sum of the ops listed
    model::CommOpRecord op;
    op.step = step;
    op.p2p = p2p;
    SplitAt(key, &op.name, &op.group_hash);
    od::object object;
    if (auto error = ObjectOf(value, &object)) return error;
    if (auto error = ReadOp(object, unknowns, &op)) return error;
    data->ops.push_back(std::move(op));
    return simdjson::SUCCESS;
  });
}

error_code ReadLink(od::object object, Unknowns* unknowns, model::CommLinkRecord* link) {
  error_code error =
      ForEachJsonField(object, [&](std::string_view key, od::value value) -> error_code {
        if (key == "Transport Type") return JsonValueToString(value, &link->transport);
        if (key == "Op Name") return JsonValueToString(value, &link->op_name);
        if (key == "Transit Size(MB)") {
          return ReadNumber(value, key, kSizeMb, unknowns, &link->size_mb);
        }
        if (key == "Transit Time(ms)")
          return ReadNumber(value, key, kTimeMs, unknowns, &link->time_ms);
        if (key == "Bandwidth(GB/s)") {
          return ReadNumber(value, key, kBandwidthGbps, unknowns, &link->bandwidth_gbps);
        }
        return simdjson::SUCCESS;
      });
  if (error) return error;
  CheckBandwidth(link->size_mb, link->time_ms, &link->bandwidth_gbps, unknowns);
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
error_code ReadMatrixSection(od::object section, int32_t step, bool p2p, Unknowns* unknowns,
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
    return ForEachJsonField(links,
                            [&](std::string_view link_key, od::value link_value) -> error_code {
                              model::CommLinkRecord link = proto;
                              od::object object;
                              if (auto error = ObjectOf(link_value, &object)) return error;
                              if (!ParseLinkKey(link_key, &link.src, &link.dst))
                                return simdjson::SUCCESS;  // unknown layout: skip
                              if (auto error = ReadLink(object, unknowns, &link)) return error;
                              data->links.push_back(std::move(link));
                              return simdjson::SUCCESS;
                            });
  });
}

using SectionFn = error_code (*)(od::object, int32_t, bool, Unknowns*, model::CommunicationData*);

// Both files share the outer layout {"step<N>": {"collective": {...}, "p2p": {...}}}.
// Each step is parsed alone (ForEachTopLevelJsonFieldPiecewise): nothing
// below keeps a view into the document past its step.
Status ParseSteps(std::string_view json, const std::string& file_label, SectionFn section_fn,
                  const PiecewiseOptions& pieces, model::CommunicationData* data) {
  Unknowns unknowns;
  Status status = ForEachTopLevelJsonFieldPiecewise(
      json, file_label,
      [&](std::string_view step_key, od::value step_value) {
        const int32_t step = StepFromKey(step_key);
        od::object sections;
        if (auto error = step_value.get_object().get(sections)) return error;
        return ForEachJsonField(sections, [&](std::string_view name, od::value section_value) {
          if (name != "collective" && name != "p2p") return simdjson::SUCCESS;
          od::object section;
          if (auto error = section_value.get_object().get(section)) return error;
          return section_fn(section, step, name == "p2p", &unknowns, data);
        });
      },
      pieces);
  if (unknowns.count > 0) {
    data->notes.push_back(fmt::format(
        "{}: {} value{} not finite, negative or out of range (first: {}); treated as unknown",
        TerminalSafe(file_label), unknowns.count, unknowns.count == 1 ? "" : "s", unknowns.first));
  }
  return status;
}

}  // namespace

Status ParseCommunication(std::string_view json, const std::string& file_label,
                          model::CommunicationData* data, const PiecewiseOptions& pieces) {
  TS_RETURN_IF_ERROR(ParseSteps(json, file_label, &ReadOpSection, pieces, data));
  data->ops_present = true;
  return Status::Ok();
}

Status ParseCommunicationMatrix(std::string_view json, const std::string& file_label,
                                model::CommunicationData* data) {
  TS_RETURN_IF_ERROR(ParseSteps(json, file_label, &ReadMatrixSection, PiecewiseOptions{}, data));
  data->matrix_present = true;
  return Status::Ok();
}

Status ReadCommunicationFile(const std::string& path, model::CommunicationData* data) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  PiecewiseOptions pieces;
  pieces.release = [&file](size_t begin, size_t end) { file.Release(begin, end); };
  return ParseCommunication(file.data(), path, data, pieces);
}

Status ReadCommunicationMatrixFile(const std::string& path, model::CommunicationData* data) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return ParseCommunicationMatrix(file.data(), path, data);
}

}  // namespace trainscope::formats
