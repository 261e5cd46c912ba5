// Knobs of the Chrome-trace readers and their chunked scan (kept apart from
// chrome_json.h so that reader headers do not pull in simdjson).
#pragma once

#include <cstddef>
#include <vector>

#include "model/timeline_classify.h"

namespace trainscope::formats::trace {

// The defaults of the two size limits below: 16 MiB per event and 128 MiB of
// inflated text, or TRAINSCOPE_MAX_EVENT_BYTES / TRAINSCOPE_MAX_INFLATED_BYTES
// (bytes, or with a K/M/G suffix: 64M) when set to a positive number.
size_t DefaultMaxEventBytes();
size_t DefaultMaxInflatedBytes();

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
  // The longest event the scan takes whole. A longer one (a gzip bomb's
  // 300 MB string) is read past without being held, skipped and counted
  // ("event over the size limit"), and the read goes on: no single event can
  // make a scan hold more than about this much text.
  size_t max_event_bytes = DefaultMaxEventBytes();
  // How much inflated text of a damaged .json.gz the whole-document fallback
  // holds (intact, truncated and corrupt-tail streams are read streaming and
  // never held). Past it the rest of the document is not read and the damage
  // report says so.
  size_t max_inflated_bytes = DefaultMaxInflatedBytes();
  // Whether the chunked scan reads plain events with its own reader
  // (plain_event_reader.h) and only the rest with simdjson. Off: simdjson
  // reads every event (tests and the fuzzer compare the two).
  bool plain_event_reader = true;
};

}  // namespace trainscope::formats::trace
