// Internal to structural_index*.cc: the block loop shared by the build for
// any CPU and the AVX2 build, each compiled with its own instruction set
// (everything here has internal linkage, so the two copies never mix).
#pragma once

#include <cstddef>
#include <cstdint>

#include "src/ingest/kineto/structural_index.h"

namespace llmpo::ingest::kineto {
namespace {

// One 64-byte block's bytes of interest, one bit per byte.
struct RawBits {
  std::uint64_t quote = 0, backslash = 0, space = 0, bracket = 0;
};

// The bytes escaped by a backslash: each backslash that is not itself
// escaped escapes the byte after it. `carry` says the block's first byte is
// escaped (the last byte before it was an escaping backslash), and is set
// for the next block. Backslashes are rare in traces: most blocks return at once.
std::uint64_t EscapedBytes(std::uint64_t backslash, bool& carry) {
  if (backslash == 0 && !carry) return 0;
  std::uint64_t escaped = 0;
  if (carry) {
    escaped = 1;
    backslash &= ~std::uint64_t{1};  // an escaped backslash escapes nothing
  }
  carry = false;
  while (backslash != 0) {
    const int at = __builtin_ctzll(backslash);
    if (at == 63) {
      carry = true;
      break;
    }
    escaped |= std::uint64_t{2} << at;
    backslash &= ~((std::uint64_t{4} << at) - 1);  // past the backslash and the byte it escapes
  }
  return escaped;
}

// Bit i of the result: the parity of bits 0..i of x (1 between an opening
// quote, included, and its closing quote, excluded).
std::uint64_t PrefixXor(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// Fills blocks[from / 64, ceil(size / 64)) from text; `classify` gives the
// raw bits of the 64 bytes at a pointer, `prefix_xor` computes PrefixXor
// (lambdas, so that they are inlined). Returns the position of the first
// backslash outside strings (invalid JSON, where this escape rule and a
// byte-by-byte reader part ways), or size.
struct PortablePrefixXor {
  std::uint64_t operator()(std::uint64_t x) const { return PrefixXor(x); }
};

template <typename Classify, typename Xor = PortablePrefixXor>
inline std::size_t FillBlocks(StructuralIndex::Block* blocks, const char* text, std::size_t from, std::size_t size,
                              Classify classify, Xor prefix_xor = {}) {
  std::size_t stray = size;
  const std::size_t count = (size + 63) / 64;
  bool escape_carry = false;
  std::uint64_t inside = 0;  // all ones while a string continues into the next block
  for (std::size_t b = from / 64; b < count; ++b) {
    const RawBits raw = classify(text + b * 64);
    std::uint64_t valid = ~std::uint64_t{0};
    if (b == from / 64) valid &= ~std::uint64_t{0} << (from % 64);
    if (b + 1 == count && size % 64 != 0) valid &= (std::uint64_t{1} << (size % 64)) - 1;
    const std::uint64_t quote = raw.quote & valid & ~EscapedBytes(raw.backslash & valid, escape_carry);
    const std::uint64_t in_string = prefix_xor(quote) ^ inside;
    inside = (in_string >> 63) != 0 ? ~std::uint64_t{0} : 0;
    blocks[b] =
        StructuralIndex::Block{quote, raw.bracket & valid & ~in_string, raw.space & valid, raw.backslash & valid};
    const std::uint64_t outside = raw.backslash & valid & ~in_string;
    if (outside != 0 && stray == size) stray = b * 64 + static_cast<std::size_t>(__builtin_ctzll(outside));
  }
  return stray < size ? stray : size;
}

}  // namespace
}  // namespace llmpo::ingest::kineto
