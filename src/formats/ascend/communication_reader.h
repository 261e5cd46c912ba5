// Readers of communication.json and communication_matrix.json (ascend-formats
// §2.12, §2.13): per step, per HCCL op time/bandwidth records and per link
// bandwidths. Both files are optional Level1+ outputs.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "formats/ascend/json_common.h"
#include "model/communication.h"

namespace trainscope::formats {

// Appends the ops of a communication.json text to |data|; its steps are
// parsed one at a time (json_common.h, ForEachTopLevelJsonFieldPiecewise).
Status ParseCommunication(std::string_view json, const std::string& file_label,
                          model::CommunicationData* data, const PiecewiseOptions& pieces = {});
// Appends the links of a communication_matrix.json text to |data|.
Status ParseCommunicationMatrix(std::string_view json, const std::string& file_label,
                                model::CommunicationData* data);

Status ReadCommunicationFile(const std::string& path, model::CommunicationData* data);
Status ReadCommunicationMatrixFile(const std::string& path, model::CommunicationData* data);

}  // namespace trainscope::formats
