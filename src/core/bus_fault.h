// Reads of memory-mapped files that cannot kill the process when the file
// shrinks under them.
//
// A page of a file mapping that lies past the file's current end (another
// program truncated or rewrote the file while trainscope read it) raises
// SIGBUS on access. A process-wide SIGBUS handler, installed on first use,
// serves the faults of the mappings registered here and of threads inside a
// BusFaultScope: the faulting page is replaced by a page of zeros, the fault
// is recorded, and the read goes on; the reader then reports the file as
// changed while it was read (an input error for that file). A fault outside
// both goes to the handler that was there before (or the default action).
#pragma once

#include <cstddef>

namespace trainscope {

// Registers [begin, begin + size) as a file mapping; returns its slot, or -1
// when every slot is taken (then a fault in it is not served).
int RegisterFileMapping(const void* begin, size_t size);
// Forgets slot |slot| (-1: no-op); call before unmapping.
void UnregisterFileMapping(int slot);
// Whether a fault was served in slot |slot| since it was registered.
bool FileMappingFaulted(int slot);

// While one lives in a thread, a fault of that thread on any file mapping
// past its file's end (si_code BUS_ADRERR) is served: for code that maps
// files itself (SQLite's memory-mapped I/O). Scopes nest.
class BusFaultScope {
 public:
  BusFaultScope();
  ~BusFaultScope();
  BusFaultScope(const BusFaultScope&) = delete;
  BusFaultScope& operator=(const BusFaultScope&) = delete;
  BusFaultScope(BusFaultScope&&) = delete;
  BusFaultScope& operator=(BusFaultScope&&) = delete;

  // Whether a fault was served in this thread since the outermost scope
  // began.
  static bool FaultedInThisThread();
};

}  // namespace trainscope
