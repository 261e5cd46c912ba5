// Knobs of the chunked Chrome-trace scan (kept apart from chrome_json.h so
// that reader headers do not pull in simdjson).
#pragma once

#include <cstddef>

namespace trainscope::formats::trace {

struct ScanOptions {
  // Target size of one chunk of the event array; tests force tiny ones.
  // 4 MiB keeps a chunk, its structural index and its events in L2/L3 and
  // the buffers of a few chunks reused over the file (bigger chunks measured
  // no faster and page-fault their fresh buffers: 16 MiB ran 1.5x the RSS).
  size_t chunk_bytes = size_t{4} << 20;
  // Parser threads for the chunked scan; 0 = DefaultThreadCount().
  unsigned threads = 0;
};

}  // namespace trainscope::formats::trace
