// Splitting one CSV file into chunks that are read on several cores.
//
// A big kernel_details.csv is one rank, so reading it record by record keeps
// one core busy. DuckDB's parallel CSV reader splits a file at guessed record
// starts and checks the guesses; so does this. A nominal split point moves
// forward to just after the next '\n'. That is a record start unless the
// '\n' lies inside a quoted field (a multi-line field), and reading a chunk
// on its own tells which: a reader started at a true record start reads
// exactly what a whole-file read reads, up to the chunk's end; if the next
// guess was inside a quoted field, the chunk's last field runs into the
// chunk's end and comes back as kUnterminatedQuote. So, by induction from
// the first chunk (which starts after the header, a true record start):
// when no chunk but the last reports kUnterminatedQuote, every split point
// was a record start and the chunks together read what one reader would.
// Otherwise the caller reads the file again as one chunk (ChunkDiverged).
//
// No quote counting pass is needed: profile CSVs put line breaks inside
// fields only in operator_details.csv's call stacks, and there a failed
// guess costs one more read, never a wrong row.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "formats/csv/csv_reader.h"

namespace trainscope::formats {

struct CsvChunk {
  size_t begin = 0;  // byte offset of the chunk's first record in the file
  size_t end = 0;    // one past its last byte: the next chunk's begin
  bool last = false;
};

// Chunks of about |target_bytes| covering [body_begin, data.size()), each
// starting just after a '\n' (the first at |body_begin|). A stretch without
// a '\n' joins the chunk before it; a file smaller than two chunks is one.
std::vector<CsvChunk> SplitAtLineStarts(std::string_view data, size_t body_begin,
                                        size_t target_bytes);

// True when |record|, read by a reader over |chunk| alone, shows that the
// chunk's end cut a quoted field: the split was not at a record start and
// the chunked read must be discarded for a whole-file read.
inline bool ChunkDiverged(const CsvRecord& record, const CsvChunk& chunk) {
  return !chunk.last && record.problem == CsvProblem::kUnterminatedQuote;
}

}  // namespace trainscope::formats
