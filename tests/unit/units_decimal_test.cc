// ParseNumber's short-decimal path must give exactly what from_chars gives
// for the same digits, grouped or not, on either side of its 15-digit limit.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "src/core/units.h"

namespace llmpo {
namespace {

double FromChars(const std::string& digits) {
  double value = 0;
  const char* begin = digits.data() + (digits.front() == '+' ? 1 : 0);
  const auto [ptr, ec] = std::from_chars(begin, digits.data() + digits.size(), value);
  EXPECT_TRUE(ec == std::errc() && ptr == digits.data() + digits.size()) << digits;
  return value;
}

std::string Group(const std::string& integer) {
  std::string out;
  for (std::size_t i = 0; i < integer.size(); ++i) {
    if (i > 0 && (integer.size() - i) % 3 == 0) out += ',';
    out += integer[i];
  }
  return out;
}

TEST(ParseNumberDecimal, SameBitsAsFromChars) {
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 200000; ++trial) {
    std::string integer = std::to_string(rng() % 10 == 0 ? 0 : rng() >> (rng() % 64));
    if (rng() % 8 == 0) integer = "0" + integer;  // a leading zero
    std::string fraction;
    const int fraction_digits = static_cast<int>(rng() % 12);
    for (int i = 0; i < fraction_digits; ++i) fraction += static_cast<char>('0' + rng() % 10);
    const std::string sign = rng() % 4 == 0 ? "-" : (rng() % 8 == 0 ? "+" : "");
    const std::string plain = sign + integer + (fraction.empty() ? "" : "." + fraction);
    const double expected = FromChars(plain);
    const auto parsed = ParseNumber(plain);
    ASSERT_TRUE(parsed) << plain;
    EXPECT_EQ(std::memcmp(&*parsed, &expected, sizeof(double)), 0) << plain;  // -0.0 included
    if (integer.size() > 3 && integer[0] != '0') {
      const std::string grouped = sign + Group(integer) + (fraction.empty() ? "" : "." + fraction);
      const auto parsed_grouped = ParseNumber(grouped);
      ASSERT_TRUE(parsed_grouped) << grouped;
      EXPECT_EQ(std::memcmp(&*parsed_grouped, &expected, sizeof(double)), 0) << grouped;
    }
  }
}

TEST(ParseNumberDecimal, NearMissesKeepTheirOldMeaning) {
  EXPECT_EQ(ParseNumber("1,2345"), std::nullopt);      // a group of four
  EXPECT_EQ(ParseNumber("1234,567"), std::nullopt);    // a lead of four
  EXPECT_EQ(ParseNumber("1,"), std::nullopt);
  EXPECT_EQ(ParseNumber(",123"), std::nullopt);
  EXPECT_EQ(ParseNumber("-"), std::nullopt);
  EXPECT_EQ(ParseNumber("5."), 5.0);                   // from_chars reads it
  EXPECT_EQ(ParseNumber(".5"), 0.5);
  EXPECT_EQ(ParseNumber("1e3"), 1000.0);
  EXPECT_EQ(ParseNumber(" 2.5 "), 2.5);
  EXPECT_EQ(ParseNumber("27.595.520"), 27595520.0);
  EXPECT_EQ(ParseNumber("1.000"), 1.0);                // one dot: a decimal point
  EXPECT_TRUE(std::signbit(*ParseNumber("-0")));
}

}  // namespace
}  // namespace llmpo
