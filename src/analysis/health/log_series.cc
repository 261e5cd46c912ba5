#include "analysis/health/log_series.h"

#include <algorithm>
#include <map>
#include <utility>

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

}  // namespace

std::vector<LogSeries> SplitLogSeries(model::TrainingLog&& log) {
  std::vector<LogSeries> series;
  std::map<std::pair<int, int>, size_t> by_key;  // (run, rank) -> series
  std::map<int, SeriesRankState> ranks;
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
    SeriesRankState& state = ranks[r.rank];
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
    const std::pair<int, int> key(state.run, r.rank);
    auto [it, added] = by_key.try_emplace(key, series.size());
    if (added) {
      LogSeries s;
      s.log.path = log.path;
      s.log.format = log.format;
      s.log.bytes = log.bytes;
      s.run = state.run;
      if (r.rank >= 0) s.rank = r.rank;
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
    return std::make_pair(a.run, a.rank.value_or(-1)) < std::make_pair(b.run, b.rank.value_or(-1));
  });
  series.front().log.first_lines = std::move(log.first_lines);
  series.front().log.not_text = std::move(log.not_text);
  return series;
}

}  // namespace trainscope::analysis
