#include "src/core/utf8.h"

#include <cstdint>
#include <cstring>

namespace llmpo {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the sequence starting at text[i], or 0 when it is malformed.
std::size_t SequenceLength(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  char32_t min = 0, cp = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    length = 2;
    min = 0x80;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    length = 3;
    min = 0x800;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    length = 4;
    min = 0x10000;
    cp = c & 0x07;
  } else
    return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if (!IsContinuation(next)) return 0;
    cp = (cp << 6) | (next & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

std::optional<std::size_t> FirstInvalidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // Runs of ASCII 8 bytes at a time: most names and texts are all ASCII.
    for (std::uint64_t word; i + 8 <= text.size(); i += 8) {
      std::memcpy(&word, text.data() + i, 8);
      if ((word & 0x8080808080808080ULL) != 0) break;
    }
    if (i >= text.size()) break;
    const std::size_t n = SequenceLength(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::size_t ReplaceInvalidUtf8(std::string& text) {
  auto bad = FirstInvalidUtf8(text);
  if (!bad) return 0;
  std::string out = text.substr(0, *bad);
  std::size_t replaced = 0;
  std::size_t i = *bad;
  while (i < text.size()) {
    const std::size_t n = SequenceLength(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++replaced;
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  text = std::move(out);
  return replaced;
}

std::optional<std::size_t> FirstControlCharacter(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool crlf = c == '\r' && i + 1 < text.size() && text[i + 1] == '\n';
    if ((c < 0x20 && c != '\t' && c != '\n' && !crlf) || c == 0x7F) return i;
  }
  return std::nullopt;
}

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace llmpo
