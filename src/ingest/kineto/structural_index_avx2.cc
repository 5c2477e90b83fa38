// The structural index's block loop with 32-byte AVX2 compares and a
// carry-less multiply for the string mask; this file alone is compiled with
// -mavx2 -mpclmul, and StructuralIndex::Build calls it only on a CPU that
// has both.
#include <immintrin.h>

#include "src/ingest/kineto/structural_index_blocks.h"

namespace llmpo::ingest::kineto {
namespace {

std::uint64_t Bits32(__m256i is) { return static_cast<std::uint32_t>(_mm256_movemask_epi8(is)); }
__m256i Is(__m256i v, char c) { return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)); }

RawBits ClassifyAvx2(const char* p) {
  RawBits r;
  for (int k = 0; k < 2; ++k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
    // White space by a table of the low four bits: each of ' ', '\t', '\n',
    // '\r' sits at its own low bits, and no other byte reads back as itself
    // (the filler bytes' low bits differ from their slot; bytes >= 0x80 read 0).
    const __m256i table = _mm256_setr_epi8(' ', -1, -1, -1, -1, -1, -1, -1, -1, '\t', '\n', -1, -1, '\r', -1, 0,
                                           ' ', -1, -1, -1, -1, -1, -1, -1, -1, '\t', '\n', -1, -1, '\r', -1, 0);
    const __m256i space = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(table, v), v);
    const __m256i folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));  // '[' -> '{', ']' -> '}'
    const int shift = 32 * k;
    r.quote |= Bits32(Is(v, '"')) << shift;
    r.backslash |= Bits32(Is(v, '\\')) << shift;
    r.space |= Bits32(space) << shift;
    r.bracket |= Bits32(_mm256_or_si256(Is(folded, '{'), Is(folded, '}'))) << shift;
  }
  return r;
}

// Bit i: the parity of bits 0..i of x, as one carry-less multiply by all ones.
std::uint64_t PrefixXorClmul(std::uint64_t x) {
  const __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(x)), _mm_set1_epi8(-1), 0);
  return static_cast<std::uint64_t>(_mm_cvtsi128_si64(product));
}

}  // namespace

std::size_t FillBlocksAvx2(StructuralIndex::Block* blocks, const char* text, std::size_t from, std::size_t size) {
  return FillBlocks(
      blocks, text, from, size, [](const char* p) { return ClassifyAvx2(p); },
      [](std::uint64_t x) { return PrefixXorClmul(x); });
}

}  // namespace llmpo::ingest::kineto
