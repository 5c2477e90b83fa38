#include "src/core/spellcheck.h"

#include <gtest/gtest.h>

namespace llmpo {
namespace {

TEST(EditDistance, Basics) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("enable", "enabel"), 2u);
}

TEST(ClosestMatch, PicksThePlausibleTypo) {
  const std::vector<std::string> names = {"profile", "report", "import", "config", "doctor"};
  EXPECT_EQ(ClosestMatch("confg", names), "config");
  EXPECT_EQ(ClosestMatch("profiel", names), "profile");
  EXPECT_EQ(ClosestMatch("zzzzzzzz", names), std::nullopt);
  EXPECT_EQ(ClosestMatch("x", std::vector<std::string>{}), std::nullopt);
}

}  // namespace
}  // namespace llmpo
