// trainscope._native: the C++ library as a Python extension (pybind11).
//
// Two entry points, both with the GIL released while they work:
// - run(args): any trainscope command, in-process, with its stdout and
//   stderr handed back (cli::RunCaptured). The Python package builds
//   analyze / compare / health / accuracy / triage on it, so a result in
//   Python is the CLI's own JSON document, byte for byte.
// - kernels(paths, ...): every device task of the ranks under |paths| as
//   columns. Numeric columns are moved out of the loaded rank's table into a
//   Column that Python reads through the buffer protocol (numpy.asarray
//   shares its memory: no per-row Python object); string columns become
//   dense codes plus their categories (a pandas Categorical).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/common/family_rules.h"
#include "cli/app.h"
#include "cli/job_loader.h"
#include "core/parallel.h"
#include "core/string_pool.h"
#include "formats/load_profiles.h"
#include "model/activity_kind.h"
#include "model/rank_profile.h"

namespace py = pybind11;

namespace trainscope::python {
namespace {

// An input the CLI would refuse (exit 2): raised in Python as
// trainscope._native.Error with the CLI's message and hint.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One column's values, owned here for as long as Python holds a view of it.
class Column {
 public:
  template <typename T>
  static Column Of(std::vector<T>&& values) {
    auto owned = std::make_shared<std::vector<T>>(std::move(values));
    Column column;
    column.data_ = owned->data();
    column.size_ = owned->size();
    column.item_size_ = sizeof(T);
    column.format_ = py::format_descriptor<T>::format();
    column.owner_ = std::move(owned);
    return column;
  }
  // A sparse column (model/columnar.h) with every row: its stored rows, or
  // its absent value on each.
  template <typename T>
  static Column Of(model::columnar::SparseColumn<T>&& values) {
    if (std::vector<T>* stored = values.stored_values()) return Of(std::move(*stored));
    return Of(std::vector<T>(values.size(), values.absent()));
  }

  py::buffer_info Buffer() const {
    return py::buffer_info(data_, static_cast<py::ssize_t>(item_size_), format_, 1,
                           {static_cast<py::ssize_t>(size_)},
                           {static_cast<py::ssize_t>(item_size_)}, /*readonly=*/true);
  }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t item_size_ = 1;
  std::string format_;
  std::shared_ptr<void> owner_;
};

// A string column as dense codes 0..k-1 (in first-appearance order) and the
// k distinct strings: the pool holds every string of the rank (names,
// types, shapes), and a Categorical of one column should list only its own.
struct CodedStrings {
  std::vector<int32_t> codes;
  std::vector<std::string> categories;
};

CodedStrings Encode(const std::vector<StringId>& ids, const StringPool& pool) {
  CodedStrings coded;
  coded.codes.reserve(ids.size());
  std::vector<int32_t> code_of(pool.size(), -1);
  for (const StringId id : ids) {
    int32_t& code = code_of[id];
    if (code < 0) {
      code = static_cast<int32_t>(coded.categories.size());
      coded.categories.emplace_back(pool.Get(id));
    }
    coded.codes.push_back(code);
  }
  return coded;
}

// The input shapes of every row (the rows hold one id of their four tensor
// strings).
std::vector<StringId> InputShapes(const model::DeviceEvents& events) {
  std::vector<StringId> shapes(events.size());
  for (size_t i = 0; i < events.size(); ++i) shapes[i] = events.tensors_of(i).input_shapes;
  return shapes;
}

// The family of every row, classified once per distinct (name, type, kind).
CodedStrings Families(const model::DeviceEvents& events, const StringPool& pool,
                      const analysis::FamilyRules& rules) {
  CodedStrings coded;
  coded.categories = rules.families();
  coded.codes.reserve(events.size());
  struct Key {
    StringId name;
    StringId op_type;
    model::ActivityKind kind;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& key) const {
      return std::hash<uint64_t>()((uint64_t{key.name} << 32) ^ (uint64_t{key.op_type} << 2) ^
                                   static_cast<uint64_t>(key.kind));
    }
  };
  std::unordered_map<Key, int32_t, KeyHash> family_of;
  for (size_t row = 0; row < events.size(); ++row) {
    const Key key{events.name[row], events.op_type[row], events.kind[row]};
    auto [it, added] = family_of.try_emplace(key, 0);
    if (added) {
      it->second =
          static_cast<int32_t>(rules.Classify(pool.Get(key.op_type), pool.Get(key.name), key.kind));
    }
    coded.codes.push_back(it->second);
  }
  return coded;
}

CodedStrings Kinds(const std::vector<model::ActivityKind>& kinds) {
  CodedStrings coded;
  // A kind's code is its value: the categories are indexed by value.
  for (const auto& row : model::kActivityKindNames.rows()) {
    const auto value = static_cast<size_t>(row.value);
    if (coded.categories.size() <= value) coded.categories.resize(value + 1);
    coded.categories[value] = std::string(row.name);
  }
  coded.codes.reserve(kinds.size());
  for (const model::ActivityKind kind : kinds) coded.codes.push_back(static_cast<int32_t>(kind));
  return coded;
}

// One rank's device tasks, ready for Python.
struct RankKernels {
  int32_t rank = -1;
  std::string source;  // the rank's directory or trace file
  std::string from;    // the file its device tasks came from
  std::vector<std::pair<std::string, Column>> numeric;
  std::vector<std::pair<std::string, CodedStrings>> strings;
};

RankKernels TakeKernels(model::RankProfile&& profile, const analysis::FamilyRules& families) {
  RankKernels out;
  out.rank = profile.rank;
  out.source = profile.source_dir;
  out.from = profile.device_events_from;
  model::DeviceEvents& events = profile.device_events;
  const StringPool& pool = profile.strings;
  // Coded before the columns they read are moved away.
  out.strings.emplace_back("name", Encode(events.name, pool));
  out.strings.emplace_back("op_type", Encode(events.op_type, pool));
  out.strings.emplace_back("accelerator", Encode(events.accelerator, pool));
  out.strings.emplace_back("kind", Kinds(events.kind));
  out.strings.emplace_back("family", Families(events, pool, families));
  out.strings.emplace_back("input_shapes", Encode(InputShapes(events), pool));
  out.numeric.emplace_back("step", Column::Of(std::move(events.step)));
  out.numeric.emplace_back("start_ns", Column::Of(std::move(events.start_ns)));
  out.numeric.emplace_back("duration_ns", Column::Of(std::move(events.duration_ns)));
  out.numeric.emplace_back("wait_ns", Column::Of(std::move(events.wait_ns)));
  out.numeric.emplace_back("stream", Column::Of(std::move(events.stream)));
  out.numeric.emplace_back("device", Column::Of(std::move(events.device)));
  out.numeric.emplace_back("block_dim", Column::Of(std::move(events.block_dim)));
  out.numeric.emplace_back("op_type_derived", Column::Of(std::move(events.op_type_derived)));
  return out;
}

struct KernelsResult {
  std::vector<RankKernels> ranks;
  std::vector<std::pair<std::string, std::string>> failed;  // (path, reason)
};

// Loads the ranks under |paths| (only |rank| when given) and takes their
// device tasks. Errors carry the CLI's message and hint.
KernelsResult LoadKernels(const std::vector<std::string>& paths, std::optional<int32_t> rank,
                          unsigned threads, const std::string& families_file,
                          const std::string& activity_rules_file) {
  Result<cli::LoadedRules> rules = cli::LoadRuleFiles({families_file, "", activity_rules_file, ""});
  if (!rules.ok()) throw InputError(rules.status().message());
  std::mutex taken;
  std::map<size_t, RankKernels> by_index;  // discovery order, as the CLI's job
  const std::vector<model::ClassRule>* activity_rules =
      rules->activity_rules ? &*rules->activity_rules : nullptr;
  Result<formats::StreamedProfiles> streamed = formats::ForEachProfile(
      paths, ClampThreads(threads), activity_rules,
      [&](size_t index, unsigned /*rank_threads*/, model::RankProfile&& profile) {
        if (rank && profile.rank != *rank) return;
        RankKernels kernels = TakeKernels(std::move(profile), rules->rules);
        const std::lock_guard<std::mutex> lock(taken);
        by_index.emplace(index, std::move(kernels));
      });
  if (!streamed.ok()) throw InputError(streamed.status().message());
  KernelsResult result;
  for (auto& [index, kernels] : by_index) result.ranks.push_back(std::move(kernels));
  std::stable_sort(result.ranks.begin(), result.ranks.end(),
                   [](const RankKernels& a, const RankKernels& b) { return a.rank < b.rank; });
  for (const model::InputIssue& issue : streamed->failed) {
    result.failed.emplace_back(issue.path, issue.reason);
  }
  return result;
}

py::dict CodedToPython(CodedStrings&& coded) {
  py::dict out;
  out["codes"] = Column::Of(std::move(coded.codes));
  out["categories"] = std::move(coded.categories);
  return out;
}

}  // namespace
}  // namespace trainscope::python

PYBIND11_MODULE(_native, m) {
  using trainscope::python::Column;
  namespace tp = trainscope::python;
  m.doc() = "trainscope's C++ library; use the trainscope package, not this module";
  m.attr("version") = trainscope::cli::kVersion;
  py::register_exception<tp::InputError>(m, "Error");

  py::class_<Column>(m, "Column", py::buffer_protocol(),
                     "One column of a kernel table; numpy.asarray(column) shares its memory")
      .def_buffer([](const Column& column) { return column.Buffer(); })
      .def("__len__", &Column::size);

  m.def(
      "run",
      [](const std::vector<std::string>& args) {
        trainscope::cli::CapturedRun run;
        {
          const py::gil_scoped_release release;
          run = trainscope::cli::RunCaptured(args);
        }
        // stdout may hold any bytes (a document, names from a profile);
        // stderr is text for a message, decoded leniently.
        py::bytes out(run.out);
        py::str err = py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
            run.err.data(), static_cast<py::ssize_t>(run.err.size()), "replace"));
        return py::make_tuple(run.exit_code, out, err);
      },
      py::arg("args"),
      "Runs one trainscope command (args without the program name) in-process; returns "
      "(exit_code, stdout bytes, stderr text).");

  m.def(
      "kernels",
      [](const std::vector<std::string>& paths, std::optional<int32_t> rank, unsigned threads,
         const std::string& families_file, const std::string& activity_rules_file) {
        tp::KernelsResult result;
        {
          const py::gil_scoped_release release;
          result = tp::LoadKernels(paths, rank, threads, families_file, activity_rules_file);
        }
        py::list ranks;
        for (tp::RankKernels& kernels : result.ranks) {
          py::dict entry;
          entry["rank"] = kernels.rank;
          entry["source"] = kernels.source;
          entry["from"] = kernels.from;
          py::dict columns;
          for (auto& [name, column] : kernels.numeric) columns[py::str(name)] = std::move(column);
          py::dict strings;
          for (auto& [name, coded] : kernels.strings) {
            strings[py::str(name)] = tp::CodedToPython(std::move(coded));
          }
          entry["columns"] = std::move(columns);
          entry["strings"] = std::move(strings);
          ranks.append(std::move(entry));
        }
        py::list failed;
        for (auto& [path, reason] : result.failed) failed.append(py::make_tuple(path, reason));
        return py::make_tuple(ranks, failed);
      },
      py::arg("paths"), py::arg("rank") = py::none(), py::arg("threads") = 0,
      py::arg("families_file") = "", py::arg("activity_rules_file") = "",
      "Every device task of the ranks under paths (only `rank` when given), as columns.");
}
