// WriteFileAtomically: replace a file with new contents all at once.
//
// The bytes go to a temporary file next to the destination, which is then
// renamed over it: a reader (or the user, after a full disk or a crash) sees
// the old file or the new one, never a truncated mix. On failure only that
// temporary file is removed; the destination is left as it was.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace trainscope {

// Writes |content| to |path|. A symlink at |path| is followed (its target is
// replaced, the link stays). An existing file keeps its permission bits; a
// new one gets 0666 minus the umask. Errors are IoError naming |path| with
// the OS reason (strerror). A character device or FIFO at |path| (/dev/null,
// /dev/stdout, a named pipe) is a stream: it is written in place, never
// renamed over.
Status WriteFileAtomically(const std::string& path, std::string_view content);

}  // namespace trainscope
