#include "formats/importer_registry.h"

#include <cassert>

#include "formats/ascend/ascend_importer.h"
#include "formats/ascend_db/ascend_db_importer.h"
#include "formats/foreign_profile.h"
#include "formats/trace/kineto_importer.h"

namespace trainscope::formats {
namespace {

// The one list. A new format: a folder with its importer, and a line here.
constexpr const Importer* kImporters[] = {
    &kAscendTextImporter,
    &kAscendDbImporter,
    &kKinetoImporter,
};

}  // namespace

std::span<const Importer* const> Importers() { return kImporters; }

const Importer* FindImporter(std::string_view name) {
  for (const Importer* importer : kImporters) {
    if (importer->name == name) return importer;
  }
  return nullptr;
}

Guess GuessImporter(const std::string& path, InputShape shape, bool named) {
  Guess guess;
  int best = 0;
  for (const Importer* importer : kImporters) {
    if (importer->shape != shape) continue;
    SniffVerdict sniff = importer->sniff(path, named);
    if (sniff.confidence > best) {
      best = sniff.confidence;
      guess.importer = importer;
    } else if (sniff.confidence == 0 && !sniff.reason.empty()) {
      if (!guess.reason.empty()) guess.reason += "; ";
      guess.reason += sniff.reason;
    }
  }
  if (guess.importer != nullptr) {
    guess.reason.clear();
  } else if (shape == InputShape::kFile) {
    // Another profiler's file: what it is beats what the JSON sniff saw.
    std::string foreign = ForeignProfileReason(path);
    if (!foreign.empty()) guess.reason = std::move(foreign);
  }
  return guess;
}

Result<model::RankProfile> LoadWith(const Importer& importer, const std::string& path,
                                    const ImportOptions& options) {
  TS_ASSIGN_OR_RETURN(model::RankProfile profile, importer.load(path, options));
  for (const RowLedger& ledger : profile.ledgers) {
    std::string imbalance = LedgerImbalance(ledger);
    assert(imbalance.empty() && "a reader lost or double-counted rows");
    if (!imbalance.empty()) profile.warnings.push_back(std::move(imbalance));
  }
  return profile;
}

}  // namespace trainscope::formats
