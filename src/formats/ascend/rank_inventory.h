// The inventory of an Ascend rank directory for the input health: every
// entry of the rank directory (the *_ascend_pt folder) and of its
// ASCEND_PROFILER_OUTPUT, each read or not read with the reason
// (docs/ingest.md, "Input inventory").
#pragma once

#include <set>
#include <string>

#include "model/rank_profile.h"

namespace trainscope::formats {

// Fills profile->inventory from profile->source_dir and
// profile->profiler_output; |read| holds the paths the loader opened (as
// it built them: <dir>/<name>); |db_rank|: the rank was read from its db
// export (the reasons for the other form's files differ).
void TakeRankInventory(const std::set<std::string>& read, bool db_rank,
                       model::RankProfile* profile);

}  // namespace trainscope::formats
