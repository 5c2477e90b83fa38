// A fast hash of bytes for in-memory hash tables: eight bytes a step with
// one multiply (32 bytes a step in four lanes for long strings), then a final mix. Every launch record carries a kernel name
// of 100 to 200 bytes that several sinks look up; this hashes it in about a
// third of the instructions std::hash takes. Not stable across versions:
// never written anywhere.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace llmpo {

namespace hash_detail {

inline constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;

inline std::uint64_t Load8(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

inline std::uint64_t Step(std::uint64_t h, std::uint64_t word) {
  h = (h ^ word) * kMul;
  return h ^ (h >> 29);
}

}  // namespace hash_detail

inline std::uint64_t HashBytes(std::string_view bytes, std::uint64_t seed = 0) {
  using hash_detail::Load8;
  using hash_detail::Step;
  std::uint64_t h = seed ^ (bytes.size() * hash_detail::kMul);
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  if (n >= 32) {
    // Four independent lanes, 32 bytes a step: the multiplies of one step
    // overlap instead of each waiting for the last (kernel names are long).
    std::uint64_t a = h, b = h ^ 0x243F6A8885A308D3ull, c = h ^ 0x13198A2E03707344ull, d = h ^ 0xA4093822299F31D0ull;
    for (; n >= 32; p += 32, n -= 32) {
      a = Step(a, Load8(p));
      b = Step(b, Load8(p + 8));
      c = Step(c, Load8(p + 16));
      d = Step(d, Load8(p + 24));
    }
    h = Step(Step(Step(a, b), c), d);
  }
  for (; n >= 8; p += 8, n -= 8) h = Step(h, Load8(p));
  if (n > 0) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, n);
    h = Step(h, word);
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

// Sets `key` to one string for the pair (first, second), "<first's
// length>:<first><second>", so that no two pairs share a key; a reused
// `key` keeps its buffer.
inline void AssignPairKey(std::string& key, std::string_view first, std::string_view second) {
  key.assign(std::to_string(first.size())).append(1, ':').append(first).append(second);
}

}  // namespace llmpo
