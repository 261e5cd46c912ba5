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

// Writes |content| to |path|. A symlink at |path| is refused (UsageError):
// no output goes through a link trainscope did not create. An existing file
// keeps its permission bits; a new one gets 0666 minus the umask. Errors are
// IoError naming |path| with the OS reason (strerror). A character device or
// FIFO at |path| (/dev/null, /dev/stdout, a named pipe), also behind a link,
// is a stream: it is written in place, never renamed over; it is opened
// non-blocking, so a FIFO nobody reads is refused (UsageError) instead of
// blocking. An empty |path| is a UsageError.
//
// Before creating its temporary file, a writer removes the temporaries a
// killed trainscope left in that directory (RemoveStaleTemporaries).
Status WriteFileAtomically(const std::string& path, std::string_view content);

// The same, for a file written piece by piece (the exports: a trace or a
// database larger than memory should hold). Open() creates the temporary
// file next to |path| (or opens a character device / FIFO in place);
// Append() writes to it; Commit() makes it the file at |path|. A writer
// destroyed or failed before Commit() removes its temporary file and leaves
// |path| as it was.
class AtomicFileWriter {
 public:
  static Result<AtomicFileWriter> Open(const std::string& path);
  AtomicFileWriter(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&& other) = delete;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  Status Append(std::string_view content);
  Status Commit();
  // The temporary file (empty for a stream written in place): a library
  // that writes the file itself (SQLite) opens it by this name.
  const std::string& temp_path() const { return temp_; }
  bool in_place() const { return temp_.empty(); }

 private:
  AtomicFileWriter() = default;
  std::string path_;    // as given, for messages
  std::string target_;  // symlink resolved: what the rename replaces
  std::string temp_;
  int fd_ = -1;
  bool existed_ = false;
  unsigned mode_ = 0;  // permission bits to keep, when existed_
};

// True when |name| is a temporary file name of this writer,
// ".NAME.trainscope-tmp-PID-N"; |pid| receives PID.
bool IsTemporaryFileName(std::string_view name, int* pid);

// Removes, in |dir|, the temporary files of writers whose process is gone:
// names as above whose PID no longer exists (kill(PID, 0) fails with ESRCH),
// regular files and directories (a synth job in the making; not followed)
// owned by this user. A live writer's temporaries, another user's and any
// other file are left alone.
void RemoveStaleTemporaries(const std::string& dir);

}  // namespace trainscope
