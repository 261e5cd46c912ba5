// Why: glibc raises its mmap threshold each time a mapped block is freed (up
// to 32 MiB), so after the first large free the columns, chunk copies and
// hash tables of an analysis come from the heap, and what they leave behind
// when freed stays in the process (freed heap below live blocks is not given
// back). On the 1.5 GB trace the main arena held 350 MB for 194 MB in use
// after reading, and the peak was 0.39x the file. A fixed threshold (setting
// it turns the adjustment off) maps every block of 4 MiB or more on its own
// and unmaps it when freed: peak RSS follows the blocks alive
// (docs/benchmarks.md, "Peak memory below half the CSV"). Blocks of that
// size are few (a column, a chunk), so the extra mmap/munmap calls do not
// show.
//
// Only the executable calls it (and the allocation tests' own binary): the
// library and its tests keep glibc's defaults. ASan and TSan replace malloc;
// their mallopt does nothing.
#include "cli/malloc_tuning.h"

#if __has_include(<malloc.h>)
#include <malloc.h>  // defines __GLIBC__ (through features.h) where it is glibc's
#endif

namespace trainscope::cli {

bool ReturnLargeBlocksToTheSystem() {
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  constexpr int kMallocMmapThreshold = 4 << 20;
  // The fixed threshold also fixes the trim threshold, at glibc's 128 KiB:
  // the heap's top was then given back after nearly every free and faulted
  // in again (a 64-rank job: 11 k -> 54 k minor faults, 1.8x the time).
  // Keeping up to as much as the largest heap block costs at most that.
  constexpr int kMallocTrimThreshold = kMallocMmapThreshold;
  return mallopt(M_MMAP_THRESHOLD, kMallocMmapThreshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kMallocTrimThreshold) == 1;
#else
  return false;
#endif
}

}  // namespace trainscope::cli
