#include "src/report/json_writer.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace llmpo::report {
namespace {

// Plain printable ASCII without quote or backslash: written as is.
bool NeedsEscaping(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return true;
  }
  return false;
}

}  // namespace

void JsonWriter::Indent(std::size_t depth) { out_.append(2 * depth, ' '); }

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;  // the root value
  Level& level = stack_.back();
  out_ += level.count++ ? ",\n" : "\n";
  Indent(static_cast<std::size_t>(base_depth_) + stack_.size());
}

void JsonWriter::Key(std::string_view key) {
  Level& level = stack_.back();
  out_ += level.count++ ? ",\n" : "\n";
  Indent(static_cast<std::size_t>(base_depth_) + stack_.size());
  WriteString(key);
  out_ += ": ";
  after_key_ = true;
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  stack_.push_back({true, 0});
}

void JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  stack_.push_back({false, 0});
}

void JsonWriter::EndObject() {
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) {
    out_ += '\n';
    Indent(static_cast<std::size_t>(base_depth_) + stack_.size());
  }
  out_ += '}';
  FlushIfLarge();
}

void JsonWriter::EndArray() {
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) {
    out_ += '\n';
    Indent(static_cast<std::size_t>(base_depth_) + stack_.size());
  }
  out_ += ']';
  FlushIfLarge();
}

void JsonWriter::Flush() {
  if (sink_ == nullptr) return;
  sink_->write(out_.data(), static_cast<std::streamsize>(out_.size()));
  out_.clear();
}

std::string JsonQuoted(std::string_view s) { return JsonCompactText(nlohmann::json(std::string(s))); }

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  WriteString(s);
}

void JsonWriter::WriteString(std::string_view s) {
  if (NeedsEscaping(s)) {  // nlohmann's escapes, invalid UTF-8 replaced by U+FFFD
    out_ += JsonQuoted(s);
    return;
  }
  out_ += '"';
  out_.append(s);
  out_ += '"';
}

void JsonWriter::Double(double v) {
  BeforeValue();
  // nlohmann's spelling ("1.0", "1e-05", NaN and infinities as null), from
  // the function its serializer calls, without a document per number.
  if (!std::isfinite(v)) {
    out_ += "null";
    return;
  }
  char digits[64];
  out_.append(digits, nlohmann::detail::to_chars(digits, digits + sizeof digits, v));
}

void JsonWriter::Int(std::int64_t v) {
  BeforeValue();
  fmt::format_to(std::back_inserter(out_), "{}", v);
}

void JsonWriter::Uint(std::uint64_t v) {
  BeforeValue();
  fmt::format_to(std::back_inserter(out_), "{}", v);
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  out_ += v ? "true" : "false";
}

void JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
}

}  // namespace llmpo::report
