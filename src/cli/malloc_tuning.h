// The executable's malloc settings (called first thing in main).
#pragma once

namespace trainscope::cli {

// Makes glibc's mmap threshold fixed: blocks of 4 MiB or more are mapped on
// their own and unmapped when freed; the heap keeps up to 4 MiB free at its
// top instead of giving back everything above 128 KiB. Returns false where
// the setting is not available (another libc, a sanitizer's allocator).
bool ReturnLargeBlocksToTheSystem();

}  // namespace trainscope::cli
