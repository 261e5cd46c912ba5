#include "cli/report_output.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include "cli/stdout_writer.h"
#include "core/atomic_write.h"
#include "core/safe_text.h"

namespace trainscope::cli {

Status WriteDocument(const std::string& path, const std::function<std::string()>& render,
                     bool* on_stdout) {
  // One chunk of the streamed form: the same stdout and atomic-file rules.
  return WriteStreamedDocument(
      path, [&](const DocumentSink& sink) { sink(render()); }, on_stdout);
}

Status WriteStreamedDocument(const std::string& path,
                             const std::function<void(const DocumentSink&)>& stream,
                             bool* on_stdout) {
  if (path.empty()) return Status::Ok();
  if (path == "-") {
    stream([](std::string_view chunk) { WriteStdout(chunk); });
    *on_stdout = true;
    return Status::Ok();
  }
  TS_ASSIGN_OR_RETURN(AtomicFileWriter writer, AtomicFileWriter::Open(path));
  Status written = Status::Ok();  // the first failed write; the rest are skipped
  stream([&](std::string_view chunk) {
    if (written.ok()) written = writer.Append(chunk);
  });
  TS_RETURN_IF_ERROR(written);
  return writer.Commit();
}

void SayWhereDocumentsWent(const std::string& json_out, const std::string& html_out) {
  if (!json_out.empty()) WriteStdout(fmt::format("\nJSON written to {}\n", TerminalSafe(json_out)));
  if (!html_out.empty()) {
    WriteStdout(fmt::format("\nHTML report written to {}\n", TerminalSafe(html_out)));
  }
}

int TerminalColumns() {
  // COLUMNS set in the environment is the width asked for, on a terminal or
  // not (`COLUMNS=80 trainscope analyze ... | less`); a shell sets it for
  // itself without exporting it, so a plain pipe keeps its lines whole.
  if (const char* columns = std::getenv("COLUMNS")) {
    const int n = std::atoi(columns);
    if (n > 0) return n;
  }
  if (::isatty(STDOUT_FILENO) != 1) return 0;
  struct winsize size {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 0;
}

bool UseColor(bool no_color) {
  return !no_color && ::isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
}

}  // namespace trainscope::cli
