#include "src/report/json_writer.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace llmpo::report {

namespace {

// The bytes IsPlainJsonText lets through, for the tail a block does not cover.
constexpr std::array<bool, 256> kPlainBytes = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x7f; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}();

}  // namespace

// 16 bytes at a time where SSE2 is there (every x86-64): most text in the
// reports is kernel and metric names, checked once per row written.
bool IsPlainJsonText(std::string_view s) {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20);
  const __m128i del = _mm_set1_epi8(0x7f);
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; i + 16 <= n; i += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // Compared as signed bytes, 0x80 and above are negative: below 0x20 too.
    const __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(block, space), _mm_cmpeq_epi8(block, del)),
                                     _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)));
    if (_mm_movemask_epi8(bad) != 0) return false;
  }
#endif
  for (; i < n; ++i) {
    if (!kPlainBytes[static_cast<unsigned char>(p[i])]) return false;
  }
  return true;
}

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
  if (!IsPlainJsonText(s)) {  // nlohmann's escapes, invalid UTF-8 replaced by U+FFFD
    out_ += JsonQuoted(s);
    return;
  }
  out_ += '"';
  out_.append(s);
  out_ += '"';
}

// From the function nlohmann's serializer calls, without a document per number.
void AppendJsonDouble(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char digits[64];
  out.append(digits, nlohmann::detail::to_chars(digits, digits + sizeof digits, v));
}

void JsonWriter::Double(double v) {
  BeforeValue();
  AppendJsonDouble(out_, v);
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
