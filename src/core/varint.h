// LEB128 varints for compact in-memory logs (analysis/timed_range_log.h,
// analysis/step_names.h): 7 bits a byte, low bits first, the top bit set on
// every byte but the last. Readers trust the bytes: they read only what
// their own writer wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llmpo {

inline void PutVarint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

// The varint at bytes[pos]; pos moves past it.
inline std::uint64_t GetVarint(const std::uint8_t* bytes, std::size_t& pos) {
  std::uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const std::uint8_t b = bytes[pos++];
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
}

}  // namespace llmpo
