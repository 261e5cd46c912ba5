#include "formats/ascend/csv_common.h"

#include "core/mapped_file.h"

namespace trainscope::formats {

Status ParseMappedFile(const std::string& path,
                       const std::function<Status(std::string_view data)>& parse) {
  TS_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return file.Intact(parse(file.data()));
}

}  // namespace trainscope::formats
