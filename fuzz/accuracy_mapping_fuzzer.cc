// libFuzzer harness for `trainscope accuracy --mapping` (analysis/accuracy/
// accuracy_mapping): msprobe compare's mapping YAML subset parses to rules or
// fails with a message, and every rule, applied to call names built from its
// own text, yields a key without a crash or a sanitizer report; the API name table reader
// (--api-mapping) takes the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/accuracy/accuracy_mapping.h"
#include "fuzz_flags.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  trainscope::fuzz::AddDefaultFlags(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace acc = trainscope::analysis;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  acc::ApiNameTable table = acc::ApiNameTable::Builtin();
  (void)table.Add(text, "fuzz/api.tsv");
  auto mapping = acc::ParseAccuracyMapping(text, "fuzz/map.yaml");
  if (!mapping.ok()) {
    if (mapping.status().message().empty()) std::abort();
    return 0;
  }
  if (mapping->rules.empty()) std::abort();
  for (const acc::MappingRule& rule : mapping->rules) {
    for (const std::string& op :
         {rule.next, "Module." + rule.next + ".forward.0", "Cell." + rule.next + ".backward.1",
          "Primitive." + rule.next + ".0.forward"}) {
      (void)acc::MatchKeyOfCall(op, true, table, &*mapping);
      (void)acc::MatchKeyOfCall(op, false, table, &*mapping);
    }
  }
  return 0;
}
