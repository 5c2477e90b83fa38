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

}  // namespace llmpo::ingest::kineto::swar
