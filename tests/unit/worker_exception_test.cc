// No exception escapes a worker thread (class 2): ParallelFor and
// the chunked trace scan catch it on the worker, stop, and rethrow it on the
// calling thread after every worker has joined, where the caller (one rank's
// load, cli::Run) turns it into an error message instead of std::terminate.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/parallel.h"
#include "formats/trace/chrome_json.h"

namespace trainscope {
namespace {

TEST(WorkerException, ParallelForRethrowsOnTheCallingThread) {
  std::atomic<int> ran{0};
  EXPECT_THROW(ParallelFor(1000, 4,
                           [&](size_t i) {
                             ++ran;
                             if (i == 7) throw std::runtime_error("boom");
                             // Slow enough that stopping early is visible
                             // (1000 items would take ~0.25 s on 4 threads).
                             std::this_thread::sleep_for(std::chrono::milliseconds(1));
                           }),
               std::runtime_error);
  // The others stopped taking work after the throw: far fewer than 1000.
  EXPECT_LT(ran.load(), 500);
}

TEST(WorkerException, ClampThreadsKeepsRequestsUseful) {
  EXPECT_EQ(ClampThreads(40000), MaxUsefulThreads());
  EXPECT_EQ(ClampThreads(1), 1u);
  EXPECT_GE(ClampThreads(0), 1u);
}

// A sink whose conversion runs out of memory on one event.
class ThrowingSink : public formats::trace::EventSink {
 public:
  std::unique_ptr<formats::trace::EventBatch> NewBatch() const override {
    return std::make_unique<formats::trace::EventBatch>();
  }
  void Convert(const formats::trace::RawEvent& event, size_t,
               formats::trace::EventBatch*) const override {
    if (event.name == "bad") throw std::bad_alloc();
  }
  void Commit(formats::trace::EventBatch*) override {}
  void Reset() override {}
};

TEST(WorkerException, ChunkedScanRethrowsAWorkersBadAlloc) {
  std::string json = "{\"traceEvents\": [\n";
  for (int i = 0; i < 4000; ++i) {
    json += std::string("  {\"ph\": \"X\", \"name\": \"") + (i == 3000 ? "bad" : "k") +
            "\", \"ts\": " + std::to_string(i) + ", \"dur\": 1},\n";
  }
  json += "  {\"ph\": \"X\", \"name\": \"k\", \"ts\": 5000, \"dur\": 1}\n]}\n";
  formats::trace::ScanOptions options;
  options.chunk_bytes = 4096;  // many chunks, so several workers convert
  options.threads = 4;
  ThrowingSink sink;
  formats::trace::ScanReport report;
  EXPECT_THROW((void)formats::trace::ScanJsonText(json, "t.json", &sink, &report, options),
               std::bad_alloc);
}

}  // namespace
}  // namespace trainscope
