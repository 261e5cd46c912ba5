// libFuzzer harness for every JSON reader: Kineto traces, Ascend
// trace_view.json, profiler_info / profiler_metadata and communication.json.
//
// Beyond "does not crash or leak": a reader either fails with a message or
// succeeds, and the ledger of a trace accounts for every event it saw.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/ascend/communication_reader.h"
#include "formats/ascend/profiler_info_reader.h"
#include "formats/ascend/profiler_metadata_reader.h"
#include "formats/kineto_sniff.h"
#include "formats/trace/kineto_reader.h"
#include "formats/trace/trace_view_reader.h"
#include "fuzz_flags.h"
#include "model/rank_profile.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

void CheckLedgers(const trainscope::model::RankProfile& profile) {
  for (const auto& ledger : profile.ledgers) {
    Check(ledger.rows_read() == ledger.rows_used() + ledger.rows_skipped());
    Check(ledger.rows_skipped() >= 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    // The discovery sniff: whole, and fed in uneven pieces, it must decide
    // the same (its state carries across pieces).
    std::string_view text(reinterpret_cast<const char*>(data), size);
    trainscope::formats::TopLevelKeyScanner whole, pieces;
    whole.Feed(text);
    size_t step = 1 + size % 7;
    for (size_t at = 0;
         at < size && pieces.state() == trainscope::formats::TopLevelKeyScanner::State::kMore;
         at += step) {
      pieces.Feed(text.substr(at, step));
    }
    if (whole.state() != pieces.state()) std::abort();
  }
  std::string_view input(reinterpret_cast<const char*>(data), size);
  {
    trainscope::model::RankProfile profile;
    trainscope::Status status = trainscope::formats::ParseKinetoTrace(input, "fuzz.json", &profile);
    Check(status.ok() || !status.message().empty());
    CheckLedgers(profile);
  }
  {
    trainscope::model::RankProfile profile;
    trainscope::Status status =
        trainscope::formats::ParseTraceView(input, "trace_view.json", &profile);
    Check(status.ok() || !status.message().empty());
    CheckLedgers(profile);
  }
  {
    trainscope::model::CaptureInfo info;
    (void)trainscope::formats::ParseProfilerInfo(input, "profiler_info_0.json", &info);
    (void)trainscope::formats::ParseProfilerMetadata(input, "profiler_metadata.json", &info);
  }
  {
    // communication.json is read one step at a time when large: both ways
    // agree on every input (ok or not, and the same ops when ok).
    trainscope::model::CommunicationData whole;
    trainscope::model::CommunicationData pieces;
    const trainscope::Status whole_status = trainscope::formats::ParseCommunication(
        input, "communication.json", &whole, {input.size() + 1, {}});
    const trainscope::Status piece_status =
        trainscope::formats::ParseCommunication(input, "communication.json", &pieces, {0, {}});
    Check(whole_status.ok() == piece_status.ok());
    if (whole_status.ok()) {
      Check(whole.ops.size() == pieces.ops.size());
      for (size_t i = 0; i < whole.ops.size(); ++i) {
        Check(whole.ops[i].name == pieces.ops[i].name && whole.ops[i].step == pieces.ops[i].step);
      }
      Check(whole.notes == pieces.notes);
    }
  }
  {
    trainscope::model::CommunicationData communication;
    (void)trainscope::formats::ParseCommunicationMatrix(input, "communication_matrix.json",
                                                        &communication);
  }
  return 0;
}
