// operator_details.csv -> RankProfile::operator_details (torch_npu, one row
// per framework op call: aten::*, npu::*, aclnn*, aclop names such as
// Conv2D). Call Stack and Input Shapes are multi-line quoted fields; the
// stack is kept as its innermost user frame (the source line the
// fingerprint attribution names), the shapes on one line. A column that is
// absent (Call Stack without with_stack) leaves its field empty.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "model/rank_profile.h"

namespace trainscope::formats {

// "32,3,224,224;\n64,3,11,11;\n64;\n;\n" -> "32,3,224,224;64,3,11,11;64;;":
// line breaks and spaces around the inputs dropped, the CSV's literal quotes
// stripped; "N/A" -> "".
std::string NormaliseInputShapes(std::string_view cell);

// Appends rows to profile->operator_details (strings interned in
// profile->strings) and a ledger to profile->ledgers. InvalidInput when the
// header has no Name column.
Status ParseOperatorDetails(std::string_view data, const std::string& file_label,
                            model::RankProfile* profile);
Status ReadOperatorDetailsFile(const std::string& path, model::RankProfile* profile);

}  // namespace trainscope::formats
