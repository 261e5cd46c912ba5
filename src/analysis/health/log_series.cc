#include "analysis/health/log_series.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace trainscope::analysis {
namespace {

struct SeriesRankState {
  int run = 0;  // runs seen on this rank
  int64_t last_step = 0;
};

struct SeriesLineIndex {
  int64_t line = 0;
  size_t series = 0;
};

// The series of the last record at or before |line| (the first series when
// none is).
size_t SeriesOfLine(const std::vector<SeriesLineIndex>& index, int64_t line) {
  auto it = std::upper_bound(index.begin(), index.end(), line,
                             [](int64_t l, const SeriesLineIndex& e) { return l < e.line; });
  return it == index.begin() ? 0 : std::prev(it)->series;
}

// Whether every record is of one series: one rank and engine, and no step
// at or below the one before it (which would start a run). Each column read
// a block at a time: on a log of millions of lines this runs alone, between
// the read and the judgement.
bool OneSeries(const model::TrainingRecords& records) {
  if (records.empty()) return false;
  const int32_t rank = records.rank(0);
  const uint8_t engine = records.engine(0);
  bool one = true;
  records.ForEachWhole(&model::TrainingRecord::rank,
                       [&](size_t, int32_t r) { one = one && r == rank; });
  records.ForEachWhole(&model::TrainingRecord::engine,
                       [&](size_t, uint8_t e) { one = one && e == engine; });
  if (!one) return false;
  std::vector<uint8_t> ordinal(records.size());
  records.ForEachWhole(&model::TrainingRecord::step_is_ordinal,
                       [&](size_t i, bool o) { ordinal[i] = o ? 1 : 0; });
  int64_t last_step = 0;
  records.ForEachWhole(&model::TrainingRecord::step, [&](size_t i, int64_t step) {
    if (i > 0 && ordinal[i] == 0 && step <= last_step) one = false;
    last_step = step;
  });
  return one;
}

}  // namespace

std::vector<LogSeries> SplitLogSeries(model::TrainingLog&& log) {
  std::vector<LogSeries> series;
  if (OneSeries(log.records)) {
    // The log is the series as it is: its records are not decoded and
    // packed again (a fifth of `health` on a log of millions of lines).
    LogSeries s;
    const int32_t rank = log.records.rank(0);
    const uint8_t engine = log.records.engine(0);
    if (rank >= 0) s.rank = rank;
    // Every record an engine line: the log's format (its first record's)
    // is DeepSpeed's already.
    if (engine > 0) s.engine = engine;
    s.log = std::move(log);
    series.push_back(std::move(s));
    return series;
  }
  std::map<std::tuple<int, int, int>, size_t> by_key;    // (run, rank, engine) -> series
  std::map<std::pair<int, int>, SeriesRankState> ranks;  // (rank, engine)
  // The series of each record by line, for the error lines and silences.
  // Lines in file order (every log but a metrics JSON, whose records are in
  // step order): one entry per change of series is the same answer as one
  // per record.
  bool lines_in_order = true;
  for (size_t i = 1; i < log.records.size() && lines_in_order; ++i) {
    lines_in_order = log.records.line(i - 1) <= log.records.line(i);
  }
  std::vector<SeriesLineIndex> index;
  if (!lines_in_order) index.reserve(log.records.size());
  // Each block of the log's records is released once read.
  log.records.Drain([&](const model::TrainingRecord& r) {
    SeriesRankState& state = ranks[{r.rank, r.engine}];
    std::string start;
    std::optional<int64_t> back_from;
    if (state.run == 0) {
      state.run = 1;
    } else if (!r.step_is_ordinal && r.step <= state.last_step) {
      start = r.step <= 1 ? "restart" : "resume";
      back_from = state.last_step;
      ++state.run;
    }
    state.last_step = r.step;
    const std::tuple<int, int, int> key(state.run, r.rank, r.engine);
    auto [it, added] = by_key.try_emplace(key, series.size());
    if (added) {
      LogSeries s;
      s.log.path = log.path;
      s.log.format = r.engine > 0 ? model::LogFormat::kDeepSpeed : log.format;
      s.log.bytes = log.bytes;
      s.run = state.run;
      if (r.rank >= 0) s.rank = r.rank;
      if (r.engine > 0) s.engine = r.engine;
      s.start = std::move(start);
      s.back_from_step = back_from;
      series.push_back(std::move(s));
    }
    series[it->second].log.records.push_back(r);
    if (!lines_in_order || index.empty() || index.back().series != it->second) {
      index.push_back({r.line, it->second});
    }
  });
  if (series.empty()) {
    LogSeries s;
    s.log = std::move(log);
    series.push_back(std::move(s));
    return series;
  }
  for (model::LogErrorLine& e : log.errors) {
    model::TrainingLog& to = series[SeriesOfLine(index, e.line)].log;
    to.error_counts[static_cast<int>(e.kind)] += 1;
    to.errors.push_back(std::move(e));
  }
  // Error lines past the kept ones are counted, not kept: the remainder goes
  // to the series of the last kept line of their kind (the first when none).
  for (int kind = 0; kind < model::kLogErrorKinds; ++kind) {
    int64_t kept = 0;
    size_t last = 0;
    for (size_t i = 0; i < series.size(); ++i) {
      if (series[i].log.error_counts[kind] > 0) last = i;
      kept += series[i].log.error_counts[kind];
    }
    series[last].log.error_counts[kind] += log.error_counts[kind] - kept;
  }
  for (model::LogGap& g : log.largest_gaps) {
    series[SeriesOfLine(index, g.line_before)].log.largest_gaps.push_back(std::move(g));
  }
  // The gaps were visited largest first: each series keeps that order.
  std::stable_sort(series.begin(), series.end(), [](const LogSeries& a, const LogSeries& b) {
    return std::make_tuple(a.run, a.rank.value_or(-1), a.engine.value_or(0)) <
           std::make_tuple(b.run, b.rank.value_or(-1), b.engine.value_or(0));
  });
  series.front().log.first_lines = std::move(log.first_lines);
  series.front().log.not_text = std::move(log.not_text);
  return series;
}

namespace {

// The last `rank` / `worker` + digits in |name| (any case; one '-', '_' or
// '.' between): the digits' position and length, and the rank.
struct NameRank {
  size_t at = 0;
  size_t len = 0;
  int rank = 0;
};

std::optional<NameRank> RankInName(std::string_view name) {
  std::optional<NameRank> found;
  const auto lower_at = [&](size_t i, std::string_view word) {
    if (i + word.size() > name.size()) return false;
    for (size_t k = 0; k < word.size(); ++k) {
      if ((name[i + k] | 0x20) != word[k]) return false;
    }
    return true;
  };
  for (size_t i = 0; i < name.size(); ++i) {
    size_t p = 0;
    if (lower_at(i, "rank")) {
      p = i + 4;
    } else if (lower_at(i, "worker")) {
      p = i + 6;
    } else {
      continue;
    }
    if (p < name.size() && (name[p] == '-' || name[p] == '_' || name[p] == '.')) ++p;
    size_t q = p;
    while (q < name.size() && q - p < 7 && name[q] >= '0' && name[q] <= '9') ++q;
    if (q == p || (q < name.size() && name[q] >= '0' && name[q] <= '9')) continue;
    int rank = 0;
    for (size_t k = p; k < q; ++k) rank = rank * 10 + (name[k] - '0');
    found = NameRank{p, q - p, rank};
  }
  return found;
}

}  // namespace

std::optional<PathRank> RankFromLogPath(std::string_view path) {
  // The file name first, then each directory from the nearest.
  size_t end = path.size();
  while (end > 0) {
    const size_t slash = path.rfind('/', end - 1);
    const size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
    const std::string_view name = path.substr(begin, end - begin);
    if (const std::optional<NameRank> r = RankInName(name)) {
      PathRank out;
      out.rank = r->rank;
      out.pattern = std::string(path.substr(0, begin + r->at));
      out.pattern += '*';
      out.pattern += path.substr(begin + r->at + r->len);
      return out;
    }
    if (slash == std::string_view::npos) break;
    end = slash;
  }
  return std::nullopt;
}

}  // namespace trainscope::analysis
