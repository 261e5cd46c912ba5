// Progress messages on stderr, only when stderr is a terminal: pipelines and
// CI logs stay clean, people at a terminal see that long work is moving.
#pragma once

#include <string_view>

namespace trainscope {

class Progress {
 public:
  Progress();  // enabled iff stderr is a TTY and TRAINSCOPE_NO_PROGRESS is unset
  explicit Progress(bool enabled) : enabled_(enabled) {}
  ~Progress();

  // Overwrites the current progress line.
  void Update(std::string_view message);
  // Clears the line (call before printing results).
  void Done();
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  bool dirty_ = false;
};

}  // namespace trainscope
