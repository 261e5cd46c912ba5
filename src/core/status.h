// Status and Result<T>: the one error type of trainscope.
//
// No exceptions cross module boundaries. A function that can fail returns
// Status (no value) or Result<T> (value or error). Both are [[nodiscard]].
// Fatal problems (unreadable file, unusable header) are a Status; per-row
// problems are counted in core::RowLedger instead and parsing goes on.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace trainscope {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  // the input exists but cannot be used (exit code 2)
  kNotFound,      // a path or a required file is missing (exit code 2)
  kIoError,       // the OS refused (permissions, read error)
  kUsage,         // bad command line
  kInternal,      // a bug in trainscope
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidInput(std::string message) {
  return Status(StatusCode::kInvalidInput, std::move(message));
}
inline Status NotFound(std::string message) {
  return Status(StatusCode::kNotFound, std::move(message));
}
inline Status IoError(std::string message) {
  return Status(StatusCode::kIoError, std::move(message));
}
inline Status UsageError(std::string message) {
  return Status(StatusCode::kUsage, std::move(message));
}
inline Status InternalError(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}

// A value or an error. Deliberately tiny: std::expected is C++23.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : data_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(data_).ok() && "Result built from an OK status has no value");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(data_);
  }
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace trainscope

#define TS_CONCAT_INNER(a, b) a##b
#define TS_CONCAT(a, b) TS_CONCAT_INNER(a, b)

#define TS_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::trainscope::Status ts_status_ = (expr); \
    if (!ts_status_.ok()) return ts_status_;  \
  } while (0)

// NOLINTBEGIN(bugprone-macro-parentheses): |lhs| may be a declaration
// ("auto x"), and |tmp| names a variable; neither can be parenthesised.
#define TS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#define TS_ASSIGN_OR_RETURN(lhs, expr) \
  TS_ASSIGN_OR_RETURN_IMPL(TS_CONCAT(ts_result_, __LINE__), lhs, expr)
// NOLINTEND(bugprone-macro-parentheses)
