// Errors as values. Library code returns Result<T> or Status; the CLI turns
// an Error into a message and an exit code. Context is added on the way up
// with Error::WithContext, innermost first, so messages read outside-in.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "src/core/exit_status.h"

namespace llmpo {

struct Error {
  ExitStatus kind = ExitStatus::kFailure;
  std::string message;
  std::vector<std::string> notes;    // extra lines: hints, "did you mean", listings
  std::vector<std::string> context;  // "while ..." frames, outermost last

  Error&& WithContext(std::string frame) && {
    context.push_back(std::move(frame));
    return std::move(*this);
  }
  Error&& WithNote(std::string note) && {
    notes.push_back(std::move(note));
    return std::move(*this);
  }
  // The full text: "context: ... message" then one note per line.
  std::string Render() const;
};

inline Error MakeError(ExitStatus kind, std::string message) {
  Error e;
  e.kind = kind;
  e.message = std::move(message);
  return e;
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const& { return std::get<Error>(v_); }
  Error&& error() && { return std::get<Error>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() { return Ok{}; }

}  // namespace llmpo

#define LLMPO_CONCAT_INNER(a, b) a##b
#define LLMPO_CONCAT(a, b) LLMPO_CONCAT_INNER(a, b)

// Returns the error of `expr` (a Result or Status) from the enclosing function.
#define RETURN_IF_ERROR(expr)                                         \
  do {                                                                \
    auto llmpo_status_ = (expr);                                      \
    if (!llmpo_status_.ok()) return std::move(llmpo_status_).error(); \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)   \
  auto tmp = (expr);                            \
  if (!tmp.ok()) return std::move(tmp).error(); \
  lhs = std::move(tmp).value()

// ASSIGN_OR_RETURN(auto x, Foo()); declares x from a Result or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(LLMPO_CONCAT(llmpo_result_, __LINE__), lhs, expr)
