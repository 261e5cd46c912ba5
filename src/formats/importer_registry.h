// The registry of importers: every format trainscope reads, in one list
// (importer_registry.cc), and the guess that picks one for a path.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "formats/importer.h"

namespace trainscope::formats {

// Every importer, in priority order (ties in confidence go to the first).
std::span<const Importer* const> Importers();

// The importer named |name|, nullptr if none.
const Importer* FindImporter(std::string_view name);

struct Guess {
  const Importer* importer = nullptr;  // nullptr: no importer claims the path
  // When none claims it: the reasons of the importers that looked closely
  // and declined ("" when none did: the path is simply not a profile).
  std::string reason;
};

// Runs the sniff of every importer of |shape| on |path|; the highest
// confidence wins. |named|: see Importer::sniff.
Guess GuessImporter(const std::string& path, InputShape shape, bool named = false);

// Loads |path| with |importer| and checks every file ledger of the result:
// a ledger whose rows do not add up (RowLedger::Balanced) is reported as a
// warning of the rank (and asserts in debug builds): a reader bug made
// visible instead of hidden.
Result<model::RankProfile> LoadWith(const Importer& importer, const std::string& path,
                                    const ImportOptions& options);

}  // namespace trainscope::formats
