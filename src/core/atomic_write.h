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

// The same, for content written piece by piece (a document too large to
// hold whole): Open creates the temporary file (or opens the stream),
// Append writes to it, Commit renames it over |path|. A writer destroyed
// before Commit removes its temporary file, so a failed render leaves the
// destination as it was. After the first failed Append, later ones do
// nothing and Commit returns that error.
class AtomicFileWriter {
 public:
  static Result<AtomicFileWriter> Open(const std::string& path);
  AtomicFileWriter(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&&) = delete;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  void Append(std::string_view content);
  Status Commit();

 private:
  AtomicFileWriter() = default;
  void Abandon();

  std::string path_;    // as the user named it, for messages
  std::string target_;  // |path_| with a symlink resolved
  std::string temp_;    // empty when writing a stream in place
  int fd_ = -1;
  bool existed_ = false;
  bool keep_mode_ = false;  // an existing regular file: its permission bits stay
  unsigned mode_ = 0;
  int error_ = 0;
  const char* what_ = nullptr;
};

}  // namespace trainscope
