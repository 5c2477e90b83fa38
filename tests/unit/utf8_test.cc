#include "src/core/utf8.h"

#include <gtest/gtest.h>

namespace llmpo {
namespace {

TEST(FirstInvalidUtf8, AcceptsWellFormedText) {
  EXPECT_EQ(FirstInvalidUtf8(""), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("µs → 𝛑"), std::nullopt);
}

TEST(FirstInvalidUtf8, FindsTheFirstBadByte) {
  EXPECT_EQ(FirstInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("a\xc3"), 1u);             // truncated sequence
  EXPECT_EQ(FirstInvalidUtf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("\xed\xa0\x80"), 0u);      // surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
}

// Long ASCII runs are skipped eight bytes at a time: the bad byte must be
// found wherever it falls against those steps, after multi-byte characters too.
TEST(FirstInvalidUtf8, FindsTheBadByteAtEveryOffsetOfLongText) {
  for (std::size_t ascii = 0; ascii < 40; ++ascii) {
    for (const std::string lead : {"", "\xc2\xb5", "\xf0\x9d\x9b\x91xyz"}) {
      const std::string good = lead + std::string(ascii, 'k');
      EXPECT_EQ(FirstInvalidUtf8(good + "tail of it"), std::nullopt) << ascii;
      EXPECT_EQ(FirstInvalidUtf8(good + "\xff" + std::string(20, 'z')), good.size()) << ascii;
      EXPECT_EQ(FirstInvalidUtf8(good + "\xe2\x86"), good.size()) << ascii;  // cut short at the end
    }
  }
}

}  // namespace
}  // namespace llmpo

namespace llmpo {
namespace {

TEST(FirstControlCharacter, AllowsWhitespaceOnly) {
  EXPECT_EQ(FirstControlCharacter("a\tb\r\nc"), std::nullopt);
  EXPECT_EQ(FirstControlCharacter(std::string_view("ab\0c", 4)), 2u);
  EXPECT_EQ(FirstControlCharacter("a\x08"), 1u);
  EXPECT_EQ(FirstControlCharacter("\x7f"), 0u);
  EXPECT_EQ(FirstControlCharacter("a\rb"), 1u);  // a lone CR, unlike CRLF
}

}  // namespace
}  // namespace llmpo

namespace llmpo {
namespace {

TEST(ReplaceInvalidUtf8, EachBadByteBecomesU_FFFD) {
  std::string latin1 = "caf\xe9_kernel";
  EXPECT_EQ(ReplaceInvalidUtf8(latin1), 1u);
  EXPECT_EQ(latin1, "caf\xEF\xBF\xBD_kernel");
  EXPECT_EQ(FirstInvalidUtf8(latin1), std::nullopt);
  std::string two = "\xff\xfe ok \xc3";  // two stray bytes and a cut-off sequence
  EXPECT_EQ(ReplaceInvalidUtf8(two), 3u);
  EXPECT_EQ(two, "\xEF\xBF\xBD\xEF\xBF\xBD ok \xEF\xBF\xBD");
  std::string valid = "gemm \xc3\xa9 \xe2\x80\xa6";
  EXPECT_EQ(ReplaceInvalidUtf8(valid), 0u);
  EXPECT_EQ(valid, "gemm \xc3\xa9 \xe2\x80\xa6");
}

}  // namespace
}  // namespace llmpo
