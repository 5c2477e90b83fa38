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
