#include "analysis/common/findings_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/numbers.h"
#include "core/rule_file.h"

namespace trainscope::embedded {
extern const unsigned char kBuiltinFindingsTsv[];
extern const unsigned char kBuiltinThresholdsTsv[];
}  // namespace trainscope::embedded

namespace trainscope::analysis {
namespace {

struct Binding {
  const char* key;
  double FindingThresholds::*member;
};

constexpr Binding kBindings[] = {
    {"exposed_comm_normal", &FindingThresholds::exposed_comm_normal},
    {"exposed_comm_examine", &FindingThresholds::exposed_comm_examine},
    {"device_free_normal", &FindingThresholds::device_free_normal},
    {"dominant_operator", &FindingThresholds::dominant_operator},
    {"pipe_operator_min_share", &FindingThresholds::pipe_operator_min_share},
    {"pipe_top_operators", &FindingThresholds::pipe_top_operators},
    {"pipe_busy", &FindingThresholds::pipe_busy},
    {"pipe_low", &FindingThresholds::pipe_low},
    {"fingerprint_min_instances", &FindingThresholds::fingerprint_min_instances},
    {"straggler_gain_cap_pct", &FindingThresholds::straggler_gain_cap_pct},
    {"skew_wait_pct", &FindingThresholds::skew_wait_pct},
    {"skew_residual_pct", &FindingThresholds::skew_residual_pct},
    {"skew_min_gain_pct", &FindingThresholds::skew_min_gain_pct},
    {"pseudo_overlap_pct", &FindingThresholds::pseudo_overlap_pct},
    {"pseudo_overlap_min_count", &FindingThresholds::pseudo_overlap_min_count},
    {"pseudo_overlap_min_share", &FindingThresholds::pseudo_overlap_min_share},
    {"slow_link_ratio", &FindingThresholds::slow_link_ratio},
    {"slow_link_min_mb", &FindingThresholds::slow_link_min_mb},
    {"fragmented_min_slices", &FindingThresholds::fragmented_min_slices},
    {"fragmented_min_share", &FindingThresholds::fragmented_min_share},
    {"comm_resume_us", &FindingThresholds::comm_resume_us},
    {"pseudo_overlap_min_idle_us", &FindingThresholds::pseudo_overlap_min_idle_us},
    {"small_collective_ms", &FindingThresholds::small_collective_ms},
    {"small_collective_kb", &FindingThresholds::small_collective_kb},
    {"straggler_min_flag_share", &FindingThresholds::straggler_min_flag_share},
    {"straggler_min_instances", &FindingThresholds::straggler_min_instances},
    {"straggler_min_last_share", &FindingThresholds::straggler_min_last_share},
    {"straggler_chance_p", &FindingThresholds::straggler_chance_p},
    {"compare_same_pct", &FindingThresholds::compare_same_pct},
    {"replay_max_error_pct", &FindingThresholds::replay_max_error_pct},
    {"straggler_min_lateness_us", &FindingThresholds::straggler_min_lateness_us},
    {"straggler_min_step_share", &FindingThresholds::straggler_min_step_share},
    {"straggler_start_late_pct", &FindingThresholds::straggler_start_late_pct},
    {"stage_imbalance_pct", &FindingThresholds::stage_imbalance_pct},
    {"input_idle_normal", &FindingThresholds::input_idle_normal},
    {"dynamic_shape_min_share", &FindingThresholds::dynamic_shape_min_share},
    {"online_compile_pct", &FindingThresholds::online_compile_pct},
    {"matmul_yardstick_min_share", &FindingThresholds::matmul_yardstick_min_share},
    {"slow_matmul_min_share", &FindingThresholds::slow_matmul_min_share},
    {"slow_matmul_relative", &FindingThresholds::slow_matmul_relative},
    {"slow_matmul_min_gain_pct", &FindingThresholds::slow_matmul_min_gain_pct},
    {"fragmentation_min_gap_share", &FindingThresholds::fragmentation_min_gap_share},
    {"memory_peak_holder_share", &FindingThresholds::memory_peak_holder_share},
    {"oom_headroom_share", &FindingThresholds::oom_headroom_share},
    {"judge_min_kernels", &FindingThresholds::judge_min_kernels},
    {"memory_imbalance_share", &FindingThresholds::memory_imbalance_share},
    {"health_window", &FindingThresholds::health_window},
    {"loss_spike_z", &FindingThresholds::loss_spike_z},
    {"loss_spike_min_rise", &FindingThresholds::loss_spike_min_rise},
    {"grad_explosion_ratio", &FindingThresholds::grad_explosion_ratio},
    {"hang_ratio", &FindingThresholds::hang_ratio},
    {"throughput_drop_share", &FindingThresholds::throughput_drop_share},
    {"step_time_drift_share", &FindingThresholds::step_time_drift_share},
    {"slow_warmup_share", &FindingThresholds::slow_warmup_share},
    {"slow_warmup_min_records", &FindingThresholds::slow_warmup_min_records},
    {"periodic_spike_share", &FindingThresholds::periodic_spike_share},
    {"periodic_min_spikes", &FindingThresholds::periodic_min_spikes},
    {"mfu_mismatch_share", &FindingThresholds::mfu_mismatch_share},
    {"loss_early_rise_share", &FindingThresholds::loss_early_rise_share},
    {"loss_divergence_share", &FindingThresholds::loss_divergence_share},
    {"overflow_skip_share", &FindingThresholds::overflow_skip_share},
    {"overflow_min_skips", &FindingThresholds::overflow_min_skips},
    {"rank_outlier_share", &FindingThresholds::rank_outlier_share},
};

const Binding* FindBinding(std::string_view key) {
  for (const Binding& b : kBindings) {
    if (key == b.key) return &b;
  }
  return nullptr;
}

std::string KnownKeys() {
  std::string s;
  for (const Binding& b : kBindings) s += fmt::format("{}{}", s.empty() ? "" : ", ", b.key);
  return s;
}

constexpr std::string_view kUnits[] = {"share", "pct", "ratio", "count", "factor",
                                       "us",    "ms",  "kb",    "mb"};
constexpr std::string_view kParts[] = {"title", "evidence", "cause", "remedy", "gain"};
constexpr std::string_view kThresholdPrefix = "threshold.";

// A value a threshold of |unit| can take: shares and ratios in [0, 1],
// percentages in [0, 100], counts whole and >= 0, factors (a multiple of
// what the threshold is relative to: 10x the median), latencies and sizes
// (us, ms, kb, mb) any finite value >= 0.
Status CheckValue(double v, std::string_view unit, const std::string& where) {
  const bool measure =
      unit == "us" || unit == "ms" || unit == "kb" || unit == "mb" || unit == "factor";
  const bool ok = std::isfinite(v) && v >= 0 &&
                  (unit == "share" || unit == "ratio" ? v <= 1
                   : unit == "pct"                    ? v <= 100
                   : measure                          ? true
                                                      : v == std::floor(v));
  if (ok) return Status::Ok();
  return InvalidInput(fmt::format(
      "{}: value {} out of range for unit '{}' (share/ratio: 0-1, pct: 0-100, count: a whole "
      "number >= 0, factor/us/ms/kb/mb: >= 0)",
      where, v, unit));
}

Result<double> ParseValue(std::string_view text, const std::string& where) {
  const std::optional<double> v = ParseDouble(text);
  if (!v) {
    return InvalidInput(
        fmt::format("{}: '{}' is not a number (hint: key value [unit ...], "
                    "separated by a TAB or two spaces)",
                    where, text));
  }
  return *v;
}

Status ParseThresholds(std::string_view text, const std::string& name,
                       std::vector<ThresholdInfo>* info, FindingThresholds* t) {
  return ForEachRuleLine(
      text,
      [&](size_t line, std::string_view, const std::vector<std::string_view>& cols) -> Status {
        const std::string where = fmt::format("{}:{}", name, line);
        if (cols.size() != 5) {
          return InvalidInput(fmt::format(
              "{}: a threshold row has 5 columns (key value unit relative_to origin), got {}",
              where, cols.size()));
        }
        const Binding* b = FindBinding(cols[0]);
        if (b == nullptr) {
          return InvalidInput(fmt::format("{}: unknown threshold key '{}' (known: {})", where,
                                          cols[0], KnownKeys()));
        }
        if (std::find(std::begin(kUnits), std::end(kUnits), cols[2]) == std::end(kUnits)) {
          return InvalidInput(
              fmt::format("{}: unit '{}' is not one of share, pct, ratio, count, us, ms, kb, mb",
                          where, cols[2]));
        }
        TS_ASSIGN_OR_RETURN(const double v, ParseValue(cols[1], where));
        TS_RETURN_IF_ERROR(CheckValue(v, cols[2], where));
        for (const ThresholdInfo& i : *info) {
          if (i.key == cols[0])
            return InvalidInput(fmt::format("{}: '{}' set twice", where, cols[0]));
        }
        info->push_back(ThresholdInfo{std::string(cols[0]), v, std::string(cols[2]),
                                      std::string(cols[3]), std::string(cols[4]), where});
        t->*(b->member) = v;
        return Status::Ok();
      });
}

Status CheckEntry(const FindingEntry& e, const std::vector<ThresholdInfo>& thresholds) {
  auto known_threshold = [&](std::string_view key) {
    return std::any_of(thresholds.begin(), thresholds.end(),
                       [&](const ThresholdInfo& i) { return i.key == key; });
  };
  for (const std::string& key : e.thresholds) {
    if (!known_threshold(key))
      return InvalidInput(fmt::format("{}: {} uses unknown threshold '{}'", e.source, e.id, key));
  }
  for (const auto& [part, tmpl] : e.parts) {
    std::vector<Placeholder> placeholders;
    const std::string& where = e.part_source.at(part);
    Status s = CheckTemplate(tmpl, &placeholders);
    if (!s.ok()) return InvalidInput(fmt::format("{}: {} {}: {}", where, e.id, part, s.message()));
    for (const Placeholder& p : placeholders) {
      const std::string_view name = p.name;
      const bool ok = name.substr(0, kThresholdPrefix.size()) == kThresholdPrefix
                          ? known_threshold(name.substr(kThresholdPrefix.size()))
                          : std::find(e.values.begin(), e.values.end(), name) != e.values.end();
      if (!ok) {
        return InvalidInput(fmt::format(
            "{}: {} {}: unknown placeholder '{{{}}}' (not in its values row nor a threshold.KEY)",
            where, e.id, part, name));
      }
    }
  }
  return Status::Ok();
}

Status ParseFindings(std::string_view text, const std::string& name,
                     std::vector<FindingEntry>* entries) {
  return ForEachRuleLine(
      text,
      [&](size_t line, std::string_view, const std::vector<std::string_view>& cols) -> Status {
        const std::string where = fmt::format("{}:{}", name, line);
        if (cols.size() != 3) {
          return InvalidInput(
              fmt::format("{}: a findings row has 3 columns (id part text), got {} (two spaces in "
                          "a text split it)",
                          where, cols.size()));
        }
        const std::string id(cols[0]);
        if (entries->empty() || entries->back().id != id) {
          for (const FindingEntry& e : *entries) {
            if (e.id == id)
              return InvalidInput(fmt::format("{}: rows of '{}' must be together", where, id));
          }
          entries->push_back(FindingEntry{id, {}, {}, {}, {}, where});
        }
        FindingEntry& e = entries->back();
        const std::string_view part = cols[1];
        auto words = [](std::string_view s) {
          std::vector<std::string> out;
          for (size_t i = 0; i < s.size();) {
            const size_t end = std::min(s.find(' ', i), s.size());
            if (end > i) out.emplace_back(s.substr(i, end - i));
            i = end + 1;
          }
          return out;
        };
        if (part == "values" || part == "thresholds") {
          auto list = words(cols[2] == "-" ? std::string_view() : cols[2]);
          (part == "values" ? e.values : e.thresholds) = std::move(list);
          return Status::Ok();
        }
        const std::string_view base = part.substr(0, part.find_first_of("@:"));
        if (std::find(std::begin(kParts), std::end(kParts), base) == std::end(kParts)) {
          return InvalidInput(
              fmt::format("{}: part '{}' is not one of values, thresholds, title, evidence, cause, "
                          "remedy, gain "
                          "(optionally PART@VARIANT, PART:PLATFORM or PART@VARIANT:PLATFORM)",
                          where, part));
        }
        if (const size_t colon = part.find(':'); colon != std::string_view::npos) {
          const std::string_view platform = part.substr(colon + 1);
          if (!model::ParsePlatformKey(platform)) {
            return InvalidInput(
                fmt::format("{}: part '{}': platform '{}' is not one of ascend, gpu, cuda, rocm",
                            where, part, platform));
          }
        }
        if (!e.parts.emplace(std::string(part), std::string(cols[2])).second)
          return InvalidInput(fmt::format("{}: {} {} given twice", where, id, part));
        e.part_source.emplace(std::string(part), where);
        return Status::Ok();
      });
}

}  // namespace

const std::string& FindingEntry::Part(const std::string& part, const std::string& variant,
                                      model::Platform platform) const {
  static const std::string kNone;
  const std::string_view platform_key = model::PlatformKey(platform);
  const bool gpu = model::PlatformMatches(platform, "gpu");
  auto find = [&](const std::string& base, std::string_view suffix) -> const std::string* {
    std::string key = base;
    if (!suffix.empty()) key.append(":").append(suffix);
    auto it = parts.find(key);
    return it == parts.end() ? nullptr : &it->second;
  };
  // |variant| may name several, "examine+megatron": each in turn.
  std::vector<std::string> bases;
  for (size_t begin = 0; begin < variant.size();) {
    const size_t end = std::min(variant.find('+', begin), variant.size());
    if (end > begin) {
      bases.push_back(std::string(part).append("@").append(variant, begin, end - begin));
    }
    begin = end + 1;
  }
  bases.push_back(part);
  // Most specific first: this platform, any GPU, every platform.
  std::vector<std::string_view> suffixes = {platform_key};
  if (gpu) suffixes.emplace_back("gpu");
  suffixes.emplace_back("");
  for (const std::string& base : bases) {
    for (std::string_view suffix : suffixes) {
      if (const std::string* text = find(base, suffix)) return *text;
    }
  }
  return kNone;
}

Result<FindingCatalog> FindingCatalog::Parse(std::string_view findings_tsv,
                                             const std::string& findings_name,
                                             std::string_view thresholds_tsv,
                                             const std::string& thresholds_name) {
  FindingCatalog c;
  TS_RETURN_IF_ERROR(
      ParseThresholds(thresholds_tsv, thresholds_name, &c.threshold_info_, &c.thresholds_));
  for (const Binding& b : kBindings) {
    if (c.FindThreshold(b.key) == nullptr)
      return InvalidInput(fmt::format("{}: threshold '{}' is missing", thresholds_name, b.key));
  }
  TS_RETURN_IF_ERROR(ParseFindings(findings_tsv, findings_name, &c.entries_));
  for (const FindingEntry& e : c.entries_) TS_RETURN_IF_ERROR(CheckEntry(e, c.threshold_info_));
  return c;
}

const FindingCatalog& FindingCatalog::Builtin() {
  static const FindingCatalog* catalog = [] {
    auto parsed = Parse(
        reinterpret_cast<const char*>(embedded::kBuiltinFindingsTsv), "data/findings.tsv",
        reinterpret_cast<const char*>(embedded::kBuiltinThresholdsTsv), "data/thresholds.tsv");
    // The built-in tables are tested (findings_catalog_test); an error here
    // is a bug in a data file.
    return new FindingCatalog(parsed.ok() ? std::move(parsed).value() : FindingCatalog());
  }();
  return *catalog;
}

Status FindingCatalog::OverrideThresholds(std::string_view text, const std::string& name) {
  return ForEachRuleLine(
      text,
      [&](size_t line, std::string_view, const std::vector<std::string_view>& cols) -> Status {
        const std::string where = fmt::format("{}:{}", name, line);
        if (cols.size() < 2 || cols.size() > 5) {
          return InvalidInput(fmt::format(
              "{}: a threshold row is: key value [unit [relative_to [origin]]], got {} columns",
              where, cols.size()));
        }
        const Binding* b = FindBinding(cols[0]);
        ThresholdInfo* info = nullptr;
        for (ThresholdInfo& i : threshold_info_) {
          if (i.key == cols[0]) info = &i;
        }
        if (b == nullptr || info == nullptr) {
          return InvalidInput(fmt::format(
              "{}: unknown threshold key '{}' (hint: `trainscope explain` lists ids and their "
              "thresholds; known keys: {})",
              where, cols[0], KnownKeys()));
        }
        if (cols.size() >= 3 && cols[2] != info->unit) {
          return InvalidInput(fmt::format("{}: '{}' is in unit '{}', not '{}'", where, info->key,
                                          info->unit, cols[2]));
        }
        TS_ASSIGN_OR_RETURN(const double v, ParseValue(cols[1], where));
        TS_RETURN_IF_ERROR(CheckValue(v, info->unit, where));
        info->value = v;
        info->source = where;
        if (cols.size() == 5) info->origin = std::string(cols[4]);
        thresholds_.*(b->member) = v;
        return Status::Ok();
      });
}

const ThresholdInfo* FindingCatalog::FindThreshold(std::string_view key) const {
  for (const ThresholdInfo& i : threshold_info_) {
    if (i.key == key) return &i;
  }
  return nullptr;
}

const FindingEntry* FindingCatalog::Find(std::string_view id) const {
  for (const FindingEntry& e : entries_) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

const FindingEntry* FindingCatalog::EntryFor(std::string_view id) const {
  const FindingEntry* e = Find(id);
  return e != nullptr ? e : Find("fingerprint");
}

std::string FindingCatalog::RenderPart(const std::string& tmpl, const Finding& f,
                                       std::vector<std::string>* missing) const {
  return RenderTemplate(
      tmpl,
      [&](std::string_view name, TemplateValue* v) {
        if (name.substr(0, kThresholdPrefix.size()) == kThresholdPrefix) {
          const ThresholdInfo* t = FindThreshold(name.substr(kThresholdPrefix.size()));
          if (t == nullptr) return false;
          v->number = t->value;
          return true;
        }
        for (const auto* list : {&f.text_values, &f.evidence_values}) {
          for (const auto& [key, number] : *list) {
            if (key == name) {
              v->number = number;
              return true;
            }
          }
        }
        for (const auto& [key, text] : f.text_labels) {
          if (key == name) {
            v->text = text;
            v->is_text = true;
            return true;
          }
        }
        return false;
      },
      missing);
}

void RenderFindings(const FindingCatalog& catalog, std::vector<Finding>* findings,
                    model::Platform platform) {
  for (Finding& f : *findings) catalog.Render(&f, f.template_entry, platform);
}

std::vector<std::string> FindingCatalog::Render(Finding* f, std::string_view entry_id,
                                                model::Platform platform) const {
  std::vector<std::string> missing;
  const FindingEntry* e = entry_id.empty() ? EntryFor(f->id) : Find(entry_id);
  if (e == nullptr) return {"entry:" + f->id};
  auto part = [&](const char* name) {
    return RenderPart(e->Part(name, f->variant, platform), *f, &missing);
  };
  f->title = part("title");
  f->evidence = part("evidence");
  f->root_cause = part("cause");
  f->remedy = part("remedy");
  // A withheld gain keeps the reason it was withheld as its model.
  if (!f->gain_withheld) f->gain_model = part("gain");
  return missing;
}

}  // namespace trainscope::analysis
