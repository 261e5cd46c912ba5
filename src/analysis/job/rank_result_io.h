// A RankResult as bytes and back: what an MPI mode gathers from each
// process and what `compare` will diff.
//
// Format: "TSRR" (4 bytes), the format version (varint), then every field
// of the RankResult in declaration order, depth first (ByteWriter /
// ByteReader, core/byte_reader.h): integers as (zigzag) LEB128 varints,
// doubles as their 8-byte IEEE-754 bit pattern (NaN, -0.0 and infinities
// come back bit for bit), strings and vectors as a count then the items,
// an optional as a presence byte (0/1) then the value, a map as a count
// then ascending (key, value) pairs, enums as their checked number. No
// field names, no padding, nothing after the last field.
//
// Why this and not JSON: thousands of ranks are gathered over MPI, each
// with dozens of steps of distributions, motifs and timelines; a binary
// encoding is several times smaller and needs no number formatting or
// parsing (doubles would need 17 significant digits, NaN has no JSON form).
// Why not protobuf/flatbuffers: no schema compiler for one struct tree; the
// encoding is two small files in core/ (byte_writer.h, byte_reader.h).
//
// Robust: the buffer is untrusted. Every length and count is checked
// against the bytes left before anything is allocated, so a truncated or
// corrupt buffer yields kInvalidInput naming the byte offset, never a crash
// or an allocation larger than a small multiple of the buffer. Canonical:
// varints in shortest form, bools 0/1, map keys ascending, no trailing
// bytes; so every accepted buffer re-serialises to itself (the fuzzer
// checks it).
//
// Versioned: kRankResultFormatVersion changes whenever any serialised
// struct gains, loses, reorders or retypes a field. A reader accepts its
// own version only and says which it got (results are exchanged within one
// job, by one build; `compare` of old runs would add readers of old
// versions here). A struct whose field count changes without its field
// list (rank_result_io.cc) does not compile, so a forgotten field cannot
// ship; the test RankResultIoTest.FormatVersionMatchesTheLayout fails until
// the version is bumped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/job/rank_analysis.h"
#include "core/status.h"

namespace trainscope::analysis {

inline constexpr char kRankResultMagic[4] = {'T', 'S', 'R', 'R'};
inline constexpr uint32_t kRankResultFormatVersion = 30;

std::string SerializeRankResult(const RankResult& result);

// kInvalidInput ("RankResult: byte N of M: ...") on a short, corrupt,
// foreign or other-version buffer.
Result<RankResult> DeserializeRankResult(std::string_view bytes);

// What an MPI process sends its root for one rank it analysed (the MPI mode
// of `analyze`, docs/mpi.md): where the rank is in discovery order, its run
// identity (run_grouping.h) and its result, or why its analysis failed.
struct GatheredRank {
  uint64_t index = 0;  // discovery index: the job's order among equal ranks
  RunIdentity identity;
  bool ok = false;
  RankResult result;                        // when ok
  StatusCode error_code = StatusCode::kOk;  // when not ok
  std::string error;
};

inline constexpr char kGatheredRankMagic[4] = {'T', 'S', 'G', 'R'};

// The same encoding as SerializeRankResult, under its own magic and the
// same format version.
std::string SerializeGatheredRank(const GatheredRank& rank);
Result<GatheredRank> DeserializeGatheredRank(std::string_view bytes);

}  // namespace trainscope::analysis
