// LEB128 varints (protobuf's): 7 bits a byte, low bits first, the top bit
// set on every byte but the last. PutVarint/GetVarint are for compact
// in-memory logs (analysis/timed_range_log.h, analysis/step_names.h), whose
// reader trusts the bytes its own writer wrote; ReadVarint is for bytes from
// a file (the .ncu-rep reader) and checks where they end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
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

// The varint at the front of `bytes`, which moves past it; false when the
// bytes end inside it or it runs past 64 bits.
inline bool ReadVarint(std::string_view& bytes, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && !bytes.empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(bytes.front());
    bytes.remove_prefix(1);
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace llmpo
