// Checked writes to standard output.
//
// `trainscope analyze X > /dev/full` used to exit 0 with nothing written:
// every write to stdout now goes through WriteStdout, and cli::Run ends with
// FinishStdout, which flushes and turns any failure into exit code 1 and
// "trainscope: error: writing to standard output: <OS reason>".
#pragma once

#include <string>
#include <string_view>

namespace trainscope::cli {

// Writes |text| to stdout. After the first failure later writes are skipped
// (the reason is kept for FinishStdout); returns false when |text| was not
// written.
bool WriteStdout(std::string_view text);

// Writes |text| to stderr, ignoring failure: there is nowhere left to report
// it. (fmt::print throws on a failed write, and a second throw while
// reporting the first aborted `trainscope ... 2>/dev/full`.)
void WriteStderr(std::string_view text);

// While one is alive, what this thread writes through WriteStdout and
// WriteStderr is appended to |out| and |err| instead (cli::RunCaptured: the
// Python module runs commands in-process, on several threads at once, and
// hands their text back rather than printing into the interpreter's
// streams). Thread-local: the analyses' worker threads do not write here.
class OutputCapture {
 public:
  OutputCapture(std::string* out, std::string* err);
  ~OutputCapture();
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

 private:
  OutputCapture* previous_;
  std::string* out_;
  std::string* err_;
  friend bool WriteStdout(std::string_view text);
  friend void WriteStderr(std::string_view text);
};

// Flushes stdout. When a write failed (here, or through std::cout, which
// CLI11 uses for --help), prints the error on stderr and returns 1 unless
// |exit_code| already says failure; else returns |exit_code|. Resets the
// error state, so in-process callers start clean.
int FinishStdout(int exit_code);

}  // namespace trainscope::cli
