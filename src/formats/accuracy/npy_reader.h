// NumPy .npy and .npz readers (docs/accuracy.md): the header of a .npy file
// (format versions 1.0, 2.0 and 3.0) and the members of a .npz archive (a zip
// of .npy files, stored or deflated, zip64 sizes included). Only the headers
// are parsed here; the elements stay where they are (a byte range of the
// mapped file) or, for a deflated member, in the inflated copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/tensor_dump.h"

namespace trainscope::formats {

struct NpyHeader {
  model::ElementType type = model::ElementType::kUnknown;
  std::string descr;  // as written, e.g. "<f4"
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<int64_t> shape;
  uint64_t data_offset = 0;  // from the start of the .npy bytes
  uint64_t data_bytes = 0;   // elements x element size
};

// Parses the header of the .npy bytes |bytes| (a whole file or a .npz
// member); |name| is used in messages. |uint16_as_bf16|: read uint16 arrays as
// bfloat16 (numpy has no bfloat16 type). Fails with "name: byte N: ..." when
// the header is not NumPy's or the file is shorter than the header says
// (the message starts with "truncated" then).
Result<NpyHeader> ParseNpyHeader(std::string_view bytes, const std::string& name,
                                 bool uint16_as_bf16);

// The header alone: no check that the elements fit in |bytes|.
Result<NpyHeader> ParseNpyHeaderOnly(std::string_view bytes, const std::string& name,
                                     bool uint16_as_bf16);

struct NpzMember {
  std::string name;     // the member's name in the zip, e.g. "arr_0.npy"
  uint64_t offset = 0;  // stored members: where the .npy bytes start in the archive
  uint64_t size = 0;    // uncompressed size
  std::shared_ptr<const std::string> inflated;  // deflated members: the .npy bytes
  std::string error;           // set when the member cannot be read (the rest still can)
  bool deflated = false;       // while listing: a deflated member not inflated yet
  uint64_t deflated_size = 0;  // its compressed size (its data starts at |offset|)
};

// Lists the members of the zip archive |bytes|; deflated members are
// inflated (at most |max_inflated| bytes each, and only when their .npy
// header describes exactly the size the zip declares). A damaged central
// directory fails the whole archive; a damaged member only sets its error,
// as do a member whose bytes overlap an earlier one's, a compression method
// other than stored (0) and deflate (8), or local and central headers that
// name different methods.
Result<std::vector<NpzMember>> ReadNpzMembers(std::string_view bytes, const std::string& name,
                                              uint64_t max_inflated);

}  // namespace trainscope::formats
