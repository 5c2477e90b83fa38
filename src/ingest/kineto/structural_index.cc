#include "src/ingest/kineto/structural_index.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "src/ingest/kineto/structural_index_blocks.h"

namespace llmpo::ingest::kineto {
namespace {

#if defined(__SSE2__)
std::uint64_t Bits16(__m128i is) { return static_cast<std::uint32_t>(_mm_movemask_epi8(is)); }
__m128i Is(__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); }

RawBits Classify(const char* p) {
  RawBits r;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i space = _mm_or_si128(_mm_or_si128(Is(v, ' '), Is(v, '\n')), _mm_or_si128(Is(v, '\r'), Is(v, '\t')));
    // Setting bit 5 folds '[' onto '{' and ']' onto '}': two compares for four characters.
    const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    const int shift = 16 * k;
    r.quote |= Bits16(Is(v, '"')) << shift;
    r.backslash |= Bits16(Is(v, '\\')) << shift;
    r.space |= Bits16(space) << shift;
    r.bracket |= Bits16(_mm_or_si128(Is(folded, '{'), Is(folded, '}'))) << shift;
  }
  return r;
}
#else
RawBits Classify(const char* p) {
  RawBits r;
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    switch (p[i]) {
      case '"':
        r.quote |= bit;
        break;
      case '\\':
        r.backslash |= bit;
        break;
      case ' ':
      case '\n':
      case '\r':
      case '\t':
        r.space |= bit;
        break;
      case '{':
      case '}':
      case '[':
      case ']':
        r.bracket |= bit;
        break;
      default:
        break;
    }
  }
  return r;
}
#endif

}  // namespace

void StructuralIndex::Build(const char* text, std::size_t from, std::size_t size, bool any_cpu) {
  size_ = size;
  blocks_.resize((size + 63) / 64);
#if defined(LLMPO_AVX2_INDEX)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
  if (avx2 && !any_cpu) {
    limit_ = FillBlocksAvx2(blocks_.data(), text, from, size);
    return;
  }
#endif
  limit_ = FillBlocks(blocks_.data(), text, from, size, [](const char* p) { return Classify(p); });
}

bool StructuralIndex::BackslashInBlocks(std::size_t from, std::size_t to) const {
  const std::size_t first = from / 64, last = (to - 1) / 64;
  for (std::size_t b = first; b <= last; ++b) {
    std::uint64_t word = blocks_[b].backslash;
    if (b == first) word &= ~std::uint64_t{0} << (from % 64);
    if (b == last && to % 64 != 0) word &= (std::uint64_t{1} << (to % 64)) - 1;
    if (word != 0) return true;
  }
  return false;
}

}  // namespace llmpo::ingest::kineto
