// Kineto times and ids on their plain path (trace_reader.cc: up to 16
// integer digits and three decimals without the general parser): every
// length of integer part and of decimals, leading zeros and the int64 edge,
// against a reference computed here digit by digit in 128-bit arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "src/ingest/kineto/trace_reader.h"

namespace llmpo::ingest::kineto {
namespace {

// "digits[.decimals]" microseconds in ns, rounded half away from zero by
// the first decimal past the third; nullopt past int64.
std::optional<std::int64_t> Reference(const std::string& digits, const std::string& decimals) {
  __int128 ns = 0;
  for (char c : digits) ns = ns * 10 + (c - '0');
  for (std::size_t k = 0; k < 3; ++k) ns = ns * 10 + (k < decimals.size() ? decimals[k] - '0' : 0);
  if (decimals.size() > 3 && decimals[3] >= '5') ++ns;
  if (ns > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  return static_cast<std::int64_t>(ns);
}

TEST(KinetoTimeDigits, EveryLengthReadsAsTheReferenceReadsIt) {
  std::uint64_t seed = 2024;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed >> 33;
  };
  int compared = 0;
  for (std::size_t int_digits = 1; int_digits <= 21; ++int_digits) {
    for (std::size_t decimals = 0; decimals <= 5; ++decimals) {
      for (int rep = 0; rep < 40; ++rep) {
        std::string a, b;
        for (std::size_t i = 0; i < int_digits; ++i) a += static_cast<char>('0' + (rep == 0 ? 9 : next() % 10));
        if (rep == 1) a[0] = '0';  // a leading zero
        for (std::size_t i = 0; i < decimals; ++i) b += static_cast<char>('0' + next() % 10);
        const std::string text = decimals == 0 ? a : a + "." + b;
        ASSERT_EQ(MicrosToNs(text), Reference(a, b)) << text;
        // The same digits as an id, where they fit one.
        if (decimals == 0 && int_digits <= 19) {
          ASSERT_EQ(IdFromText(text), std::optional<std::uint64_t>(std::stoull(text))) << text;
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 21 * 6 * 40);
  // The int64 edge in microseconds with three decimals, and one past it.
  EXPECT_EQ(MicrosToNs("9223372036854775.807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(MicrosToNs("9223372036854775.808"), std::nullopt);
  EXPECT_EQ(MicrosToNs("9223372036854774.999"), 9223372036854774999);
  // Digits followed by other bytes.
  EXPECT_EQ(MicrosToNs("1234567x"), std::nullopt);
  EXPECT_EQ(MicrosToNs("12345678.5"), 12345678500);
  EXPECT_EQ(IdFromText("1234567x"), std::nullopt);
  EXPECT_EQ(IdFromText("stream 12345678"), 12345678u);
}

}  // namespace
}  // namespace llmpo::ingest::kineto
