// The structural index's block loop with 32-byte AVX2 compares; this file
// alone is compiled with -mavx2, and StructuralIndex::Build calls it only on
// a CPU that has AVX2.
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
    const __m256i space =
        _mm256_or_si256(_mm256_or_si256(Is(v, ' '), Is(v, '\n')), _mm256_or_si256(Is(v, '\r'), Is(v, '\t')));
    const __m256i folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));  // '[' -> '{', ']' -> '}'
    const int shift = 32 * k;
    r.quote |= Bits32(Is(v, '"')) << shift;
    r.backslash |= Bits32(Is(v, '\\')) << shift;
    r.space |= Bits32(space) << shift;
    r.bracket |= Bits32(_mm256_or_si256(Is(folded, '{'), Is(folded, '}'))) << shift;
  }
  return r;
}

}  // namespace

std::size_t FillBlocksAvx2(StructuralIndex::Block* blocks, const char* text, std::size_t from, std::size_t size) {
  return FillBlocks(blocks, text, from, size, [](const char* p) { return ClassifyAvx2(p); });
}

}  // namespace llmpo::ingest::kineto
