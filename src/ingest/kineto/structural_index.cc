#include "src/ingest/kineto/structural_index.h"

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace llmpo::ingest::kineto {
namespace {

// One 64-byte block's bytes of interest, one bit per byte.
struct RawBits {
  std::uint64_t quote = 0, backslash = 0, space = 0, bracket = 0;
};

#if defined(__AVX2__)
std::uint64_t Bits32(__m256i is) { return static_cast<std::uint32_t>(_mm256_movemask_epi8(is)); }
__m256i Is(__m256i v, char c) { return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)); }

RawBits Classify(const char* p) {
  RawBits r;
  for (int k = 0; k < 2; ++k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
    const __m256i space =
        _mm256_or_si256(_mm256_or_si256(Is(v, ' '), Is(v, '\n')), _mm256_or_si256(Is(v, '\r'), Is(v, '\t')));
    const __m256i folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
    const int shift = 32 * k;
    r.quote |= Bits32(Is(v, '"')) << shift;
    r.backslash |= Bits32(Is(v, '\\')) << shift;
    r.space |= Bits32(space) << shift;
    r.bracket |= Bits32(_mm256_or_si256(Is(folded, '{'), Is(folded, '}'))) << shift;
  }
  return r;
}
#elif defined(__SSE2__)
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

}  // namespace

void StructuralIndex::Build(const char* text, std::size_t from, std::size_t size) {
  size_ = size;
  const std::size_t count = (size + 63) / 64;
  blocks_.resize(count);
  bool escape_carry = false;
  std::uint64_t inside = 0;  // all ones while a string continues into the next block
  for (std::size_t b = from / 64; b < count; ++b) {
    RawBits raw = Classify(text + b * 64);
    std::uint64_t valid = ~std::uint64_t{0};
    if (b == from / 64) valid &= ~std::uint64_t{0} << (from % 64);
    if (b + 1 == count && size % 64 != 0) valid &= (std::uint64_t{1} << (size % 64)) - 1;
    const std::uint64_t quote = raw.quote & valid & ~EscapedBytes(raw.backslash & valid, escape_carry);
    const std::uint64_t in_string = PrefixXor(quote) ^ inside;
    inside = (in_string >> 63) != 0 ? ~std::uint64_t{0} : 0;
    blocks_[b] = Block{quote, raw.bracket & valid & ~in_string, raw.space & valid, raw.backslash & valid};
  }
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
