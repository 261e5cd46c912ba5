#include "formats/trace/chrome_json.h"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/mapped_file.h"

namespace trainscope::formats::trace {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// Key text without unescaping: keys in traces never contain escapes, so the
// raw bytes up to the closing quote are the key (escaped keys take the slow
// unescaping path).
error_code KeyOf(od::field& field, std::string_view* key) {
  const char* raw = field.key().raw();
  const char* p = raw;
  while (*p != '"' && *p != '\\') ++p;
  if (*p == '"') {
    *key = std::string_view(raw, static_cast<size_t>(p - raw));
    return simdjson::SUCCESS;
  }
  return field.unescaped_key().get(*key);
}

// String -> unescaped text; number/bool/null -> raw token; objects and arrays
// are left for the iterator to skip.
error_code Token(od::value& value, std::string_view* out) {
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  if (type == od::json_type::string) return value.get_string().get(*out);
  if (type == od::json_type::object || type == od::json_type::array) return simdjson::SUCCESS;
  *out = value.raw_json_token();
  return simdjson::SUCCESS;
}

// Like Token but keeps the quotes of strings (timestamps as strings, ids as
// strings): the number parsers strip them.
error_code RawToken(od::value& value, std::string_view* out) {
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  if (type == od::json_type::object || type == od::json_type::array) return simdjson::SUCCESS;
  *out = value.raw_json_token();
  return simdjson::SUCCESS;
}

error_code CaptureArgs(od::value& value, RawEvent* ev) {
  od::object args;
  if (error_code e = value.get_object().get(args)) return e;
  ev->has_args = true;
  for (auto field_result : args) {
    od::field field;
    if (error_code e = std::move(field_result).get(field)) return e;
    std::string_view key;
    if (error_code e = KeyOf(field, &key)) return e;
    od::value v = field.value();
    std::string_view* target = nullptr;
    bool raw = true;
    switch (key.size()) {
      case 4:
        if (key == "name") target = &ev->arg_name, raw = false;
        break;
      case 5:
        if (key == "Bytes") target = &ev->bytes;
        else if (key == "dtype") target = &ev->dtype, raw = false;
        break;
      case 6:
        if (key == "stream") target = &ev->stream;
        else if (key == "device") target = &ev->device;
        else if (key == "labels") target = &ev->labels, raw = false;
        break;
      case 9:
        if (key == "Device Id") target = &ev->device_id;
        else if (key == "Task Type") target = &ev->task_type, raw = false;
        break;
      case 10:
        if (key == "Group size") target = &ev->group_size;
        break;
      case 11:
        if (key == "External id") target = &ev->external_id;
        else if (key == "correlation") target = &ev->correlation;
        else if (key == "Device Type") target = &ev->device_type;
        break;
      case 13:
        if (key == "In msg nelems") target = &ev->in_nelems;
        break;
      case 14:
        if (key == "Out msg nelems") target = &ev->out_nelems;
        else if (key == "Total Reserved") target = &ev->total_reserved;
        break;
      case 15:
        if (key == "Collective name") target = &ev->coll_name, raw = false;
        else if (key == "Total Allocated") target = &ev->total_allocated;
        break;
      case 18:
        if (key == "Process Group Name") target = &ev->pg_name, raw = false;
        break;
      case 19:
        if (key == "Process Group Ranks") target = &ev->pg_ranks, raw = false;
        break;
      case 25:
        if (key == "Process Group Description") target = &ev->pg_desc, raw = false;
        break;
      default:
        break;
    }
    if (target != nullptr) {
      if (error_code e = raw ? RawToken(v, target) : Token(v, target)) return e;
    }
  }
  return simdjson::SUCCESS;
}

error_code CaptureEvent(od::object& obj, RawEvent* ev) {
  *ev = RawEvent{};
  for (auto field_result : obj) {
    od::field field;
    if (error_code e = std::move(field_result).get(field)) return e;
    std::string_view key;
    if (error_code e = KeyOf(field, &key)) return e;
    od::value v = field.value();
    error_code e = simdjson::SUCCESS;
    switch (key.size()) {
      case 2:
        if (key == "ph") e = Token(v, &ev->ph);
        else if (key == "ts") e = RawToken(v, &ev->ts);
        else if (key == "id") e = RawToken(v, &ev->id);
        else if (key == "bp") e = Token(v, &ev->bp);
        break;
      case 3:
        if (key == "cat") e = Token(v, &ev->cat);
        else if (key == "pid") e = RawToken(v, &ev->pid);
        else if (key == "tid") e = RawToken(v, &ev->tid);
        else if (key == "dur") e = RawToken(v, &ev->dur);
        break;
      case 4:
        if (key == "name") e = Token(v, &ev->name);
        else if (key == "args") e = CaptureArgs(v, ev);
        break;
      default:
        break;
    }
    if (e) return e;
  }
  return simdjson::SUCCESS;
}

od::parser& SharedParser() {
  // One parser per thread, reused across files: its buffers are the only
  // large allocation of a scan.
  thread_local od::parser parser;
  return parser;
}

error_code FastEvents(od::array& events, EventSink* sink, size_t* count) {
  RawEvent ev;
  for (auto element : events) {
    od::object obj;
    if (error_code e = std::move(element).get_object().get(obj)) return e;
    if (error_code e = CaptureEvent(obj, &ev)) return e;
    sink->OnEvent(ev, 0);
    ++*count;
  }
  return simdjson::SUCCESS;
}

error_code FastPath(std::string_view padded, EventSink* sink, size_t* count) {
  od::parser& parser = SharedParser();
  od::document doc;
  if (error_code e = parser.iterate(padded.data(), padded.size(),
                                    padded.size() + simdjson::SIMDJSON_PADDING)
                         .get(doc)) {
    return e;
  }
  od::json_type type;
  if (error_code e = doc.type().get(type)) return e;
  if (type == od::json_type::array) {
    od::array events;
    if (error_code e = doc.get_array().get(events)) return e;
    if (error_code e = FastEvents(events, sink, count)) return e;
  } else if (type == od::json_type::object) {
    od::object top;
    if (error_code e = doc.get_object().get(top)) return e;
    for (auto field_result : top) {
      od::field field;
      if (error_code e = std::move(field_result).get(field)) return e;
      std::string_view key;
      if (error_code e = KeyOf(field, &key)) return e;
      od::value v = field.value();
      if (key == "traceEvents") {
        od::array events;
        if (error_code e = v.get_array().get(events)) return e;
        if (error_code e = FastEvents(events, sink, count)) return e;
        continue;
      }
      od::json_type vt;
      if (error_code e = v.type().get(vt)) return e;
      if (vt == od::json_type::object || vt == od::json_type::array) {
        sink->OnTopLevel(key, v);
      } else {
        std::string_view raw;
        raw = v.raw_json_token();
        sink->OnTopLevelScalar(key, raw);
      }
    }
  } else {
    return simdjson::TAPE_ERROR;
  }
  return simdjson::SUCCESS;
}

// ---- slow path -------------------------------------------------------------

constexpr size_t kNpos = std::string_view::npos;

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  return i;
}

// End (one past) of the string starting at s[i] == '"', or npos.
size_t StringEnd(std::string_view s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return kNpos;
}

// End (one past) of the JSON value starting at s[i], or npos when truncated.
size_t ValueEnd(std::string_view s, size_t i) {
  if (i >= s.size()) return kNpos;
  if (s[i] == '"') return StringEnd(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
           s[i] != '\n' && s[i] != '\r' && s[i] != '\t') {
      ++i;
    }
    return i;
  }
  int depth = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      i = StringEnd(s, i);
      if (i == kNpos) return kNpos;
      --i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return kNpos;
}

// Offset of the first invalid UTF-8 sequence in s, or npos.
size_t FirstBadUtf8(std::string_view s) {
  size_t i = 0;
  const auto* u = reinterpret_cast<const unsigned char*>(s.data());
  while (i < s.size()) {
    unsigned char c = u[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || (n == 2 && c < 0xC2) || i + n > s.size()) return i;
    for (size_t k = 1; k < n; ++k) {
      if ((u[i + k] & 0xC0) != 0x80) return i;
    }
    i += n;
  }
  return kNpos;
}

class SlowScanner {
 public:
  SlowScanner(std::string_view s, EventSink* sink, ScanReport* report)
      : s_(s), sink_(sink), report_(report) {}

  void Run() {
    size_t i = SkipSpace(s_, 0);
    if (i >= s_.size()) return Damage(i, "empty document");
    if (s_[i] == '[') {
      Events(i + 1);
      return;
    }
    if (s_[i] != '{') return Damage(i, "document is neither an object nor an array");
    i = SkipSpace(s_, i + 1);
    while (i < s_.size()) {
      if (s_[i] == '}') return;
      if (s_[i] != '"') return Damage(i, "expected a key");
      size_t key_end = StringEnd(s_, i);
      if (key_end == kNpos) return Damage(s_.size(), "truncated in a key");
      std::string_view key = s_.substr(i + 1, key_end - i - 2);
      i = SkipSpace(s_, key_end);
      if (i >= s_.size() || s_[i] != ':') return Damage(i, "expected ':'");
      i = SkipSpace(s_, i + 1);
      if (key == "traceEvents" && i < s_.size() && s_[i] == '[') {
        i = Events(i + 1);
        if (report_->damaged) return;
      } else {
        size_t end = ValueEnd(s_, i);
        if (end == kNpos) return Damage(s_.size(), "truncated");
        TopLevel(key, i, end);
        i = end;
      }
      i = SkipSpace(s_, i);
      if (i < s_.size() && s_[i] == ',') {
        i = SkipSpace(s_, i + 1);
        if (i < s_.size() && s_[i] == '}') return Damage(i, "trailing comma");
      }
    }
    Damage(s_.size(), "truncated (object not closed)");
  }

 private:
  void Damage(size_t offset, std::string reason) {
    report_->damaged = true;
    report_->damage_offset = offset;
    report_->damage_reason = std::move(reason);
  }

  void TopLevel(std::string_view key, size_t begin, size_t end) {
    char c = s_[begin];
    if (c != '{' && c != '[') {
      sink_->OnTopLevelScalar(key, s_.substr(begin, end - begin));
      return;
    }
    od::document doc;
    if (SharedParser().iterate(s_.data() + begin, end - begin, Capacity(begin)).get(doc)) return;
    od::value v;
    if (doc.get_value().get(v)) return;
    // A damaged metadata block is not worth the load: OnTopLevel reads what it can.
    sink_->OnTopLevel(key, v);
  }

  size_t Capacity(size_t begin) const {
    return s_.size() - begin + simdjson::SIMDJSON_PADDING;
  }

  // Returns the offset after the closing ']' (or sets damage).
  size_t Events(size_t i) {
    RawEvent ev;
    bool after_comma = false;
    while (true) {
      i = SkipSpace(s_, i);
      if (i >= s_.size()) {
        Damage(s_.size(), "truncated (event array not closed)");
        return i;
      }
      if (s_[i] == ']') {
        if (after_comma) Damage(i, "trailing comma");
        return i + 1;
      }
      if (s_[i] != '{') {
        Damage(i, "expected an event object");
        return i;
      }
      size_t end = ValueEnd(s_, i);
      if (end == kNpos) {
        size_t bad = FirstBadUtf8(s_.substr(i));
        if (bad != kNpos) {
          Damage(i + bad, "invalid UTF-8");
        } else {
          Damage(s_.size(), "truncated mid-event");
        }
        return i;
      }
      od::document doc;
      od::object obj;
      error_code e = SharedParser().iterate(s_.data() + i, end - i, Capacity(i)).get(doc);
      if (!e) e = doc.get_object().get(obj);
      if (!e) e = CaptureEvent(obj, &ev);
      if (e) {
        size_t bad = FirstBadUtf8(s_.substr(i, end - i));
        if (bad != kNpos) {
          Damage(i + bad, "invalid UTF-8");
        } else {
          Damage(i, fmt::format("invalid event ({})", simdjson::error_message(e)));
        }
        return i;
      }
      sink_->OnEvent(ev, i);
      ++report_->events;
      i = SkipSpace(s_, end);
      after_comma = false;
      if (i < s_.size() && s_[i] == ',') {
        after_comma = true;
        ++i;
      } else if (i < s_.size() && s_[i] != ']') {
        Damage(i, "expected ',' or ']' after an event");
        return i;
      }
    }
  }

  std::string_view s_;
  EventSink* sink_;
  ScanReport* report_;
};

}  // namespace

Status ScanChromeTrace(std::string_view padded, const std::string& label, EventSink* sink,
                       ScanReport* report) {
  *report = ScanReport{};
  size_t count = 0;
  error_code e = FastPath(padded, sink, &count);
  if (!e) {
    report->events = count;
    return Status::Ok();
  }
  sink->Reset();
  report->slow_path = true;
  SlowScanner(padded, sink, report).Run();
  if (report->events == 0 && report->damaged) {
    return InvalidInput(fmt::format("{}: no valid trace event (damage at byte {}: {})", label,
                                    report->damage_offset, report->damage_reason));
  }
  if (!report->damaged) {
    // simdjson refused the document but the event-wise reader found nothing
    // wrong in the events (e.g. damage in ignored metadata): say so anyway.
    report->damaged = true;
    report->damage_offset = 0;
    report->damage_reason = simdjson::error_message(e);
  }
  return Status::Ok();
}

Result<simdjson::padded_string> LoadJsonFile(const std::string& path) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  std::string_view data = file.data();
  bool gzip = data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
              static_cast<unsigned char>(data[1]) == 0x8b;
  if (!gzip) return simdjson::padded_string(data.data(), data.size());

  // Inflate into a growing buffer, then one copy into the padded string.
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return InternalError("zlib inflateInit2 failed");
  std::vector<char> out(data.size() * 8 + 4096);
  size_t used = 0;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (used == out.size()) out.resize(out.size() * 2);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    zs.avail_out = static_cast<uInt>(out.size() - used);
    rc = inflate(&zs, Z_NO_FLUSH);
    used = out.size() - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // truncated gzip: keep what inflated
    if (rc != Z_OK && rc != Z_BUF_ERROR) break;        // corrupt gzip: keep the prefix
  }
  inflateEnd(&zs);
  if (used == 0) return InvalidInput(fmt::format("{}: gzip stream inflates to nothing", path));
  return simdjson::padded_string(out.data(), used);
}

}  // namespace trainscope::formats::trace
