// LocalStrings: string interning inside one batch of events.
//
// Worker threads convert events without touching the profile's StringPool
// (which is not thread-safe and would serialise them): each distinct string
// of a chunk gets a local id here, views into the chunk (valid until the
// batch is committed). The committing thread then interns each distinct
// string once (a few hundred per 4 MiB chunk instead of one lookup per
// field of every event) and rewrites local ids through the returned table.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/string_pool.h"
#include "model/timeline.h"

namespace trainscope::formats::trace {

class LocalStrings {
 public:
  LocalStrings() { Clear(); }

  // Local id of |text|; 0 is the empty string (as StringPool::kEmpty).
  uint32_t Intern(std::string_view text);
  // The same for text not in the chunk (built from it, as the user frames
  // of a call stack): a copy is kept until Clear.
  uint32_t InternCopy(std::string text);
  std::string_view Get(uint32_t id) const { return views_[id]; }
  size_t size() const { return views_.size(); }

  // Global id of every local id (index = local id), interned into |pool|.
  const std::vector<StringId>& MapInto(StringPool* pool);

  void Clear();

 private:
  static uint64_t Hash(std::string_view text);
  void Grow();

  std::vector<std::string_view> views_;
  std::deque<std::string> owned_;  // InternCopy's texts (a deque: their addresses stay)
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> slots_;  // local id + 1; 0 = empty slot
  size_t mask_ = 0;
  std::vector<StringId> global_;
};

// A pid/tid token: numbers and numeric strings are the id; names ("Spans")
// become model::SyntheticThreadId of their local string id ...
int64_t LocalThreadId(std::string_view raw, LocalStrings* strings);
// ... which the commit rewrites to the id of the global string.
inline int64_t GlobalThreadId(int64_t local, const std::vector<StringId>& global) {
  if (!model::IsSyntheticThreadId(local)) return local;
  return model::SyntheticThreadId(global[model::SyntheticThreadName(local)]);
}

}  // namespace trainscope::formats::trace
