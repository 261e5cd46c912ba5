#include "synth/out_file.h"

#include <cerrno>
#include <cstring>

namespace trainscope::synth {

OutFile::~OutFile() {
  if (file_ != nullptr) std::fclose(file_);
}

Status OutFile::Open(const std::string& path) {
  path_ = path;
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr)
    return IoError(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  // Our own buffer already batches; stdio's would only add a copy.
  std::setvbuf(file_, nullptr, _IONBF, 0);
  buffer_.reserve(kChunk + (64 << 10));  // a row is < 2 KiB: no regrowth
  return Status::Ok();
}

Status OutFile::Flush() {
  if (buffer_.size() == 0) return Status::Ok();
  if (file_ == nullptr) return InternalError("write to a closed file " + path_);
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    return IoError(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
  }
  bytes_written_ += buffer_.size();
  buffer_.clear();
  return Status::Ok();
}

Status OutFile::Close() {
  TS_RETURN_IF_ERROR(Flush());
  if (file_ != nullptr) {
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) return IoError(fmt::format("cannot close {}: {}", path_, std::strerror(errno)));
  }
  return Status::Ok();
}

Status WriteWholeFile(const std::string& path, std::string_view text) {
  OutFile file;
  TS_RETURN_IF_ERROR(file.Open(path));
  AppendStr(file.buffer(), text);
  return file.Close();
}

void AppendFixed(fmt::memory_buffer& buf, int64_t value, int decimals) {
  if (value < 0) {
    buf.push_back('-');
    value = -value;
  }
  if (decimals <= 0) {
    AppendInt(buf, value);
    return;
  }
  int64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  AppendInt(buf, value / scale);
  buf.push_back('.');
  int64_t frac = value % scale;
  char digits[20];
  for (int i = decimals - 1; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  buf.append(digits, digits + decimals);
}

void AppendUs(fmt::memory_buffer& buf, int64_t ns, int decimals) {
  int64_t divisor = 1;
  for (int i = decimals; i < 3; ++i) divisor *= 10;
  const int64_t value = divisor == 1 ? ns : (ns + divisor / 2) / divisor;
  AppendFixed(buf, value, decimals);
}

}  // namespace trainscope::synth
