// How the readers tell gzip from plain text: by the two bytes every gzip
// member starts with (RFC 1952), whatever the file is called (a trace named
// .json may be compressed, one named .gz may not be).
#pragma once

#include <string_view>

namespace trainscope::formats {

inline bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

}  // namespace trainscope::formats
