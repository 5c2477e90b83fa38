// UTF-8 validation: config text must be Unicode (YAML requires it, and JSON
// output cannot carry stray bytes), so bad bytes are refused on the way in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmpo {

// Offset of the first byte that is not part of a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points past U+10FFFF included), or
// nullopt when the whole text is valid.
std::optional<std::size_t> FirstInvalidUtf8(std::string_view text);

// Replaces each byte that is not part of a well-formed sequence with U+FFFD
// (the replacement character) and returns how many it replaced; valid text
// is left alone, without a copy.
std::size_t ReplaceInvalidUtf8(std::string& text);

// Offset of the first C0 control character other than tab, LF and the CR of
// a CRLF (or DEL): YAML does not allow them unescaped, and yaml-cpp would
// alter them on the way out.
std::optional<std::size_t> FirstControlCharacter(std::string_view text);

// Appends code point `cp` (at most U+10FFFF, not a surrogate) as UTF-8.
void AppendUtf8(std::string& out, std::uint32_t cp);

}  // namespace llmpo
