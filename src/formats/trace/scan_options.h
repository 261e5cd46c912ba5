// Knobs of the Chrome-trace readers and their chunked scan (kept apart from
// chrome_json.h so that reader headers do not pull in simdjson).
#pragma once

#include <cstddef>
#include <vector>

#include "model/timeline_classify.h"

namespace trainscope::formats::trace {

struct ScanOptions {
  // Target size of one chunk of the event array; tests force tiny ones.
  // 4 MiB keeps a chunk, its structural index and its events in L2/L3 and
  // the buffers of a few chunks reused over the file (bigger chunks measured
  // no faster and page-fault their fresh buffers: 16 MiB ran 1.5x the RSS).
  size_t chunk_bytes = size_t{4} << 20;
  // Parser threads for the chunked scan; 0 = DefaultThreadCount().
  unsigned threads = 0;
  // Name rules that sort Kineto device activities into compute /
  // communication / memcpy / memset (after the metadata rules); nullptr =
  // model::DefaultClassRules(). `analyze --activity-rules FILE` puts the
  // user's rules in front of the defaults.
  const std::vector<model::ClassRule>* activity_rules = nullptr;
};

}  // namespace trainscope::formats::trace
