// Device idle charged to what the host was doing at the time (the
// cross-rank critical path's host categories, docs/clusters.md §3c): inside
// the data loader, waiting in a synchronisation, or still launching the
// work that ended the idle. Shared by the step measures that find the spans
// (step/host_idle_spans.h) and the cluster analysis that charges them.
#pragma once

#include <cstdint>
#include <vector>

namespace trainscope::analysis {

enum class HostIdleKind : uint8_t {
  kDataLoader,  // the host was inside a data-loader call (input_bound.h)
  kHostSync,    // the host waited in a sync or blocking copy (host_sync.h)
  kLaunch,      // the work that ended the idle was launched after it began (launch_gaps.h)
};

struct HostIdleSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;  // exclusive
  HostIdleKind kind = HostIdleKind::kLaunch;
};

// Device idle time by host cause in some window.
struct HostIdleTimes {
  int64_t data_loader_ns = 0;
  int64_t host_sync_ns = 0;
  int64_t launch_ns = 0;

  int64_t total() const { return data_loader_ns + host_sync_ns + launch_ns; }
  int64_t& of(HostIdleKind kind) {
    switch (kind) {
      case HostIdleKind::kDataLoader:
        return data_loader_ns;
      case HostIdleKind::kHostSync:
        return host_sync_ns;
      case HostIdleKind::kLaunch:
        return launch_ns;
    }
    return launch_ns;
  }
  void Add(HostIdleKind kind, int64_t ns) { of(kind) += ns; }
  HostIdleTimes& operator+=(const HostIdleTimes& o) {
    data_loader_ns += o.data_loader_ns;
    host_sync_ns += o.host_sync_ns;
    launch_ns += o.launch_ns;
    return *this;
  }
  bool operator==(const HostIdleTimes&) const = default;
};

// The time of |spans| (disjoint, by start) inside [from, to), by kind.
HostIdleTimes HostIdleWithin(const std::vector<HostIdleSpan>& spans, int64_t from, int64_t to);

}  // namespace trainscope::analysis
