// Where a command's reports go, shared by every command that writes them
// (analyze, compare): a document to a file (replaced atomically) or to
// stdout ('-', which then replaces the text summary), the closing lines that
// say where the files went, and whether the terminal gets colour.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace trainscope::cli {

// Renders the document with |render| only when |path| is set, and writes it
// to |path| (or stdout for "-", setting |*on_stdout|).
Status WriteDocument(const std::string& path, const std::function<std::string()>& render,
                     bool* on_stdout);

// The same for a document written in chunks (report::StreamJson): |stream|
// is called with the sink each chunk goes to, so the document never sits
// whole in memory.
using DocumentSink = std::function<void(std::string_view)>;
Status WriteStreamedDocument(const std::string& path,
                             const std::function<void(const DocumentSink&)>& stream,
                             bool* on_stdout);

// "JSON written to F" / "HTML report written to F" after the text summary.
void SayWhereDocumentsWent(const std::string& json_out, const std::string& html_out);

// Colour only on a terminal, without --no-color and NO_COLOR.
bool UseColor(bool no_color);

// The width the text summary is fitted to: COLUMNS when set in the
// environment, else the terminal's (TIOCGWINSZ) when stdout is one; 0
// otherwise: a pipe or file keeps lines whole.
int TerminalColumns();

}  // namespace trainscope::cli
