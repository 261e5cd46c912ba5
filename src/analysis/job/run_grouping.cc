#include "analysis/job/run_grouping.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace trainscope::analysis {

namespace {

// "2 h 5 min", "3.2 s", "850 ms": a gap between captures, for messages.
std::string Duration(int64_t ns) {
  const double s = static_cast<double>(ns) / 1e9;
  if (s >= 3600) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 60) return fmt::format("{:.1f} min", s / 60);
  if (s >= 1) return fmt::format("{:.1f} s", s);
  return fmt::format("{:.1f} ms", s * 1e3);
}

// "<what> <a> (<source a>) vs <b> (<source b>)" when both are known and differ.
std::string Differs(const char* what, const std::string& a, const std::string& a_source,
                    const std::string& b, const std::string& b_source) {
  if (a.empty() || b.empty() || a == b) return "";
  return fmt::format("{} {} ({}) vs {} ({})", what, a, a_source, b, b_source);
}

}  // namespace

RunIdentity RunIdentityOf(const model::RankProfile& profile) {
  RunIdentity id;
  id.rank = profile.rank;
  id.source = profile.source_dir;
  id.torch_npu_version = profile.info.torch_npu_version;
  id.cann_version = profile.info.cann_version;
  id.world_size = profile.info.world_size;
  if (!id.world_size) id.world_size = profile.timeline.distributed.world_size;
  if (!profile.timeline.devices.empty()) id.device = profile.timeline.devices.front().name;

  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  const model::DeviceEvents& events = profile.device_events;
  for (size_t i = 0; i < events.size(); ++i) {
    first = std::min(first, events.start_ns[i]);
    last = std::max(last, events.end_ns(i));
  }
  const model::HostOps& ops = profile.timeline.host_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    first = std::min(first, ops.start_ns[i]);
    last = std::max(last, ops.end_ns(i));
  }
  if (first <= last) {
    // Kineto writes times relative to baseTimeNanoseconds when it has one.
    id.first_ns = profile.timeline.base_time_ns + first;
    id.last_ns = profile.timeline.base_time_ns + last;
  }
  return id;
}

std::string WhyApart(const RunIdentity& input, const std::vector<size_t>& members,
                     const std::vector<RunIdentity>& inputs) {
  std::optional<int64_t> run_first;
  std::optional<int64_t> run_last;
  for (size_t m : members) {
    const RunIdentity& member = inputs[m];
    if (member.rank >= 0 && member.rank == input.rank) {
      return fmt::format("rank {} is claimed by both {} and {}", input.rank, member.source,
                         input.source);
    }
    if (member.world_size && input.world_size && *member.world_size != *input.world_size) {
      return fmt::format("world size {} ({}) vs {} ({})", *member.world_size, member.source,
                         *input.world_size, input.source);
    }
    for (std::string reason :
         {Differs("torch_npu", member.torch_npu_version, member.source, input.torch_npu_version,
                  input.source),
          Differs("CANN", member.cann_version, member.source, input.cann_version, input.source),
          Differs("device", member.device, member.source, input.device, input.source)}) {
      if (!reason.empty()) return reason;
    }
    if (member.first_ns && member.last_ns) {
      run_first = std::min(run_first.value_or(*member.first_ns), *member.first_ns);
      run_last = std::max(run_last.value_or(*member.last_ns), *member.last_ns);
    }
  }
  if (!run_first || !input.first_ns) return "";
  const int64_t gap = std::max(*input.first_ns - *run_last, *run_first - *input.last_ns);
  const int64_t shorter = std::min(*run_last - *run_first, *input.last_ns - *input.first_ns);
  if (gap <= shorter) return "";
  const bool after = *input.first_ns > *run_last;
  return fmt::format(
      "the capture of {} {} {} {} (captures last {} at most; ranks of one run overlap): another "
      "capture window",
      input.source, after ? "starts" : "ends", Duration(gap),
      after ? "after the other captures end" : "before the other captures start",
      Duration(std::max(*run_last - *run_first, *input.last_ns - *input.first_ns)));
}

std::vector<RunGroup> GroupRuns(const std::vector<RunIdentity>& inputs) {
  std::vector<RunGroup> runs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto joins = std::find_if(runs.begin(), runs.end(), [&](const RunGroup& run) {
      return WhyApart(inputs[i], run.members, inputs).empty();
    });
    if (joins == runs.end()) {
      runs.push_back(RunGroup{{i}});
    } else {
      joins->members.push_back(i);
    }
  }
  return runs;
}

size_t AnalysedRun(const std::vector<RunGroup>& runs) {
  size_t best = 0;
  for (size_t i = 1; i < runs.size(); ++i) {
    if (runs[i].members.size() > runs[best].members.size()) best = i;
  }
  return best;
}

RunSelection SelectRun(const std::vector<RunIdentity>& inputs) {
  return SelectRun(inputs, std::nullopt).value();
}

Result<RunSelection> SelectRun(const std::vector<RunIdentity>& inputs,
                               std::optional<int32_t> requested) {
  const std::vector<RunGroup> runs = GroupRuns(inputs);
  size_t analysed = runs.empty() ? 0 : AnalysedRun(runs);
  if (requested) {
    if (*requested < 1 || static_cast<size_t>(*requested) > std::max<size_t>(runs.size(), 1)) {
      return InvalidInput(
          fmt::format("--run {}: the inputs form {} run(s); hint: analyze without --run lists them",
                      *requested, std::max<size_t>(runs.size(), 1)));
    }
    analysed = static_cast<size_t>(*requested - 1);
  }
  RunSelection selection;
  if (!runs.empty()) selection.kept = runs[analysed].members;
  if (runs.size() <= 1) return selection;
  for (size_t r = 0; r < runs.size(); ++r) {
    RunSummary summary;
    summary.number = static_cast<int32_t>(r + 1);
    summary.analysed = r == analysed;
    for (size_t m : runs[r].members) {
      summary.ranks.push_back(inputs[m].rank);
      summary.sources.push_back(inputs[m].source);
    }
    if (!summary.analysed) {
      summary.why_apart = WhyApart(inputs[runs[r].members.front()], runs[analysed].members, inputs);
    }
    selection.runs.push_back(std::move(summary));
  }
  return selection;
}

}  // namespace trainscope::analysis
