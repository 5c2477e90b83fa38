// Eight bytes at a time in a 64-bit word (SWAR: no vector instructions),
// for the JSON reader's scans: a word's bytes as loaded, and per byte the
// high bit set exactly where the byte is zero (no carry crosses bytes: each
// sum stays below 0x100).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace llmpo::ingest::kineto::swar {

inline constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
inline constexpr std::uint64_t kHigh = 0x8080808080808080ull;
constexpr std::uint64_t Repeat(unsigned char c) { return 0x0101010101010101ull * c; }
inline std::uint64_t Load8(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline std::uint64_t ZeroBytes(std::uint64_t w) { return ~(((w & kLow7) + kLow7) | w) & kHigh; }
// The index of the first byte whose high bit is set in `mask` (little endian).
inline std::size_t FirstByte(std::uint64_t mask) { return static_cast<std::size_t>(__builtin_ctzll(mask)) / 8; }

// How many of the eight bytes of w, from the first, are ASCII digits.
inline std::size_t LeadingDigits(std::uint64_t w) {
  const std::uint64_t x = w ^ Repeat('0');  // digits become 0..9
  // High bit set where x >= 10 (as a byte); no carry crosses bytes.
  const std::uint64_t not_digit = (x | ((x & kLow7) + Repeat(128 - 10))) & kHigh;
  return not_digit == 0 ? 8 : FirstByte(not_digit);
}

// The value of the first k (1 to 8) bytes of w, all ASCII digits: they go
// to the top of the word with zeros (leading zeros) below them, and the
// eight digits are combined in three multiplies: pairs, fours, the eight.
inline std::uint64_t DigitsValue(std::uint64_t w, std::size_t k) {
  std::uint64_t v = (w ^ Repeat('0')) << (8 * (8 - k));
  v = v * 10 + (v >> 8);
  constexpr std::uint64_t kMask = 0x000000FF000000FFull;
  constexpr std::uint64_t kMul1 = 100 + (1000000ull << 32);
  constexpr std::uint64_t kMul2 = 1 + (10000ull << 32);
  return (((v & kMask) * kMul1) + (((v >> 16) & kMask) * kMul2)) >> 32;
}

}  // namespace llmpo::ingest::kineto::swar
