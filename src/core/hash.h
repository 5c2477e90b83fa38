// A fast hash of bytes for in-memory hash tables: eight bytes a step with
// one multiply, then a final mix. Every launch record carries a kernel name
// of 100 to 200 bytes that several sinks look up; this hashes it in about a
// third of the instructions std::hash takes. Not stable across versions:
// never written anywhere.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace llmpo {

inline std::uint64_t HashBytes(std::string_view bytes, std::uint64_t seed = 0) {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = seed ^ (bytes.size() * kMul);
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h = (h ^ word) * kMul;
    h ^= h >> 29;
  }
  if (n > 0) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, n);
    h = (h ^ word) * kMul;
    h ^= h >> 29;
  }
  // MurmurHash3's 64-bit finalizer: every input bit reaches every output bit.
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

// For unordered containers keyed by strings; transparent: a string_view
// finds a std::string key without a copy.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return HashBytes(s); }
};

}  // namespace llmpo
