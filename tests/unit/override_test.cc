#include "src/config/override.h"

#include <gtest/gtest.h>

namespace llmpo::config {
namespace {

Override MustParse(std::string_view text) {
  auto r = ParseOverride(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().Render());
  return r.ok() ? r.value() : Override{};
}

std::string ParseError(std::string_view text) {
  auto r = ParseOverride(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.error().Render();
}

TEST(ParseOverride, PlainChange) {
  Override ov = MustParse("pipeline.ncu.enable=true");
  EXPECT_EQ(ov.action, OverrideAction::kChange);
  EXPECT_EQ(ov.key, "pipeline.ncu.enable");
  EXPECT_FALSE(ov.package.has_value());
  EXPECT_EQ(*ov.value, Node(true));
}

TEST(ParseOverride, Prefixes) {
  EXPECT_EQ(MustParse("+a=1").action, OverrideAction::kAdd);
  EXPECT_EQ(MustParse("++a=1").action, OverrideAction::kForceAdd);
  Override del = MustParse("~a.b");
  EXPECT_EQ(del.action, OverrideAction::kDelete);
  EXPECT_FALSE(del.value.has_value());
  EXPECT_EQ(*MustParse("~a.b=3").value, Node(3));
}

TEST(ParseOverride, GroupWithPackage) {
  Override ov = MustParse("+model/dummy_shallow_resnet/arch@model=dummy_shallow_resnet.default");
  EXPECT_EQ(ov.key, "model/dummy_shallow_resnet/arch");
  EXPECT_EQ(ov.package, "model");
  EXPECT_EQ(ov.value_text, "dummy_shallow_resnet.default");
}

TEST(ParseOverride, ListsDictsAndQuotes) {
  EXPECT_EQ(*MustParse("k=[SpeedOfLight, Occupancy]").value, Node::parse(R"(["SpeedOfLight","Occupancy"])"));
  EXPECT_EQ(*MustParse("k=[]").value, Node::array());
  EXPECT_EQ(*MustParse("k={a: 1, b: [x]}").value, Node::parse(R"({"a":1,"b":["x"]})"));
  EXPECT_EQ(*MustParse("k='true'").value, Node("true"));
  EXPECT_EQ(*MustParse("k=\"a,b\"").value, Node("a,b"));
  EXPECT_EQ(*MustParse("k='it\\'s'").value, Node("it's"));
  EXPECT_EQ(*MustParse("k=").value, Node(""));
}

TEST(ParseOverride, UnquotedValuesKeepTheirText) {
  EXPECT_EQ(*MustParse("k=A;B;A::A1").value, Node("A;B;A::A1"));
  EXPECT_EQ(*MustParse("k=LLM@*").value, Node("LLM@*"));
  EXPECT_EQ(*MustParse("k=regex:.*matmul.*").value, Node("regex:.*matmul.*"));
  EXPECT_EQ(*MustParse("k=a b").value, Node("a b"));
  EXPECT_EQ(*MustParse("k=x=y").value, Node("x=y"));
}

TEST(ParseOverride, InterpolationsMayHoldStructuralCharacters) {
  EXPECT_EQ(*MustParse("k=${oc.env:X,a}").value, Node("${oc.env:X,a}"));
  EXPECT_EQ(*MustParse("k=[${a.b}, c]").value, Node::parse(R"(["${a.b}","c"])"));
}

TEST(ParseOverride, ErrorsPointAtTheProblem) {
  EXPECT_NE(ParseError("k=[a,b").find("not closed"), std::string::npos);
  EXPECT_NE(ParseError("k=a,b").find("multirun sweep"), std::string::npos);
  EXPECT_NE(ParseError("k='abc").find("no closing"), std::string::npos);
  EXPECT_NE(ParseError("=3").find("key is missing"), std::string::npos);
  EXPECT_NE(ParseError("a.b").find("expected '='"), std::string::npos);
  EXPECT_NE(ParseError("k=${a.b").find("not closed"), std::string::npos);
  EXPECT_NE(ParseError("k={a 1}").find("expected ':'"), std::string::npos);
  // The caret sits under the offending character (after "  " and the text).
  const std::string err = ParseError("a!b=1");
  EXPECT_NE(err.find("\n  a!b=1\n   ^"), std::string::npos) << err;
}

}  // namespace
}  // namespace llmpo::config
