#include "src/config/scalar.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llmpo::config {
namespace {

TEST(TypePlainScalar, NullForms) {
  EXPECT_TRUE(TypePlainScalar("null").is_null());
  EXPECT_TRUE(TypePlainScalar("NULL").is_null());
  EXPECT_TRUE(TypePlainScalar("~").is_null());
  EXPECT_TRUE(TypePlainScalar("").is_null());
}

TEST(TypePlainScalar, Bools) {
  EXPECT_EQ(TypePlainScalar("true"), Node(true));
  EXPECT_EQ(TypePlainScalar("False"), Node(false));
  // YAML 1.1 spellings stay strings, as in OmegaConf.
  EXPECT_EQ(TypePlainScalar("yes"), Node("yes"));
  EXPECT_EQ(TypePlainScalar("on"), Node("on"));
}

TEST(TypePlainScalar, Integers) {
  EXPECT_EQ(TypePlainScalar("42"), Node(42));
  EXPECT_EQ(TypePlainScalar("-7"), Node(-7));
  EXPECT_EQ(TypePlainScalar("1_000"), Node(1000));
  EXPECT_EQ(TypePlainScalar("0x1F"), Node(31));
  EXPECT_EQ(TypePlainScalar("0o17"), Node(15));
  EXPECT_TRUE(TypePlainScalar("42").is_number_integer());
}

TEST(TypePlainScalar, HugeIntegerKeepsItsText) {
  EXPECT_EQ(TypePlainScalar("123456789012345678901234567890"), Node("123456789012345678901234567890"));
}

TEST(TypePlainScalar, Floats) {
  EXPECT_EQ(TypePlainScalar("1.5"), Node(1.5));
  EXPECT_EQ(TypePlainScalar("1e-3"), Node(0.001));
  EXPECT_EQ(TypePlainScalar(".5"), Node(0.5));
  EXPECT_EQ(TypePlainScalar("3."), Node(3.0));
  EXPECT_TRUE(std::isinf(TypePlainScalar(".inf").get<double>()));
  EXPECT_LT(TypePlainScalar("-inf").get<double>(), 0);
  EXPECT_TRUE(std::isnan(TypePlainScalar("nan").get<double>()));
}

TEST(TypePlainScalar, EverythingElseIsAString) {
  for (const char* s : {"cuda:0", "ncu.default", "1.2.3", "A/", "decode*", "12ab", "infinity", "e5", "-"}) {
    EXPECT_EQ(TypePlainScalar(s), Node(s)) << s;
  }
}

TEST(ScalarToText, FloatsKeepAFloatSpelling) {
  EXPECT_EQ(ScalarToText(Node(2.0)), "2.0");
  EXPECT_EQ(ScalarToText(Node(0.25)), "0.25");
  EXPECT_EQ(ScalarToText(TypePlainScalar("-.inf")), "-.inf");
  EXPECT_EQ(ScalarToText(Node(true)), "true");
  EXPECT_EQ(ScalarToText(Node(nullptr)), "null");
}

TEST(NeedsQuotesToStayString, OnlyWhenRetyped) {
  EXPECT_TRUE(NeedsQuotesToStayString("true"));
  EXPECT_TRUE(NeedsQuotesToStayString("12"));
  EXPECT_TRUE(NeedsQuotesToStayString("null"));
  EXPECT_FALSE(NeedsQuotesToStayString("kernel"));
}

}  // namespace
}  // namespace llmpo::config
