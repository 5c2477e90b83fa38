#include "src/ingest/kineto/json_pull.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "src/core/utf8.h"
#include "src/ingest/kineto/swar.h"

namespace llmpo::ingest::kineto {
namespace {

// One table lookup per byte instead of five comparisons (SkipContainer's loop).
constexpr auto kStructural = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : {'"', '{', '}', '[', ']'}) t[c] = true;
  return t;
}();
bool IsStructural(char c) { return kStructural[static_cast<unsigned char>(c)]; }

using swar::FirstByte;
using swar::kHigh;
using swar::Load8;
using swar::Repeat;
using swar::ZeroBytes;

// The first '"' or '\\' in [p, end), or end: eight bytes a step, memchr
// (vector instructions) for long strings.
const char* FindQuoteOrBackslash(const char* p, const char* end) {
  for (int i = 0; i < 4 && end - p >= 8; ++i, p += 8) {
    const std::uint64_t w = Load8(p);
    const std::uint64_t hit = ZeroBytes(w ^ Repeat('"')) | ZeroBytes(w ^ Repeat('\\'));
    if (hit) return p + FirstByte(hit);
  }
  if (end - p < 8) {
    for (; p < end; ++p) {
      if (*p == '"' || *p == '\\') return p;
    }
    return end;
  }
  const void* quote = std::memchr(p, '"', static_cast<std::size_t>(end - p));
  const char* stop = quote ? static_cast<const char*>(quote) : end;
  const void* backslash = std::memchr(p, '\\', static_cast<std::size_t>(stop - p));
  return backslash ? static_cast<const char*>(backslash) : stop;
}

// The number of JSON white-space bytes (space, \n, \r, \t) at the start of
// the eight at `p`: 8 when all are.
std::size_t LeadingSpace8(const char* p) {
  const std::uint64_t w = Load8(p);
  const std::uint64_t space = ZeroBytes(w ^ Repeat(' ')) | ZeroBytes(w ^ Repeat('\n')) | ZeroBytes(w ^ Repeat('\r')) |
                              ZeroBytes(w ^ Repeat('\t'));
  const std::uint64_t other = ~space & kHigh;
  return other ? FirstByte(other) : 8;
}

}  // namespace

JsonPull::JsonPull(ByteSource& source, std::size_t buffer_bytes, std::uint64_t base)
    : source_(source), buffer_(buffer_bytes + kPadding), capacity_(buffer_bytes), base_(base) {}

bool JsonPull::Restart(std::uint64_t offset) {
  if (!source_.Seek(offset)) return Fail("cannot seek in the file");
  base_ = offset;
  pos_ = len_ = 0;
  eof_ = false;
  ++generation_;
  return true;
}

bool JsonPull::Fail(const std::string& what) {
  if (error_.empty()) {
    error_ = fmt::format("byte {}: {}", offset(), what);
    if (!source_.error().empty()) error_ += fmt::format(" ({})", source_.error());
  }
  return false;
}

bool JsonPull::Refill() {
  if (eof_ || !error_.empty()) return false;
  base_ += len_;
  pos_ = 0;
  ++generation_;
  len_ = source_.Read(buffer_.data(), capacity_);
  if (len_ == 0) eof_ = true;
  return len_ > 0;
}

bool JsonPull::Compact(std::size_t max_buffer) {
  if (eof_ || !error_.empty()) return false;
  const std::size_t keep = len_ - pos_;
  if (keep == capacity_) {
    if (capacity_ >= max_buffer) return false;
    capacity_ = std::min(max_buffer, capacity_ * 2);
    buffer_.resize(capacity_ + kPadding);
  }
  std::memmove(buffer_.data(), buffer_.data() + pos_, keep);
  base_ += pos_;
  pos_ = 0;
  len_ = keep;
  ++generation_;
  const std::size_t before = len_;
  while (len_ < capacity_) {  // fill it: the index is built once per fill
    const std::size_t got = source_.Read(buffer_.data() + len_, capacity_ - len_);
    if (got == 0) {
      eof_ = true;
      break;
    }
    len_ += got;
  }
  return len_ > before;
}

bool JsonPull::SkipWhitespace() {
  for (;;) {
    // Most runs are one byte (", ", ": "); indentation is longer: eight bytes at a time.
    if (pos_ + 1 < len_ && IsJsonSpace(buffer_[pos_]) && !IsJsonSpace(buffer_[pos_ + 1])) {
      ++pos_;
      return true;
    }
    while (pos_ + 8 <= len_) {
      const std::size_t n = LeadingSpace8(buffer_.data() + pos_);
      pos_ += n;
      if (n < 8) return true;
    }
    // One comparison per byte: JSON white space is below '!', and so is
    // nothing else that may stand here in valid JSON.
    while (pos_ < len_ && static_cast<unsigned char>(buffer_[pos_]) <= ' ' && IsJsonSpace(buffer_[pos_])) ++pos_;
    if (pos_ < len_) return true;
    if (!Refill()) return false;
  }
}

char JsonPull::PeekSlow() { return SkipWhitespace() ? buffer_[pos_] : '\0'; }

bool JsonPull::Expect(char c, const char* what) {
  if (Consume(c)) return true;
  if (!SkipWhitespace()) return Fail(fmt::format("the text ends where {} was expected", what));
  return Fail(fmt::format("expected {}, found '{}'", what, buffer_[pos_]));
}

bool JsonPull::ReadHex4(std::uint32_t& value) {
  value = 0;
  for (int i = 0; i < 4; ++i) {
    if (pos_ == len_ && !Refill()) return Fail("the text ends inside a \\u escape");
    const char c = buffer_[pos_++];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return Fail("a \\u escape with a character that is not hexadecimal");
    value = value * 16 + static_cast<std::uint32_t>(digit);
  }
  return true;
}

bool JsonPull::ReadEscape(std::string& out) {
  if (pos_ == len_ && !Refill()) return Fail("the text ends inside a string escape");
  const char c = buffer_[pos_++];
  switch (c) {
    case '"':
    case '\\':
    case '/':
      out += c;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      return ReadUnicodeEscape(out);
    default:
      return Fail(fmt::format("an unknown string escape '\\{}'", c));
  }
}

// After "\u": a code point, or a surrogate pair whole. A high surrogate
// whose pair does not follow at once (no white space is skipped) is U+FFFD,
// and what follows it is read as itself: another escape ("\"", "\n", a
// "\u" that is not a low surrogate) or the string's next byte.
bool JsonPull::ReadUnicodeEscape(std::string& out) {
  std::uint32_t cp = 0;
  if (!ReadHex4(cp)) return false;
  while (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate: its pair follows as another \u escape
    if (pos_ == len_ && !Refill()) return Fail("the text ends inside a string");
    if (buffer_[pos_] != '\\') {
      cp = 0xFFFD;
      break;
    }
    ++pos_;
    if (pos_ == len_ && !Refill()) return Fail("the text ends inside a string escape");
    if (buffer_[pos_] != 'u') {
      AppendUtf8(out, 0xFFFD);
      return ReadEscape(out);
    }
    ++pos_;
    std::uint32_t low = 0;
    if (!ReadHex4(low)) return false;
    if (low >= 0xDC00 && low < 0xE000) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      break;
    }
    AppendUtf8(out, 0xFFFD);
    cp = low;  // not its pair: a code point (or high surrogate) of its own
  }
  if (cp >= 0xDC00 && cp < 0xE000) cp = 0xFFFD;  // an unpaired low surrogate
  AppendUtf8(out, cp);
  return true;
}

bool JsonPull::ReadString(std::string& out) {
  out.clear();
  if (!Expect('"', "a string")) return false;
  for (;;) {
    if (pos_ == len_ && !Refill()) return Fail("the text ends inside a string");
    const char* begin = buffer_.data() + pos_;
    const char* p = FindQuoteOrBackslash(begin, buffer_.data() + len_);
    const char* end = buffer_.data() + len_;
    out.append(begin, std::min(p, begin + (kMaxKeptBytes + 1 - std::min(out.size(), kMaxKeptBytes + 1))));
    pos_ = static_cast<std::size_t>(p - buffer_.data());
    if (out.size() > kMaxKeptBytes) {  // enough: the rest is passed over
      out.resize(kMaxKeptBytes + 1);
      return SkipStringRest();
    }
    if (p == end) continue;
    ++pos_;
    if (*p == '"') return true;
    if (!ReadEscape(out)) return false;
  }
}

bool JsonPull::ReadKey(std::string_view& key) {
  if (!Expect('"', "a string")) return false;
  const char* begin = buffer_.data() + pos_;
  const char* end = buffer_.data() + len_;
  const char* p = FindQuoteOrBackslash(begin, end);
  if (p < end && *p == '"') {  // whole and plain: no copy
    key = std::string_view(begin, static_cast<std::size_t>(p - begin));
    pos_ = static_cast<std::size_t>(p - buffer_.data()) + 1;
  } else {
    --pos_;  // back to the opening quote, which is still in the buffer
    if (!ReadString(key_scratch_)) return false;
    key = key_scratch_;
  }
  // The ':' in this buffer: the view stays valid. Else copy the key first,
  // since reading on may refill the buffer under it.
  std::size_t i = pos_;
  while (i < len_ && IsJsonSpace(buffer_[i])) ++i;
  if (i < len_ && buffer_[i] == ':') {
    pos_ = i + 1;
    return true;
  }
  if (key.data() != key_scratch_.data()) {
    key_scratch_.assign(key);
    key = key_scratch_;
  }
  return Expect(':', "':'");
}

bool JsonPull::SkipString() {
  ++pos_;  // the opening quote
  return SkipStringRest();
}

bool JsonPull::SkipStringRest() {
  for (;;) {
    if (pos_ == len_ && !Refill()) return Fail("the text ends inside a string");
    const char* end = buffer_.data() + len_;
    const char* p = FindQuoteOrBackslash(buffer_.data() + pos_, end);
    pos_ = static_cast<std::size_t>(p - buffer_.data());
    if (p == end) continue;
    ++pos_;
    if (*p == '"') return true;
    if (pos_ == len_ && !Refill()) return Fail("the text ends inside a string escape");
    ++pos_;  // the escaped character; a \u escape's digits are plain characters
  }
}

bool JsonPull::ReadBare(std::string& out) {
  out.clear();
  bool any = false;
  for (;;) {
    const std::size_t begin = pos_;
    while (pos_ < len_ && IsBareByte(buffer_[pos_])) ++pos_;
    any = any || pos_ > begin;
    const std::size_t room = kMaxKeptBytes + 1 - std::min(out.size(), kMaxKeptBytes + 1);
    out.append(buffer_.data() + begin, std::min(pos_ - begin, room));  // the rest is passed over
    if (pos_ < len_ || !Refill()) break;
  }
  if (!any) {
    if (pos_ < len_) return Fail(fmt::format("expected a value, found '{}'", buffer_[pos_]));
    return Fail("the text ends where a value was expected");
  }
  return true;
}

// As ReadBare, keeping nothing: a skipped number costs no memory.
bool JsonPull::SkipBare() {
  bool any = false;
  for (;;) {
    const std::size_t begin = pos_;
    while (pos_ < len_ && IsBareByte(buffer_[pos_])) ++pos_;
    any = any || pos_ > begin;
    if (pos_ < len_ || !Refill()) break;
  }
  if (!any) {
    if (pos_ < len_) return Fail(fmt::format("expected a value, found '{}'", buffer_[pos_]));
    return Fail("the text ends where a value was expected");
  }
  return true;
}

bool JsonPull::ReadScalar(std::string& out, bool& is_string) {
  const char c = Peek();
  is_string = c == '"';
  if (is_string) return ReadString(out);
  if (c == '{' || c == '[') return Fail("expected a number or a string, found an object or array");
  return ReadBare(out);
}

bool JsonPull::SkipValue() {
  const char first = Peek();
  if (first == '"') return SkipString();
  if (first != '{' && first != '[') return SkipBare();
  return SkipContainer(0);
}

bool JsonPull::SkipRestOfObject() { return SkipContainer(1); }

bool JsonPull::SkipContainer(std::size_t depth) {
  // Count brackets, skipping strings whole; other bytes are passed over in a
  // tight loop.
  for (;;) {
    if (pos_ == len_ && !Refill()) return Fail("the text ends inside an object or array");
    const char* p = buffer_.data() + pos_;
    const char* end = buffer_.data() + len_;
    while (p < end && !IsStructural(*p)) ++p;
    pos_ = static_cast<std::size_t>(p - buffer_.data());
    if (p == end) continue;
    const char c = *p;
    if (c == '"') {
      if (!SkipString()) return false;
      continue;
    }
    ++pos_;
    if (c == '{' || c == '[') {
      ++depth;
    } else if (--depth == 0) {
      return true;
    }
  }
}

}  // namespace llmpo::ingest::kineto
