// Deterministic pseudo-random numbers from (seed, index): the same value on
// every machine and in every order, so the CPU references can regenerate any
// input or weight without sharing state with the GPU side.
#pragma once

#include <cstdint>
#include <vector>

namespace wl {

// splitmix64's finaliser.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint64_t Hash(uint64_t seed, uint64_t index) { return Mix64(Mix64(seed) ^ index); }

// Uniform in [-1, 1), a multiple of 2^-23.
inline float UniformSym(uint64_t seed, uint64_t index) {
  const uint32_t bits = static_cast<uint32_t>(Hash(seed, index) >> 40);  // 24 bits
  return static_cast<float>(bits) * (1.0f / 8388608.0f) - 1.0f;
}

// n values scale * UniformSym + offset, for stream `seed`.
inline std::vector<float> RandomVector(uint64_t seed, size_t n, float scale, float offset = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = offset + scale * UniformSym(seed, i);
  return v;
}

}  // namespace wl
