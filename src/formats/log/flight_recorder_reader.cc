#include "formats/log/flight_recorder_reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/mapped_file.h"
#include "formats/pickle/pickle_reader.h"

namespace trainscope::formats {
namespace {

// "[0, 1, 2, 3]" (ranks_str) -> the numbers.
std::vector<int64_t> ParseRanks(std::string_view text) {
  std::vector<int64_t> out;
  int64_t v = 0;
  bool in = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      v = v * 10 + (c - '0');
      in = true;
    } else if (in) {
      out.push_back(v);
      v = 0;
      in = false;
    }
  }
  if (in) out.push_back(v);
  return out;
}

// The texts, shapes and dtype lists of one dump's entries, each distinct
// value kept once (model::SharedValue): a dump repeats a few dozen of them.
class SharedValues {
 public:
  model::SharedValue<std::string> Text(std::string_view value) { return Keep(&texts_, value); }
  model::SharedValue<model::TensorShapes> Shapes(const model::TensorShapes& value) {
    return Keep(&shapes_, value);
  }
  model::SharedValue<model::TensorDtypes> Dtypes(const model::TensorDtypes& value) {
    return Keep(&dtypes_, value);
  }

 private:
  template <typename T>
  using Kept = std::map<T, std::shared_ptr<const T>, std::less<>>;

  // |value|: a T, or what finds one (a string_view for a string).
  template <typename T, typename V>
  static model::SharedValue<T> Keep(Kept<T>* kept, const V& value) {
    if (value.empty()) return {};
    auto it = kept->find(value);
    if (it == kept->end()) {
      T owned(value);
      auto shared = std::make_shared<const T>(owned);
      it = kept->emplace(std::move(owned), std::move(shared)).first;
    }
    return model::SharedValue<T>(it->second);
  }

  Kept<std::string> texts_;
  Kept<model::TensorShapes> shapes_;
  Kept<model::TensorDtypes> dtypes_;
};

// A seq id written as a string of decimal digits (the pickle era's dumps),
// read the same from either form; anything else is unknown.
std::optional<int64_t> SeqIdText(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    out = out * 10 + (c - '0');
  }
  return out;
}

// A pg_status id, the same from either form: -1 (never) and any other
// negative id are unknown.
std::optional<int64_t> PgStatusSeq(std::optional<int64_t> v) {
  if (v && *v < 0) return std::nullopt;
  return v;
}

int64_t LastNumber(std::string_view name) {
  const size_t end = name.find_last_of("0123456789");
  if (end == std::string_view::npos) return -1;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1])) != 0) --begin;
  if (end - begin >= 9) return -1;
  return std::stoll(std::string(name.substr(begin, end - begin + 1)));
}

// Both helpers take the lookup's result, not an element: a missing key
// (or a lookup on a non-object) is an error value, and converting that to
// an element throws simdjson_error, which fuzzing found on a dump whose
// entry lacked "collective_seq_id".
// A missing, mistyped or unreadable number is unknown (nullopt), never 0.
std::optional<int64_t> IntOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  simdjson::dom::element e;
  if (field.get(e) != simdjson::SUCCESS) return std::nullopt;
  int64_t v = 0;
  if (e.get(v) == simdjson::SUCCESS) return v;
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) return SeqIdText(s);  // the pickle-era string seq ids
  return std::nullopt;
}

// A string's text in the parsed document (valid while it is), or empty.
std::string_view TextOf(simdjson::dom::element e) {
  std::string_view s;
  return e.get(s) == simdjson::SUCCESS ? s : std::string_view();
}

std::string StringOf(simdjson::dom::element e) { return std::string(TextOf(e)); }

std::string StringOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  simdjson::dom::element e;
  return field.get(e) == simdjson::SUCCESS ? StringOf(e) : std::string();
}

// What a pickled dump's values are copied through. A memoized value can be
// referenced from many places (a list shared by every entry), so what is
// copied out is counted: elements and string bytes, at most 64 per byte of
// the pickle (real dumps copy a few per byte).
class PickleCopier {
 public:
  explicit PickleCopier(size_t pickle_bytes) : left_(64 * pickle_bytes + (size_t{1} << 20)) {}
  bool over() const { return over_; }

  // An int, or a string of decimal digits (older dumps wrote seq ids as
  // strings); anything else (None, a big int, a float) is unknown.
  std::optional<int64_t> Int(std::optional<PickleValue> v) {
    if (!v || !Spend(1)) return std::nullopt;
    if (auto i = v->AsInt()) return i;
    const auto s = v->AsString();
    return s ? SeqIdText(*s) : std::nullopt;
  }
  std::string Str(std::optional<PickleValue> v) {
    if (!v) return {};
    const auto s = v->AsString();
    if (!s || !Spend(s->size() + 1)) return {};
    return std::string(*s);
  }
  // A dict key as text: a str, or an int's decimal form (pg ids).
  std::optional<std::string> Key(PickleValue v) {
    if (auto i = v.AsInt()) return std::to_string(*i);
    if (v.AsString()) return Str(v);
    return std::nullopt;
  }
  // [[2048, 5120], [16]]: one shape per tensor; a shape with a dimension
  // that is not an int is empty (unknown).
  std::vector<std::vector<int64_t>> Shapes(std::optional<PickleValue> v) {
    std::vector<std::vector<int64_t>> out;
    if (!v || !v->is_sequence()) return out;
    for (size_t i = 0; i < v->size() && Spend(1); ++i) {
      const PickleValue shape = v->at(i);
      std::vector<int64_t> dims;
      if (shape.is_sequence()) {
        for (size_t k = 0; k < shape.size() && Spend(1); ++k) {
          const auto d = shape.at(k).AsInt();
          if (!d) {
            dims.clear();
            break;
          }
          dims.push_back(*d);
        }
      }
      out.push_back(std::move(dims));
    }
    return out;
  }
  std::vector<std::string> Strs(std::optional<PickleValue> v) {
    std::vector<std::string> out;
    if (!v || !v->is_sequence()) return out;
    for (size_t i = 0; i < v->size() && Spend(1); ++i) out.push_back(Str(v->at(i)));
    return out;
  }
  // pg_config's "ranks": the string "[0, 1, 2]" or a list of ints.
  std::vector<int64_t> Ranks(std::optional<PickleValue> v) {
    std::vector<int64_t> out;
    if (!v) return out;
    if (v->AsString()) return ParseRanks(Str(v));
    if (!v->is_sequence()) return out;
    for (size_t i = 0; i < v->size() && Spend(1); ++i) {
      if (auto r = v->at(i).AsInt()) out.push_back(*r);
    }
    return out;
  }
  bool Spend(size_t n) {
    if (n > left_) {
      over_ = true;
      left_ = 0;
      return false;
    }
    left_ -= n;
    return true;
  }

 private:
  size_t left_;
  bool over_ = false;
};

model::FlightRecorderEntry EntryFromPickle(PickleValue e, PickleCopier* copy,
                                           SharedValues* shared) {
  model::FlightRecorderEntry fe;
  if (e.kind() != PickleKind::kDict) return fe;
  if (auto pg = e.Get("process_group"); pg && pg->is_sequence()) {
    if (pg->size() > 0) fe.pg_name = shared->Text(copy->Str(pg->at(0)));
    if (pg->size() > 1) fe.pg_desc = shared->Text(copy->Str(pg->at(1)));
  }
  fe.collective_seq_id = copy->Int(e.Get("collective_seq_id"));
  fe.record_id = copy->Int(e.Get("record_id"));
  fe.profiling_name = shared->Text(copy->Str(e.Get("profiling_name")));
  fe.state = shared->Text(copy->Str(e.Get("state")));
  if (auto p2p = e.Get("is_p2p")) fe.is_p2p = p2p->AsBool().value_or(false);
  fe.pg_id = copy->Int(e.Get("pg_id"));
  fe.p2p_seq_id = copy->Int(e.Get("p2p_seq_id"));
  fe.input_sizes = shared->Shapes(copy->Shapes(e.Get("input_sizes")));
  fe.output_sizes = shared->Shapes(copy->Shapes(e.Get("output_sizes")));
  fe.input_dtypes = shared->Dtypes(copy->Strs(e.Get("input_dtypes")));
  fe.output_dtypes = shared->Dtypes(copy->Strs(e.Get("output_dtypes")));
  fe.time_created_ns = copy->Int(e.Get("time_created_ns"));
  fe.timeout_ms = copy->Int(e.Get("timeout_ms"));
  if (auto d = e.Get("duration_ms")) fe.duration_ms = d->AsDouble();
  return fe;
}

// A dict with "version" and "entries": a dump, by its content.
bool IsPickledDump(PickleValue root) {
  return root.kind() == PickleKind::kDict && root.Get("version") && root.Get("entries");
}

Result<model::FlightRecorderDump> DumpFromPickle(const PickleDocument& doc, size_t bytes,
                                                 const std::string& name) {
  const PickleValue root = doc.root();
  if (!IsPickledDump(root)) {
    return InvalidInput(fmt::format(
        "{}: a pickle of a {} without \"version\" and \"entries\": not a flight-recorder dump",
        name, PickleKindName(root.kind())));
  }
  PickleCopier copy(bytes);
  model::FlightRecorderDump d;
  d.path = name;
  d.rank = LastNumber(std::filesystem::path(name).filename().string());
  d.from_pickle = true;
  d.version = copy.Str(root.Get("version"));
  if (auto config = root.Get("pg_config"); config && config->kind() == PickleKind::kDict) {
    for (size_t i = 0; i < config->size(); ++i) {
      const auto key = copy.Key(config->key(i));
      if (!key) continue;
      const PickleValue pg = config->value(i);
      d.pg_ranks[*key] = copy.Ranks(pg.Get("ranks"));
      if (std::string desc = copy.Str(pg.Get("desc")); !desc.empty()) d.pg_descs[*key] = desc;
    }
  }
  if (auto status = root.Get("pg_status"); status && status->kind() == PickleKind::kDict) {
    for (size_t i = 0; i < status->size(); ++i) {
      const auto key = copy.Key(status->key(i));
      if (!key) continue;
      const PickleValue pg = status->value(i);
      model::FlightRecorderPgStatus& st = d.pg_status[*key];
      st.last_enqueued = PgStatusSeq(copy.Int(pg.Get("last_enqueued_collective")));
      st.last_started = PgStatusSeq(copy.Int(pg.Get("last_started_collective")));
      st.last_completed = PgStatusSeq(copy.Int(pg.Get("last_completed_collective")));
    }
  }
  if (auto entries = root.Get("entries"); entries && entries->is_sequence()) {
    d.entries.reserve(std::min<size_t>(entries->size(), bytes));  // each entry takes bytes
    SharedValues shared;
    for (size_t i = 0; i < entries->size() && copy.Spend(1); ++i) {
      d.entries.push_back(EntryFromPickle(entries->at(i), &copy, &shared));
    }
  }
  if (copy.over()) {
    return InvalidInput(fmt::format(
        "{}: the pickle's shared (memoized) values expand to more than 64 copies per byte: "
        "not read as a flight-recorder dump",
        name));
  }
  return d;
}

// The start of a pickled dict: PROTO 2..5, an optional FRAME, EMPTY_DICT.
bool StartsLikePickledDict(std::string_view bytes) {
  if (bytes.size() < 3 || static_cast<unsigned char>(bytes[0]) != 0x80 ||
      static_cast<unsigned char>(bytes[1]) > 5) {
    return false;
  }
  size_t i = 2;
  if (static_cast<unsigned char>(bytes[i]) == 0x95) i += 9;  // FRAME and its length
  return i < bytes.size() && bytes[i] == '}';
}

bool NamedLikeDump(const std::string& file) {
  return file.find("nccl_trace") != std::string::npos ||
         file.find("fr_trace") != std::string::npos ||
         file.find("flight_recorder") != std::string::npos;
}

std::optional<double> DoubleOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  simdjson::dom::element e;
  if (field.get(e) != simdjson::SUCCESS) return std::nullopt;
  double v = 0;
  if (e.get(v) == simdjson::SUCCESS) return v;
  int64_t i = 0;
  if (e.get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  return std::nullopt;
}

// "input_sizes": [[2048, 5120], [16]]: one shape per tensor; a shape with a
// dimension that is not an int is empty (unknown).
std::vector<std::vector<int64_t>> ShapesOf(
    simdjson::simdjson_result<simdjson::dom::element> field) {
  std::vector<std::vector<int64_t>> out;
  simdjson::dom::array shapes;
  if (field.get(shapes) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element shape : shapes) {
    std::vector<int64_t> dims;
    simdjson::dom::array arr;
    if (shape.get(arr) == simdjson::SUCCESS) {
      for (simdjson::dom::element d : arr) {
        int64_t v = 0;
        if (d.get(v) != simdjson::SUCCESS) {  // unknown, as in the pickled form
          dims.clear();
          break;
        }
        dims.push_back(v);
      }
    }
    out.push_back(std::move(dims));
  }
  return out;
}

std::vector<std::string> StringsOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  std::vector<std::string> out;
  simdjson::dom::array arr;
  if (field.get(arr) != simdjson::SUCCESS) return out;
  for (simdjson::dom::element e : arr) out.push_back(StringOf(e));
  return out;
}

std::optional<int64_t> SeqOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  return PgStatusSeq(IntOf(field));
}

// The fields of a dump's entry that are read.
enum class EntryField {
  kProcessGroup,
  kCollectiveSeqId,
  kRecordId,
  kProfilingName,
  kState,
  kIsP2p,
  kPgId,
  kP2pSeqId,
  kInputSizes,
  kOutputSizes,
  kInputDtypes,
  kOutputDtypes,
  kTimeCreatedNs,
  kTimeoutMs,
  kDurationMs,
  kOther,
};

EntryField EntryFieldOf(std::string_view key) {
  using F = EntryField;
  switch (key.size()) {
    case 5:
      return key == "state" ? F::kState : key == "pg_id" ? F::kPgId : F::kOther;
    case 6:
      return key == "is_p2p" ? F::kIsP2p : F::kOther;
    case 9:
      return key == "record_id" ? F::kRecordId : F::kOther;
    case 10:
      return key == "p2p_seq_id" ? F::kP2pSeqId : key == "timeout_ms" ? F::kTimeoutMs : F::kOther;
    case 11:
      return key == "input_sizes"   ? F::kInputSizes
             : key == "duration_ms" ? F::kDurationMs
                                    : F::kOther;
    case 12:
      return key == "output_sizes"   ? F::kOutputSizes
             : key == "input_dtypes" ? F::kInputDtypes
                                     : F::kOther;
    case 13:
      return key == "process_group"   ? F::kProcessGroup
             : key == "output_dtypes" ? F::kOutputDtypes
                                      : F::kOther;
    case 14:
      return key == "profiling_name" ? F::kProfilingName : F::kOther;
    case 15:
      return key == "time_created_ns" ? F::kTimeCreatedNs : F::kOther;
    case 17:
      return key == "collective_seq_id" ? F::kCollectiveSeqId : F::kOther;
    default:
      return F::kOther;
  }
}

// One entry of a JSON dump, its keys walked once: a lookup per field
// compared the keys before it each time, ~15 % of triage's time on 1,024
// ranks' dumps. A repeated key is read at its first occurrence, as a lookup
// finds it; a field absent or of another type is unknown; an entry that is
// no object is an entry of unknowns.
model::FlightRecorderEntry EntryFromJson(simdjson::dom::element e, SharedValues* shared) {
  using Field = simdjson::simdjson_result<simdjson::dom::element>;
  model::FlightRecorderEntry fe;
  simdjson::dom::object object;
  if (e.get(object) != simdjson::SUCCESS) return fe;
  uint32_t seen = 0;
  for (const simdjson::dom::key_value_pair pair : object) {
    const EntryField field = EntryFieldOf(pair.key);
    const uint32_t bit = uint32_t{1} << static_cast<int>(field);
    if (field == EntryField::kOther || (seen & bit) != 0) continue;
    seen |= bit;
    const Field value(simdjson::dom::element(pair.value));
    switch (field) {
      case EntryField::kProcessGroup: {
        simdjson::dom::array pg;
        if (pair.value.get(pg) != simdjson::SUCCESS) break;
        size_t i = 0;
        for (simdjson::dom::element part : pg) {
          (i++ == 0 ? fe.pg_name : fe.pg_desc) = shared->Text(TextOf(part));
        }
        break;
      }
      case EntryField::kCollectiveSeqId:
        fe.collective_seq_id = IntOf(value);
        break;
      case EntryField::kRecordId:
        fe.record_id = IntOf(value);
        break;
      case EntryField::kProfilingName:
        fe.profiling_name = shared->Text(TextOf(pair.value));
        break;
      case EntryField::kState:
        fe.state = shared->Text(TextOf(pair.value));
        break;
      case EntryField::kIsP2p: {
        bool p2p = false;
        if (pair.value.get(p2p) == simdjson::SUCCESS) fe.is_p2p = p2p;
        break;
      }
      case EntryField::kPgId:
        fe.pg_id = IntOf(value);
        break;
      case EntryField::kP2pSeqId:
        fe.p2p_seq_id = IntOf(value);
        break;
      case EntryField::kInputSizes:
        fe.input_sizes = shared->Shapes(ShapesOf(value));
        break;
      case EntryField::kOutputSizes:
        fe.output_sizes = shared->Shapes(ShapesOf(value));
        break;
      case EntryField::kInputDtypes:
        fe.input_dtypes = shared->Dtypes(StringsOf(value));
        break;
      case EntryField::kOutputDtypes:
        fe.output_dtypes = shared->Dtypes(StringsOf(value));
        break;
      case EntryField::kTimeCreatedNs:
        fe.time_created_ns = IntOf(value);
        break;
      case EntryField::kTimeoutMs:
        fe.timeout_ms = IntOf(value);
        break;
      case EntryField::kDurationMs:
        fe.duration_ms = DoubleOf(value);
        break;
      case EntryField::kOther:
        break;
    }
  }
  return fe;
}

// pg_config's "ranks": the string "[0, 1, 2]" or a list of ints (as the
// pickle reader takes them).
std::vector<int64_t> RanksOf(simdjson::simdjson_result<simdjson::dom::element> field) {
  simdjson::dom::element e;
  if (field.get(e) != simdjson::SUCCESS) return {};
  simdjson::dom::array list;
  if (e.get(list) != simdjson::SUCCESS) return ParseRanks(StringOf(e));
  std::vector<int64_t> out;
  for (simdjson::dom::element r : list) {
    int64_t v = 0;
    if (r.get(v) == simdjson::SUCCESS) out.push_back(v);
  }
  return out;
}

}  // namespace

Result<model::FlightRecorderDump> ParseFlightRecorderJson(std::string_view json,
                                                          const std::string& name) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const simdjson::padded_string padded(json);
  if (auto err = parser.parse(padded).get(doc); err != simdjson::SUCCESS) {
    return InvalidInput(
        fmt::format("{}: not JSON ({})\nhint: a flight-recorder dump in JSON is "
                    "what torch._C._distributed_c10d._dump_nccl_trace_json() "
                    "returns",
                    name, simdjson::error_message(err)));
  }
  simdjson::dom::object root;
  if (doc.get(root) != simdjson::SUCCESS || root["pg_config"].error() != simdjson::SUCCESS) {
    return InvalidInput(fmt::format("{}: no pg_config: not a flight-recorder dump", name));
  }
  model::FlightRecorderDump d;
  d.path = name;
  d.rank = LastNumber(std::filesystem::path(name).filename().string());
  simdjson::dom::object config;
  if (root["pg_config"].get(config) == simdjson::SUCCESS) {
    for (auto [key, value] : config) {
      d.pg_ranks[std::string(key)] = RanksOf(value["ranks"]);
      const std::string desc = StringOf(value["desc"]);
      if (!desc.empty()) d.pg_descs[std::string(key)] = desc;
    }
  }
  d.version = StringOf(root["version"]);
  simdjson::dom::object status;
  if (root["pg_status"].get(status) == simdjson::SUCCESS) {
    for (auto [key, value] : status) {
      model::FlightRecorderPgStatus st;
      st.last_enqueued = SeqOf(value["last_enqueued_collective"]);
      st.last_started = SeqOf(value["last_started_collective"]);
      st.last_completed = SeqOf(value["last_completed_collective"]);
      d.pg_status[std::string(key)] = st;
    }
  }
  simdjson::dom::array entries;
  if (root["entries"].get(entries) == simdjson::SUCCESS) {
    // One allocation: growing by doubling moved every entry's strings
    // (a tenth of triage's time on 1,024 ranks' dumps).
    d.entries.reserve(entries.size());
    SharedValues shared;
    for (simdjson::dom::element e : entries) {
      d.entries.push_back(EntryFromJson(e, &shared));
    }
  }
  return d;
}

Result<model::FlightRecorderDump> ParseFlightRecorderPickle(std::string_view bytes,
                                                            const std::string& name) {
  auto doc = ReadPickle(bytes, name);
  if (!doc.ok()) return doc.status();
  return DumpFromPickle(**doc, bytes.size(), name);
}

namespace {

// One file of a scanned directory into |scan|: a dump, an error, or nothing
// (a file not named like a dump that is no pickled dump).
void ScanFlightRecorderFile(const std::filesystem::path& file, FlightRecorderScan* scan) {
  const std::string path = file.string();
  const bool named = NamedLikeDump(file.filename().string());
  Result<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) {
    if (named) scan->errors.push_back(mapped.status().message());
    return;
  }
  const std::string_view bytes = mapped->data();
  const bool pickle = !bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x80;
  // By content: only a pickled dict is decoded, and only a dump is kept.
  const auto read = [&]() -> Result<model::FlightRecorderDump> {
    if (named) {
      return pickle ? ParseFlightRecorderPickle(bytes, path) : ParseFlightRecorderJson(bytes, path);
    }
    if (!StartsLikePickledDict(bytes)) return NotFound(path);
    auto doc = ReadPickle(bytes, path);
    if (!doc.ok() || !IsPickledDump((*doc)->root())) return NotFound(path);
    return DumpFromPickle(**doc, bytes.size(), path);
  };
  Result<model::FlightRecorderDump> d = read();
  if (!named && !d.ok() && d.status().code() == StatusCode::kNotFound) return;
  if (Status intact = mapped->CheckIntact(); !intact.ok()) d = intact;
  if (!d.ok()) {
    scan->errors.push_back(d.status().message());
    return;
  }
  if (d->from_pickle) scan->pickles.push_back(path);
  scan->dumps.push_back(std::move(*d));
}

}  // namespace

FlightRecorderScan ScanFlightRecorderDumps(const std::vector<std::string>& dirs) {
  FlightRecorderScan scan;
  std::set<std::string> seen;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (!entry.is_regular_file(ec) || !seen.insert(entry.path().string()).second) continue;
      ScanFlightRecorderFile(entry.path(), &scan);
    }
  }
  std::sort(scan.dumps.begin(), scan.dumps.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  std::sort(scan.pickles.begin(), scan.pickles.end());
  return scan;
}

}  // namespace trainscope::formats
