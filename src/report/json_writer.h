// A streaming JSON writer whose output is byte for byte what nlohmann's
// dump(2) gives for the same document (2-space indent, ", " never, ": " after
// keys, "[]"/"{}" when empty, nlohmann's number and string spelling), so large
// reports can be written without building the document first.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace llmpo::report {

// How every JSON output is spelled, in one place: documents built with
// nlohmann are written by these, streamed ones by JsonWriter (same bytes).
// Invalid UTF-8 becomes U+FFFD, never an exception.
//
// A whole file: 2-space indent, ending in a newline (run.json, env.json,
// report_set.json, doctor --json).
template <typename Json>
std::string JsonFileText(const Json& doc) {
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}
// One line, for embedding (the page's data, trace events).
template <typename Json>
std::string JsonCompactText(const Json& doc) {
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace);
}
// A string literal with its quotes and escapes.
std::string JsonQuoted(std::string_view s);
// True when `s` is written as it is between its quotes: printable ASCII
// without a quote or a backslash. Anything else (an escape, a byte of
// UTF-8, a byte that is not UTF-8) is for nlohmann to spell.
bool IsPlainJsonText(std::string_view s);
// A number as nlohmann spells it ("1.0", "1e-05"; NaN and infinities null).
void AppendJsonDouble(std::string& out, double v);

class JsonWriter {
 public:
  // Appends to `out`; `depth` is the nesting level the first value sits at
  // (its closing bracket is indented 2 * depth).
  explicit JsonWriter(std::string& out, int depth = 0) : out_(out), base_depth_(depth) {}
  // Appends to `buffer` and hands its text to `sink` each time an object or
  // array closes with over 1 MiB held, so a large file never sits whole in
  // memory; Flush() hands over the rest.
  JsonWriter(std::string& buffer, std::ostream& sink) : out_(buffer), base_depth_(0), sink_(&sink) {}
  void Flush();

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);  // inside an object, before its value

  void String(std::string_view s);
  void Double(double v);
  void Int(std::int64_t v);
  void Uint(std::uint64_t v);
  void Bool(bool v);
  void Null();

  // Key + value in one call.
  template <typename T>
  void Member(std::string_view key, const T& value) {
    Key(key);
    Value(value);
  }

 private:
  void Value(std::string_view s) { String(s); }
  void Value(const std::string& s) { String(s); }
  void Value(const char* s) { String(s); }
  void Value(double v) { Double(v); }
  void Value(bool v) { Bool(v); }
  void Value(int v) { Int(v); }
  void Value(std::int64_t v) { Int(v); }
  void Value(std::uint64_t v) { Uint(v); }
  template <typename T>
  void Value(const std::optional<T>& v) {
    if (v) {
      Value(*v);
    } else {
      Null();
    }
  }
  void BeforeValue();  // separator and indentation for an array element
  void WriteString(std::string_view s);
  void Indent(std::size_t depth);
  void FlushIfLarge() {
    if (sink_ != nullptr && out_.size() >= kFlushBytes) Flush();
  }
  static constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

  struct Level {
    bool object;
    std::size_t count;
  };
  std::string& out_;
  int base_depth_;
  std::vector<Level> stack_;
  bool after_key_ = false;
  std::ostream* sink_ = nullptr;
};

}  // namespace llmpo::report
