#include "formats/accuracy/dump_reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <system_error>
#include <vector>

#include "core/mapped_file.h"
#include "formats/accuracy/npy_reader.h"

namespace trainscope::formats {
namespace {

namespace fs = std::filesystem;
using model::DumpTensor;
using model::TensorDump;

bool HasNonFiniteToken(std::string_view json) {
  return json.find("NaN") != std::string_view::npos ||
         json.find("Infinity") != std::string_view::npos;
}

// Python's json.dump writes NaN, Infinity and -Infinity as bare tokens,
// which are not JSON. Outside strings they become the strings "NaN",
// "Infinity", "-Infinity" so the document parses and the values survive.
// The result keeps simdjson's padding in its capacity, so the parser reads it
// in place instead of copying it again.
std::string QuoteNonFiniteTokens(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 64 + simdjson::SIMDJSON_PADDING);
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < json.size()) {
        out += json[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view token :
         {std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN")}) {
      if (json.substr(i, token.size()) == token) {
        out += '"';
        out += token;
        out += '"';
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

// The number token starting at |at| (digits, sign, point, exponent), at most
// 40 characters: quoted in messages, never a whole line.
std::string_view NumberTokenAt(std::string_view json, size_t at) {
  size_t end = at + 1;
  while (end < json.size() && end - at < 40 &&
         (std::isdigit(static_cast<unsigned char>(json[end])) != 0 || json[end] == '.' ||
          json[end] == 'e' || json[end] == 'E' || json[end] == '+' || json[end] == '-')) {
    ++end;
  }
  return json.substr(at, end - at);
}

// The byte offset of the first number outside strings that a double cannot
// hold (1e400), for the error message: simdjson names the error, not where.
std::optional<size_t> OffsetOfUnrepresentableNumber(std::string_view json) {
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (!(c == '-' || (c >= '0' && c <= '9'))) continue;
    size_t end = i + 1;
    while (end < json.size() &&
           (std::isdigit(static_cast<unsigned char>(json[end])) != 0 || json[end] == '.' ||
            json[end] == 'e' || json[end] == 'E' || json[end] == '+' || json[end] == '-')) {
      ++end;
    }
    const std::string token(json.substr(i, std::min<size_t>(end - i, 400)));
    char* parsed_end = nullptr;
    errno = 0;
    const double value = std::strtod(token.c_str(), &parsed_end);
    if (errno == ERANGE && std::isinf(value)) return i;
    i = end - 1;
  }
  return std::nullopt;
}

std::optional<double> StatValue(simdjson::dom::element value) {
  double number = 0;
  if (value.get_double().get(number) == simdjson::SUCCESS) return number;
  int64_t integer = 0;
  if (value.get_int64().get(integer) == simdjson::SUCCESS) return static_cast<double>(integer);
  uint64_t unsigned_integer = 0;
  if (value.get_uint64().get(unsigned_integer) == simdjson::SUCCESS) {
    return static_cast<double>(unsigned_integer);
  }
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) return std::nullopt;
  if (text == "NaN" || text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity" || text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity" || text == "-inf") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

bool IsTensorObject(simdjson::dom::object object) {
  std::string_view type;
  if (object["type"].get_string().get(type) == simdjson::SUCCESS) {
    return type.find("Tensor") != std::string_view::npos;
  }
  return object["dtype"].error() == simdjson::SUCCESS &&
         object["shape"].error() == simdjson::SUCCESS;
}

std::string_view Extension(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : name.substr(dot);
}

RowIssue IssueOfHeaderError(const Status& status) {
  const std::string& m = status.message();
  if (m.find("truncated") != std::string::npos) return RowIssue::kTensorTruncated;
  if (m.find("unsupported dtype") != std::string::npos) return RowIssue::kTensorUnsupportedType;
  return RowIssue::kTensorBadHeader;
}

struct MsprobeContext {
  const std::string& dir;
  const DumpReadOptions& options;
  const std::map<std::string, std::string, std::less<>>& parents;
  TensorDump* dump;
  RowLedger* ledger;
};

void AttachTensorFile(const MsprobeContext& ctx, std::string_view data_name, DumpTensor* tensor) {
  if (ctx.dir.empty() || data_name.empty() || data_name == "-1") return;
  const std::string file =
      (fs::path(ctx.dir) / "dump_tensor_data" / std::string(data_name)).string();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    if (ctx.dump->task == "tensor") {
      ctx.ledger->Note(RowIssue::kTensorFileMissing, tensor->order + 1, std::string(data_name));
    }
    return;
  }
  if (Extension(data_name) != ".npy") {
    ctx.ledger->Note(RowIssue::kTensorDataNotRead, tensor->order + 1,
                     fmt::format("{}: only .npy tensor files are read", data_name));
    return;
  }
  Result<MappedFile> mapped = MappedFile::Open(file);
  if (!mapped.ok()) {
    ctx.ledger->Note(RowIssue::kTensorDataNotRead, tensor->order + 1, mapped.status().message());
    return;
  }
  Result<NpyHeader> header = ParseNpyHeader(mapped->data(), file, ctx.options.uint16_as_bf16);
  if (!header.ok()) {
    ctx.ledger->Note(RowIssue::kTensorDataNotRead, tensor->order + 1, header.status().message());
    return;
  }
  if (!tensor->shape.empty() && header->shape != tensor->shape) {
    ctx.ledger->Note(RowIssue::kTensorDataNotRead, tensor->order + 1,
                     fmt::format("{}: shape differs from dump.json's", file));
    return;
  }
  model::TensorData data;
  data.file = file;
  data.offset = header->data_offset;
  data.bytes = header->data_bytes;
  data.stored = header->type;
  data.big_endian = header->big_endian;
  data.fortran_order = header->fortran_order;
  // dump.json's dtype says what a tensor is; the file says how it is stored (a bf16 tensor is
  // often saved as uint16).
  if (tensor->type == model::ElementType::kBf16 && header->type == model::ElementType::kU16) {
    data.stored = model::ElementType::kBf16;
  }
  tensor->data = std::move(data);
}

void AddTensor(const MsprobeContext& ctx, const std::string& api, const std::string& path,
               simdjson::dom::object object) {
  ctx.ledger->CountRead();
  DumpTensor tensor;
  tensor.order = static_cast<int64_t>(ctx.dump->tensors.size());
  std::string_view dtype;
  simdjson::dom::array shape;
  if (object["dtype"].get_string().get(dtype) != simdjson::SUCCESS ||
      object["shape"].get_array().get(shape) != simdjson::SUCCESS) {
    ctx.ledger->Skip(RowIssue::kDumpEntryMalformed, tensor.order + 1,
                     fmt::format("{}.{}: no dtype or shape", api, path));
    return;
  }
  for (simdjson::dom::element dim : shape) {
    int64_t value = 0;
    if (dim.get_int64().get(value) != simdjson::SUCCESS || value < 0) {
      ctx.ledger->Skip(RowIssue::kDumpEntryMalformed, tensor.order + 1,
                       fmt::format("{}.{}: shape is not a list of sizes", api, path));
      return;
    }
    tensor.shape.push_back(value);
  }
  tensor.dtype = std::string(dtype);
  tensor.type = model::ElementTypeFromName(dtype);
  tensor.op = api;
  tensor.role = path.substr(0, path.find('.'));
  std::string_view data_name;
  if (object["data_name"].get_string().get(data_name) == simdjson::SUCCESS && data_name != "-1") {
    const std::string_view ext = Extension(data_name);
    tensor.name = std::string(data_name.substr(0, data_name.size() - ext.size()));
  } else {
    tensor.name = api + "." + path;
  }
  if (auto v = object["Max"]; v.error() == simdjson::SUCCESS)
    tensor.stats.max = StatValue(v.value());
  if (auto v = object["Min"]; v.error() == simdjson::SUCCESS)
    tensor.stats.min = StatValue(v.value());
  if (auto v = object["Mean"]; v.error() == simdjson::SUCCESS)
    tensor.stats.mean = StatValue(v.value());
  if (auto v = object["Norm"]; v.error() == simdjson::SUCCESS)
    tensor.stats.norm = StatValue(v.value());
  if (api.starts_with("Module.") || api.starts_with("Cell.")) {
    tensor.module = ModulePathOfModuleName(api);
  } else if (auto it = ctx.parents.find(api); it != ctx.parents.end()) {
    tensor.module = ModulePathOfModuleName(it->second);
  }
  AttachTensorFile(ctx, data_name, &tensor);
  ctx.dump->tensors.push_back(std::move(tensor));
  ctx.ledger->Use();
}

// NOLINTNEXTLINE(misc-no-recursion): dump.json nests tuples a few levels deep at most
void WalkValue(const MsprobeContext& ctx, const std::string& api, const std::string& path,
               simdjson::dom::element value, int depth) {
  if (depth > 32) return;
  simdjson::dom::array array;
  if (value.get_array().get(array) == simdjson::SUCCESS) {
    size_t i = 0;
    for (simdjson::dom::element item : array) {
      WalkValue(ctx, api, fmt::format("{}.{}", path, i++), item, depth + 1);
    }
    return;
  }
  simdjson::dom::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) return;  // a number, None...
  if (IsTensorObject(object)) {
    AddTensor(ctx, api, path, object);
    return;
  }
  for (auto field : object) {
    WalkValue(ctx, api, fmt::format("{}.{}", path, field.key), field.value, depth + 1);
  }
}

void WalkEntry(const MsprobeContext& ctx, std::string_view api, simdjson::dom::element entry) {
  simdjson::dom::object object;
  if (entry.get_object().get(object) != simdjson::SUCCESS) {
    ctx.ledger->CountRead();
    ctx.ledger->Skip(RowIssue::kDumpEntryMalformed, static_cast<int64_t>(ctx.dump->tensors.size()),
                     fmt::format("{}: entry is not an object", api));
    return;
  }
  const std::string name(api);
  for (auto field : object) {
    std::string_view key = field.key;
    if (key == "input_args" || key == "input_kwargs") key = "input";
    WalkValue(ctx, name, std::string(key), field.value, 0);
  }
}

std::map<std::string, std::string, std::less<>> ReadConstruct(const std::string& dir) {
  std::map<std::string, std::string, std::less<>> parents;
  if (dir.empty()) return parents;
  const std::string file = (fs::path(dir) / "construct.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return parents;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.load(file).get(root) != simdjson::SUCCESS) return parents;
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) return parents;
  for (auto field : object) {
    std::string_view parent;
    if (field.value.get_string().get(parent) == simdjson::SUCCESS) {
      parents.emplace(std::string(field.key), std::string(parent));
    }
  }
  return parents;
}

// "step10" < "step9" as text; as numbers the other way round.
bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = a[i] >= '0' && a[i] <= '9', db = b[j] >= '0' && b[j] <= '9';
    if (da && db) {
      size_t ei = i, ej = j;
      while (ei < a.size() && a[ei] >= '0' && a[ei] <= '9') ++ei;
      while (ej < b.size() && b[ej] >= '0' && b[ej] <= '9') ++ej;
      std::string_view na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      while (na.size() > 1 && na[0] == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb[0] == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::optional<int64_t> NumberAfter(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix) || name.size() == prefix.size() ||
      name.size() > prefix.size() + 9) {
    return std::nullopt;
  }
  int64_t value = 0;
  for (char c : name.substr(prefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// Folders "<prefix><N>" directly under |dir| that hold a dump.json (when
// |need_dump| is set), by N.
std::map<int64_t, fs::path> NumberedFolders(const fs::path& dir, std::string_view prefix,
                                            bool need_dump) {
  std::map<int64_t, fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    const std::optional<int64_t> n = NumberAfter(it->path().filename().string(), prefix);
    if (!n) continue;
    if (need_dump && !fs::is_regular_file(it->path() / "dump.json", ec)) continue;
    found.emplace(*n, it->path());
  }
  return found;
}

// msprobe's layout: dump_path/step<N>/rank<M>/dump.json, or proc<PID> for a
// process with no rank (a single-card run); a step folder or a dump_path
// without step folders too. Ranks win over proc folders (msprobe's docs: a
// proc folder beside rank folders is a CPU-only helper process).
std::optional<fs::path> ChooseStepRank(const fs::path& root, const DumpReadOptions& options,
                                       std::string* selected, std::vector<std::string>* others) {
  fs::path dir = root;
  const std::map<int64_t, fs::path> steps = NumberedFolders(root, "step", false);
  if (!steps.empty()) {
    auto step = options.step ? steps.find(*options.step) : steps.begin();
    if (step == steps.end()) return std::nullopt;
    dir = step->second;
    *selected = dir.filename().string();
  }
  std::map<int64_t, fs::path> ranks = NumberedFolders(dir, "rank", true);
  const bool by_rank = !ranks.empty();
  if (!by_rank) ranks = NumberedFolders(dir, "proc", true);
  if (ranks.empty()) return std::nullopt;
  auto chosen = ranks.begin();
  if (options.rank && by_rank) {
    chosen = ranks.find(*options.rank);
    if (chosen == ranks.end()) return std::nullopt;
  }
  *selected += (selected->empty() ? "" : "/") + chosen->second.filename().string();
  for (const auto& [n, path] : ranks) {
    if (n != chosen->first) others->push_back(path.filename().string());
  }
  return chosen->second / "dump.json";
}

std::string StripOrderPrefix(const std::string& relative) {
  // "0003_Functional.linear.1.forward.output.0" -> the name without "0003_":
  // a numeric prefix orders the files and is not part of the name.
  const size_t slash = relative.rfind('/');
  const size_t start = slash == std::string::npos ? 0 : slash + 1;
  size_t i = start;
  while (i < relative.size() && relative[i] >= '0' && relative[i] <= '9') ++i;
  if (i > start && i < relative.size() && (relative[i] == '_' || relative[i] == '-')) {
    return relative.substr(0, start) + relative.substr(i + 1);
  }
  return relative;
}

DumpTensor FolderTensor(const std::string& name, const NpyHeader& header, int64_t order) {
  DumpTensor tensor;
  tensor.name = name;
  tensor.op = name;
  // Files named as msprobe names its tensors ("Functional.linear.3.forward.output.0") belong to
  // the call before ".output" / ".input": the call is what the alignment matches.
  for (std::string_view pass : {std::string_view(".forward."), std::string_view(".backward.")}) {
    if (const size_t at = name.rfind(pass); at != std::string::npos) {
      tensor.op = name.substr(0, at + pass.size() - 1);
      break;
    }
  }
  const size_t slash = name.rfind('/');
  tensor.module = slash == std::string::npos ? "" : name.substr(0, slash);
  tensor.role = "tensor";
  tensor.type = header.type;
  tensor.dtype = std::string(model::ElementTypeName(header.type));
  tensor.shape = header.shape;
  tensor.order = order;
  return tensor;
}

void AddNpyFile(const std::string& file, const std::string& name, int64_t row,
                const DumpReadOptions& options, TensorDump* dump, RowLedger* ledger) {
  ledger->CountRead();
  Result<MappedFile> mapped = MappedFile::Open(file);
  if (!mapped.ok()) {
    ledger->Skip(RowIssue::kTensorBadHeader, row, mapped.status().message());
    return;
  }
  const bool bf16 = options.uint16_as_bf16 || name.ends_with(".bf16");
  Result<NpyHeader> header = ParseNpyHeader(mapped->data(), file, bf16);
  if (!header.ok()) {
    ledger->Skip(IssueOfHeaderError(header.status()), row, header.status().message());
    return;
  }
  DumpTensor tensor = FolderTensor(name, *header, static_cast<int64_t>(dump->tensors.size()));
  model::TensorData data;
  data.file = file;
  data.offset = header->data_offset;
  data.bytes = header->data_bytes;
  data.stored = header->type;
  data.big_endian = header->big_endian;
  data.fortran_order = header->fortran_order;
  tensor.data = std::move(data);
  dump->tensors.push_back(std::move(tensor));
  ledger->Use();
}

void AddNpzFile(const std::string& file, const std::string& name, int64_t row,
                const DumpReadOptions& options, TensorDump* dump, RowLedger* ledger) {
  Result<MappedFile> mapped = MappedFile::Open(file);
  Result<std::vector<NpzMember>> members =
      mapped.ok() ? ReadNpzMembers(mapped->data(), file, options.max_inflated_member)
                  : Result<std::vector<NpzMember>>(mapped.status());
  if (!members.ok()) {
    ledger->CountRead();
    ledger->Skip(RowIssue::kNpzMemberBad, row, members.status().message());
    return;
  }
  for (const NpzMember& member : *members) {
    ledger->CountRead();
    if (!member.error.empty()) {
      ledger->Skip(RowIssue::kNpzMemberBad, row,
                   fmt::format("{}/{}: {}", file, member.name, member.error));
      continue;
    }
    std::string member_name = member.name;
    if (member_name.ends_with(".npy")) member_name.resize(member_name.size() - 4);
    std::string full = name;
    full += '/';
    full += member_name;
    const bool bf16 = options.uint16_as_bf16 || full.ends_with(".bf16");
    const std::string_view bytes = member.inflated
                                       ? std::string_view(*member.inflated)
                                       : mapped->data().substr(member.offset, member.size);
    Result<NpyHeader> header = ParseNpyHeader(bytes, file + "/" + member.name, bf16);
    if (!header.ok()) {
      ledger->Skip(IssueOfHeaderError(header.status()), row, header.status().message());
      continue;
    }
    DumpTensor tensor = FolderTensor(full, *header, static_cast<int64_t>(dump->tensors.size()));
    model::TensorData data;
    data.file = file;
    data.offset = (member.inflated ? 0 : member.offset) + header->data_offset;
    data.bytes = header->data_bytes;
    data.stored = header->type;
    data.big_endian = header->big_endian;
    data.fortran_order = header->fortran_order;
    data.inflated = member.inflated;
    tensor.data = std::move(data);
    dump->tensors.push_back(std::move(tensor));
    ledger->Use();
  }
}

Result<TensorDump> ReadTensorFolder(const fs::path& root, const DumpReadOptions& options) {
  std::vector<std::string> relative;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string ext = it->path().extension().string();
    if (ext != ".npy" && ext != ".npz") continue;
    relative.push_back(fs::relative(it->path(), root, ec).generic_string());
  }
  if (relative.empty()) {
    return NotFound(fmt::format(
        "{}: no dump.json and no .npy/.npz files\nhint: give an msprobe dump (a folder with "
        "dump.json, or its dump_path with step*/rank* folders) or a folder of NumPy tensors",
        root.string()));
  }
  std::sort(relative.begin(), relative.end(),
            [](const std::string& a, const std::string& b) { return NaturalLess(a, b); });
  TensorDump dump;
  dump.root = root.string();
  dump.kind = "tensor folder";
  RowLedger ledger(root.string());
  int64_t row = 0;
  for (const std::string& rel : relative) {
    ++row;
    const std::string file = (root / rel).string();
    std::string name = StripOrderPrefix(rel);
    const bool npz = name.ends_with(".npz");
    name.resize(name.size() - 4);
    if (npz) {
      AddNpzFile(file, name, row, options, &dump, &ledger);
    } else {
      AddNpyFile(file, name, row, options, &dump, &ledger);
    }
  }
  dump.ledgers.push_back(std::move(ledger));
  return dump;
}

}  // namespace

std::string ModulePathOfModuleName(std::string_view module_name) {
  for (std::string_view prefix : {std::string_view("Module."), std::string_view("Cell.")}) {
    if (module_name.starts_with(prefix)) {
      module_name.remove_prefix(prefix.size());
      std::vector<std::string_view> parts;
      size_t start = 0;
      while (start <= module_name.size()) {
        const size_t dot = module_name.find('.', start);
        const size_t end = dot == std::string_view::npos ? module_name.size() : dot;
        parts.push_back(module_name.substr(start, end - start));
        start = end + 1;
      }
      size_t cut = parts.size();
      for (size_t i = parts.size(); i-- > 0;) {
        if (parts[i] == "forward" || parts[i] == "backward" || parts[i] == "parameters_grad") {
          cut = i > 0 ? i - 1 : 0;  // the class name before it goes too
          break;
        }
      }
      std::string path;
      for (size_t i = 0; i < cut; ++i) {
        if (i > 0) path += '.';
        path += parts[i];
      }
      return path;
    }
  }
  return {};
}

namespace {

Status InvalidDumpJson(std::string_view json, const std::string& label,
                       simdjson::error_code error) {
  if (error == simdjson::NUMBER_ERROR) {
    if (std::optional<size_t> at = OffsetOfUnrepresentableNumber(json)) {
      return InvalidInput(
          fmt::format("{}: byte {}: number '{}' is out of a double's range\nhint: msprobe "
                      "writes statistics as doubles; the file was edited or damaged",
                      label, *at, NumberTokenAt(json, *at)));
    }
  }
  return InvalidInput(
      fmt::format("{}: not valid JSON ({})\nhint: msprobe writes dump.json at the "
                  "end of a step; a dump cut off mid-write cannot be read",
                  label, simdjson::error_message(error)));
}

Status NoDataObject(const std::string& label) {
  return InvalidInput(
      fmt::format("{}: no \"data\" object at the top level\nhint: not an "
                  "msprobe dump.json (docs/accuracy.md)",
                  label));
}

// Walks the "data" object one API entry at a time: the on-demand parser
// steps over the document (no tree of the whole dump is built), and each
// entry, a few hundred bytes, is parsed into a small DOM that the walk reads.
// A whole dump.json as one DOM took about three times the file's size.
simdjson::error_code WalkDataObject(const MsprobeContext& ctx, simdjson::ondemand::object data,
                                    simdjson::dom::parser* entry_parser) {
  for (auto field : data) {
    std::string_view api;
    SIMDJSON_TRY(field.unescaped_key().get(api));
    const std::string api_name(api);
    simdjson::ondemand::value value;
    SIMDJSON_TRY(field.value().get(value));
    simdjson::ondemand::json_type type;
    SIMDJSON_TRY(value.type().get(type));
    std::string_view raw;
    if (type == simdjson::ondemand::json_type::object) {
      simdjson::ondemand::object object;
      SIMDJSON_TRY(value.get_object().get(object));
      SIMDJSON_TRY(object.raw_json().get(raw));
    } else if (type == simdjson::ondemand::json_type::array) {
      simdjson::ondemand::array array;
      SIMDJSON_TRY(value.get_array().get(array));
      SIMDJSON_TRY(array.raw_json().get(raw));
    } else {
      raw = value.raw_json_token();
    }
    // |raw| lies inside the padded document, so the bytes after it are
    // readable: the entry parser reads it in place.
    simdjson::dom::element entry;
    SIMDJSON_TRY(entry_parser->parse(raw.data(), raw.size(), false).get(entry));
    WalkEntry(ctx, api_name, entry);
  }
  return simdjson::SUCCESS;
}

// |padded| holds the document with simdjson::SIMDJSON_PADDING bytes after it.
Result<TensorDump> ParsePaddedMsprobeDump(simdjson::padded_string_view padded,
                                          const std::string& label, const std::string& dir,
                                          const DumpReadOptions& options) {
  const std::string_view json(padded.data(), padded.length());
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (auto error = parser.iterate(padded).get(doc)) return InvalidDumpJson(json, label, error);
  // A first pass finds the top object's extent (the structure is walked,
  // nothing is parsed), so content after it is refused as a tree parse would.
  simdjson::ondemand::object top;
  std::string_view extent;
  if (auto error = doc.get_object().get(top)) {
    if (error == simdjson::INCORRECT_TYPE) return NoDataObject(label);
    return InvalidDumpJson(json, label, error);
  }
  if (auto error = top.raw_json().get(extent)) return InvalidDumpJson(json, label, error);
  const size_t end = static_cast<size_t>(extent.data() - json.data()) + extent.size();
  if (json.find_first_not_of(" \t\r\n", end) != std::string_view::npos) {
    return InvalidDumpJson(json, label, simdjson::TRAILING_CONTENT);
  }
  doc.rewind();
  if (auto error = doc.get_object().get(top)) return InvalidDumpJson(json, label, error);
  TensorDump dump;
  dump.kind = "msprobe";
  RowLedger ledger(label);
  const auto parents = ReadConstruct(dir);
  const MsprobeContext ctx{dir, options, parents, &dump, &ledger};
  simdjson::dom::parser entry_parser;
  bool data_seen = false;
  const auto walk_top = [&]() -> simdjson::error_code {
    for (auto field : top) {
      std::string_view key;
      SIMDJSON_TRY(field.unescaped_key().get(key));
      simdjson::ondemand::value value;
      SIMDJSON_TRY(field.value().get(value));
      simdjson::ondemand::json_type type;
      SIMDJSON_TRY(value.type().get(type));
      if (type == simdjson::ondemand::json_type::string) {
        std::string_view text;
        SIMDJSON_TRY(value.get_string().get(text));
        std::string* target = key == "task"        ? &dump.task
                              : key == "level"     ? &dump.level
                              : key == "framework" ? &dump.framework
                                                   : nullptr;
        if (target != nullptr && target->empty()) *target = std::string(text);
      } else if (key == "data" && type == simdjson::ondemand::json_type::object && !data_seen) {
        // The first "data" counts, as a tree lookup would take it.
        data_seen = true;
        simdjson::ondemand::object data;
        SIMDJSON_TRY(value.get_object().get(data));
        SIMDJSON_TRY(WalkDataObject(ctx, data, &entry_parser));
      }
    }
    return simdjson::SUCCESS;
  };
  if (auto error = walk_top()) return InvalidDumpJson(json, label, error);
  if (!data_seen) return NoDataObject(label);
  // Doubling left up to half the records' room unused; the comparison
  // holds both dumps at once.
  dump.tensors.shrink_to_fit();
  dump.ledgers.push_back(std::move(ledger));
  return dump;
}

// Python's json.dump writes bare NaN / Infinity tokens; they are quoted into
// a new padded copy (and the original freed) before parsing.
Result<TensorDump> ParseOwnedMsprobeDump(simdjson::padded_string text, const std::string& label,
                                         const std::string& dir, const DumpReadOptions& options) {
  const std::string_view json(text.data(), text.size());
  if (HasNonFiniteToken(json)) {
    simdjson::padded_string quoted(QuoteNonFiniteTokens(json));
    text = simdjson::padded_string();
    return ParsePaddedMsprobeDump(quoted, label, dir, options);
  }
  return ParsePaddedMsprobeDump(text, label, dir, options);
}

}  // namespace

Result<TensorDump> ParseMsprobeDump(std::string_view json, const std::string& label,
                                    const std::string& dir, const DumpReadOptions& options) {
  return ParseOwnedMsprobeDump(simdjson::padded_string(json), label, dir, options);
}

Result<TensorDump> ReadTensorDump(const std::string& path, const DumpReadOptions& options) {
  std::error_code ec;
  const fs::path p(path);
  if (!fs::exists(p, ec)) {
    return NotFound(fmt::format("{}: no such file or directory", path));
  }
  fs::path json;
  std::string selected;
  std::vector<std::string> others;
  if (fs::is_regular_file(p, ec)) {
    if (p.extension() != ".json") {
      return InvalidInput(
          fmt::format("{}: not a dump\nhint: give dump.json, its folder, or a "
                      "folder of .npy/.npz files",
                      path));
    }
    json = p;
  } else if (fs::is_regular_file(p / "dump.json", ec)) {
    json = p / "dump.json";
  } else if (std::optional<fs::path> chosen = ChooseStepRank(p, options, &selected, &others)) {
    json = *chosen;
  } else {
    return ReadTensorFolder(p, options);
  }
  // The bytes are copied with pread into a padded buffer, never faulted in
  // through the mapping: the file's pages are not resident beside the copy.
  Result<MappedFile> mapped = MappedFile::Open(json.string());
  if (!mapped.ok()) return mapped.status();
  simdjson::padded_string text(mapped->size());
  if (!mapped->ReadAt(0, mapped->size(), text.data())) {
    if (Status intact = mapped->CheckIntact(); !intact.ok()) return intact;
    return IoError(fmt::format("{}: read failed: {}", json.string(), std::strerror(errno)));
  }
  Result<TensorDump> dump =
      ParseOwnedMsprobeDump(std::move(text), json.string(), json.parent_path().string(), options);
  if (!dump.ok()) return dump;
  dump->root = path;
  dump->selected = selected;
  dump->other_ranks = std::move(others);
  return dump;
}

}  // namespace trainscope::formats
