// ReadSmallFile: the whole of a small user-supplied file (rule tables given
// with --families, --fingerprints, --activity-rules) as a string.
//
// Unlike MappedFile (which needs a regular file with a size), this also reads
// pipes and FIFOs, so `--families <(grep ... rules.tsv)` works: mmap of a pipe
// fails and its st_size is 0, which used to read as an empty rule file.
// It never blocks forever: the file is opened non-blocking and each wait for
// data is bounded (a FIFO nobody writes to is an error after the timeout, not
// a hang). Directories, devices and sockets are refused with the reason.
#pragma once

#include <cstddef>
#include <string>

#include "core/status.h"

namespace trainscope {

// Rule files are hand-written tables: far below this. The cap keeps a wrong
// path (a log, a pipe that never ends) from filling memory.
inline constexpr size_t kMaxSmallFileBytes = size_t{16} << 20;  // 16 MiB
// How long to wait for the next bytes from a pipe or FIFO before giving up.
// TRAINSCOPE_READ_TIMEOUT_S (seconds, > 0, fractions allowed) overrides it.
inline constexpr double kDefaultReadTimeoutS = 10.0;

// Reads all of |path| (a regular file, a pipe or a FIFO; symlinks followed).
// Errors name |path| and say why: NotFound when absent, InvalidInput for a
// directory, device or socket, a file over |max_bytes| or a pipe that stays
// silent past the timeout, IoError (with strerror) when the OS refuses.
Result<std::string> ReadSmallFile(const std::string& path, size_t max_bytes = kMaxSmallFileBytes);

// "a directory", "a character device", "a FIFO", ... for a stat st_mode.
const char* FileTypeName(unsigned mode);
// The same without the article, for "not a regular file (FIFO)".
const char* FileTypeWord(unsigned mode);

// The timeout in seconds ReadSmallFile uses (the environment override, else
// kDefaultReadTimeoutS).
double ReadTimeoutSeconds();

}  // namespace trainscope
