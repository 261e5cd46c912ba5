// An input the loader could not use: a rank that failed to load, or a file
// under a job directory that discovery did not take as a profile. Carried from
// formats (which finds them) through analysis to every report's input health,
// so nothing given to trainscope is dropped without a word.
#pragma once

#include <string>

namespace trainscope::model {

struct InputIssue {
  std::string path;
  std::string reason;  // may span lines (an error message with its hint)
};

}  // namespace trainscope::model
