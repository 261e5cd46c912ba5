#include "formats/csv/csv_chunks.h"

#include <algorithm>
#include <cstring>

namespace trainscope::formats {

std::vector<CsvChunk> SplitAtLineStarts(std::string_view data, size_t body_begin,
                                        size_t target_bytes) {
  std::vector<CsvChunk> chunks;
  const size_t size = data.size();
  body_begin = std::min(body_begin, size);
  target_bytes = std::max<size_t>(target_bytes, 1);
  size_t begin = body_begin;
  while (begin < size) {
    size_t end = size;
    // The last chunk takes the rest when less than two targets remain, so
    // no chunk is a sliver.
    if (size - begin >= 2 * target_bytes) {
      const size_t nominal = begin + target_bytes;
      const void* lf = std::memchr(data.data() + nominal, '\n', size - nominal);
      if (lf != nullptr) end = static_cast<size_t>(static_cast<const char*>(lf) - data.data()) + 1;
    }
    chunks.push_back(CsvChunk{begin, end, end == size});
    begin = end;
  }
  if (chunks.empty()) chunks.push_back(CsvChunk{body_begin, size, true});
  return chunks;
}

}  // namespace trainscope::formats
