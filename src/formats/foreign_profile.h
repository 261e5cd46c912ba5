// Profiles of other tools that trainscope does not read, recognised by name
// so the user hears what the file is and how to get one it reads, instead
// of a JSON parser's complaint about its first byte.
#pragma once

#include <string>
#include <string_view>

namespace trainscope::formats {

// "an Nsight Systems report (.nsys-rep): not supported; ..." for a file of a
// known other profiler, "" otherwise.
std::string ForeignProfileReason(std::string_view path);

}  // namespace trainscope::formats
