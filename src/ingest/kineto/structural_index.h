// Bit masks over a span of JSON text, 64 bytes to a word, so that a reader
// can jump from token to token instead of testing byte after byte: where
// the unescaped quotes are, where white space is, where the brackets and
// braces outside strings are, and where backslashes are (a string with one
// needs decoding). Built with SSE2 (16 bytes a step) on x86-64, and 8 bytes
// a step elsewhere.
//
// The text must start outside a string (a token boundary); from there the
// masks follow JSON's rules: a quote preceded by an odd run of backslashes
// is escaped, and brackets between a string's quotes are not structure.
// Bytes of invalid JSON give masks that are merely consistent with the
// bytes: the reader that walks them still checks every token it takes, and
// stops at limit().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llmpo::ingest::kineto {

class StructuralIndex {
 public:
  // Indexes text[from, size). Bits before `from` are clear. `text` must
  // stay readable for 64 bytes past the block that holds size - 1 (the
  // reader's buffer keeps that padding).
  // `any_cpu`: the SSE2 (or plain) loop even where AVX2 is there (tests).
  void Build(const char* text, std::size_t from, std::size_t size, bool any_cpu = false);

  // The first position >= p with the bit set, or size() when there is none.
  std::size_t NextQuote(std::size_t p) const { return Next<&Block::quote, false>(p); }
  std::size_t NextBracket(std::size_t p) const { return Next<&Block::bracket, false>(p); }
  std::size_t NextNonSpace(std::size_t p) const { return Next<&Block::space, true>(p); }
  std::size_t NextBackslash(std::size_t p) const { return Next<&Block::backslash, false>(p); }
  // True when a backslash lies in [from, to).
  bool BackslashIn(std::size_t from, std::size_t to) const {
    if (from >= to) return false;
    if (from / 64 == (to - 1) / 64) {  // the usual case: one block
      const std::uint64_t word = blocks_[from / 64].backslash >> (from % 64);
      const std::size_t n = to - from;
      return (n == 64 ? word : word & ((std::uint64_t{1} << n) - 1)) != 0;
    }
    return BackslashInBlocks(from, to);
  }

  std::size_t size() const { return size_; }
  // The first backslash outside strings, or size(). Valid JSON has none;
  // past one, these masks and a byte-by-byte reader may disagree on what is
  // inside a string (a reader of the index must not trust them there).
  std::size_t limit() const { return limit_; }

  struct Block {
    std::uint64_t quote = 0;    // unescaped '"'
    std::uint64_t bracket = 0;  // { } [ ] outside strings
    std::uint64_t space = 0;    // ' ' \t \n \r anywhere
    std::uint64_t backslash = 0;
  };

 private:
  template <std::uint64_t Block::*kField, bool kInverted>
  std::size_t Next(std::size_t p) const {
    if (p >= size_) return size_;
    std::size_t b = p / 64;
    std::uint64_t word = kInverted ? ~(blocks_[b].*kField) : blocks_[b].*kField;
    word &= ~std::uint64_t{0} << (p % 64);
    while (word == 0) {
      if (++b == blocks_.size()) return size_;
      word = kInverted ? ~(blocks_[b].*kField) : blocks_[b].*kField;
    }
    const std::size_t at = b * 64 + static_cast<std::size_t>(__builtin_ctzll(word));
    return at < size_ ? at : size_;
  }
  bool BackslashInBlocks(std::size_t from, std::size_t to) const;

  std::vector<Block> blocks_;
  std::size_t size_ = 0;
  std::size_t limit_ = 0;
};

// structural_index_avx2.cc (x86-64 builds): the blocks with AVX2 compares
// and PCLMULQDQ (a CPU with AVX2 and PCLMUL only).
std::size_t FillBlocksAvx2(StructuralIndex::Block* blocks, const char* text, std::size_t from, std::size_t size);

}  // namespace llmpo::ingest::kineto
