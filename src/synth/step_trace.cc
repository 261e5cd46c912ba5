#include "synth/step_trace.h"

#include <algorithm>
#include <vector>

namespace trainscope::synth {
namespace {

using Interval = TimeInterval;

// Kernels are sorted by start; merging touching/overlapping ones gives the union.
std::vector<Interval> Union(const std::vector<PlantedKernel>& kernels) {
  std::vector<Interval> out;
  for (const PlantedKernel& k : kernels) {
    const int64_t end = k.start_ns + k.dur_ns;
    if (!out.empty() && k.start_ns <= out.back().end) {
      out.back().end = std::max(out.back().end, end);
    } else {
      out.push_back({k.start_ns, end});
    }
  }
  return out;
}

int64_t Length(const std::vector<Interval>& intervals) {
  int64_t total = 0;
  for (const Interval& i : intervals) total += i.end - i.begin;
  return total;
}

int64_t IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  int64_t total = 0;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].begin, b[j].begin);
    const int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

// a \ b for sorted, disjoint interval lists.
std::vector<Interval> Minus(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (const Interval& i : a) {
    int64_t begin = i.begin;
    while (j < b.size() && b[j].end <= begin) ++j;
    for (size_t k = j; k < b.size() && b[k].begin < i.end; ++k) {
      if (b[k].begin > begin) out.push_back({begin, b[k].begin});
      begin = std::max(begin, b[k].end);
    }
    if (begin < i.end) out.push_back({begin, i.end});
  }
  return out;
}

// The union of two sorted, disjoint interval lists.
std::vector<Interval> Merge(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() || j < b.size()) {
    const Interval next =
        j == b.size() || (i < a.size() && a[i].begin <= b[j].begin) ? a[i++] : b[j++];
    if (!out.empty() && next.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, next.end);
    } else {
      out.push_back(next);
    }
  }
  return out;
}

}  // namespace

StepSegments ComputeStepSegments(const StepPlan& plan) {
  StepSegments s;
  s.computing = Union(plan.compute);
  s.communication = Union(plan.comm);
  s.comm_not_overlapped = Minus(s.communication, s.computing);
  const std::vector<Interval> busy = Merge(s.computing, s.communication);
  for (size_t k = 1; k < busy.size(); ++k) s.free.push_back({busy[k - 1].end, busy[k].begin});
  return s;
}

StepTrace ComputeStepTrace(const StepPlan& plan) {
  StepTrace trace;
  const std::vector<Interval> compute = Union(plan.compute);
  const std::vector<Interval> comm = Union(plan.comm);
  bool any = false;
  for (const std::vector<Interval>* list : {&compute, &comm}) {
    if (list->empty()) continue;
    trace.window_start_ns =
        any ? std::min(trace.window_start_ns, list->front().begin) : list->front().begin;
    int64_t end = 0;
    for (const Interval& i : *list) end = std::max(end, i.end);
    trace.window_end_ns = any ? std::max(trace.window_end_ns, end) : end;
    any = true;
  }
  trace.computing_ns = Length(compute);
  trace.communication_ns = Length(comm);
  const int64_t overlap = IntersectionLength(compute, comm);
  trace.comm_not_overlapped_ns = trace.communication_ns - overlap;
  trace.free_ns = trace.stage_ns() - (trace.computing_ns + trace.communication_ns - overlap);
  return trace;
}

}  // namespace trainscope::synth
