// A streaming pull reader for JSON text, made for Chrome-trace files of any
// size: it holds one buffer of bytes, hands out strings and the text of
// numbers (never a double: Kineto's 19-digit timestamps do not fit one), and
// skips values it is not asked for without building them. The first syntax
// error stops it; error() says what and at which byte.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/ingest/kineto/byte_source.h"

namespace llmpo::ingest::kineto {

// The bytes of numbers and literals (true, false, null) as this reader
// takes them: a run of these is one scalar.
inline constexpr auto kBareBytes = [] {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (unsigned char c : {'-', '+', '.', 'E'}) t[c] = true;
  return t;
}();
inline bool IsBareByte(char c) { return kBareBytes[static_cast<unsigned char>(c)]; }
inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The longest string or number text kept (docs/security.md): a longer one
// is kept to this many bytes and one more, so the reader can tell it was
// longer and cut it (on a character boundary, counted); the rest is read
// past without being kept. Real names are at most a few kilobytes.
inline constexpr std::size_t kMaxKeptBytes = std::size_t{64} << 10;

class JsonPull {
 public:
  // `base`: the offset in the text of the source's first byte.
  explicit JsonPull(ByteSource& source, std::size_t buffer_bytes = 1 << 20, std::uint64_t base = 0);

  // The next byte after white space, not consumed; '\0' at the end of input.
  // Inline fast path: most tokens follow no white space or one byte of it.
  // A lone space (after ',' and ':') is passed here too.
  char Peek() {
    if (pos_ + 1 < len_) {
      const char c = buffer_[pos_];
      if (static_cast<unsigned char>(c) > ' ') return c;
      if (c == ' ' && static_cast<unsigned char>(buffer_[pos_ + 1]) > ' ') return buffer_[++pos_];
    }
    return PeekSlow();
  }
  // Consumes `c` if it is the next byte after white space.
  bool Consume(char c) {
    if (Peek() != c || c == '\0') return false;
    ++pos_;
    return true;
  }
  // Consumes `c` or fails with "expected <what>".
  bool Expect(char c, const char* what);
  // A string value (escapes decoded, UTF-8 out), at most kMaxKeptBytes + 1
  // bytes of it.
  bool ReadString(std::string& out);
  // An object key and the ':' after it. The view is valid until the next
  // call (it points into the buffer when the key has no escapes and is whole
  // in it, else into scratch storage).
  bool ReadKey(std::string_view& key);
  // A number's text, a string's content, or a literal (true/false/null);
  // `is_string` says which. Objects and arrays fail.
  bool ReadScalar(std::string& out, bool& is_string);
  // Skips one value of any kind.
  bool SkipValue();
  // Inside an object whose '{' was consumed: skips to just past its '}'.
  bool SkipRestOfObject();

  // Bytes consumed so far (of the decompressed text).
  std::uint64_t offset() const { return base_ + pos_; }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // Records an error at the current byte (the first error wins).
  bool Fail(const std::string& what);

  // For a reader that indexes the buffer (trace_reader.cc's event fast
  // path): the bytes, the read position in them, and the end of the bytes
  // read. data() stays readable for kPadding bytes past len().
  static constexpr std::size_t kPadding = 64;
  const char* data() const { return buffer_.data(); }
  std::size_t pos() const { return pos_; }
  std::size_t len() const { return len_; }
  void set_pos(std::size_t pos) { pos_ = pos; }
  // Changes whenever the bytes in the buffer move or are replaced.
  std::uint64_t generation() const { return generation_; }
  // Moves the unread bytes to the front of the buffer and reads more after
  // them, doubling the buffer (up to `max_buffer` bytes) when the unread
  // bytes fill it. False when no byte could be added: the end of the input,
  // a read error, or the limit.
  bool Compact(std::size_t max_buffer);
  // Goes on reading at byte `offset` of the text (the source must seek).
  bool Restart(std::uint64_t offset);
  // Stops with an error found by another reader of the same text.
  void SetError(const std::string& error) {
    if (error_.empty()) error_ = error;
  }

 private:
  char PeekSlow();
  bool Refill();
  bool SkipWhitespace();
  bool ReadEscape(std::string& out);
  bool ReadUnicodeEscape(std::string& out);
  bool ReadHex4(std::uint32_t& value);
  bool SkipString();
  bool SkipStringRest();  // inside a string: past its closing quote
  bool SkipContainer(std::size_t depth);
  bool ReadBare(std::string& out);
  bool SkipBare();

  ByteSource& source_;
  std::vector<char> buffer_;  // capacity_ bytes and kPadding more
  std::size_t capacity_;
  std::size_t pos_ = 0;
  std::size_t len_ = 0;
  std::uint64_t base_ = 0;
  bool eof_ = false;
  std::uint64_t generation_ = 0;
  std::string error_;
  std::string key_scratch_;
};

}  // namespace llmpo::ingest::kineto
