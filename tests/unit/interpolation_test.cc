#include "src/config/interpolation.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace llmpo::config {
namespace {

Result<Node> Resolve(const char* json, std::time_t now = 0) {
  Node root = Node::parse(json);
  RETURN_IF_ERROR(ResolveInterpolations(root, ResolveContext{now, "/cwd"}));
  return root;
}

TEST(Interpolation, WholeValueKeepsType) {
  auto r = Resolve(R"({"a": {"n": 3, "m": {"k": 1}}, "x": "${a.n}", "y": "${a.m}"})");
  ASSERT_TRUE(r.ok()) << r.error().Render();
  EXPECT_EQ((*r)["x"], Node(3));
  EXPECT_EQ((*r)["y"], Node::parse(R"({"k": 1})"));
}

TEST(Interpolation, InsideAStringConcatenates) {
  auto r = Resolve(R"({"n": 3, "b": true, "s": "n=${n} b=${b}"})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["s"], Node("n=3 b=true"));
}

TEST(Interpolation, ChainsAndRelativeKeys) {
  auto r = Resolve(R"({"a": "${b}", "b": "${c}", "c": "end", "g": {"x": 1, "y": "${.x}", "h": {"z": "${..x}"}}})");
  ASSERT_TRUE(r.ok()) << r.error().Render();
  EXPECT_EQ((*r)["a"], Node("end"));
  EXPECT_EQ((*r)["g"]["y"], Node(1));
  EXPECT_EQ((*r)["g"]["h"]["z"], Node(1));
}

TEST(Interpolation, NowUsesTheGivenInstant) {
  setenv("TZ", "UTC", 1);
  tzset();
  auto r = Resolve(R"({"d": "run-${now:%Y%m%d-%H%M%S}"})", 1700000000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["d"], Node("run-20231114-221320"));
}

TEST(Interpolation, EnvAndHydraResolvers) {
  setenv("LLMPO_TEST_VAR", "hello", 1);
  unsetenv("LLMPO_TEST_UNSET");
  auto r = Resolve(R"({"a": "${oc.env:LLMPO_TEST_VAR}", "b": "${oc.env:LLMPO_TEST_UNSET,dflt}",
                       "c": "${hydra:runtime.cwd}/x", "hydra": {"run": {"dir": "out"}}, "d": "${hydra:run.dir}"})");
  ASSERT_TRUE(r.ok()) << r.error().Render();
  EXPECT_EQ((*r)["a"], Node("hello"));
  EXPECT_EQ((*r)["b"], Node("dflt"));
  EXPECT_EQ((*r)["c"], Node("/cwd/x"));
  EXPECT_EQ((*r)["d"], Node("out"));
  EXPECT_FALSE(Resolve(R"({"a": "${oc.env:LLMPO_TEST_UNSET}"})").ok());
}

TEST(Interpolation, EscapedStaysLiteral) {
  auto r = Resolve(R"({"a": "\\${x.y}"})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["a"], Node("${x.y}"));
}

TEST(Interpolation, ErrorsNameTheKey) {
  auto missing = Resolve(R"({"pipeline": {"enable": 1}, "a": "${pipeline.enabel}"})");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().Render().find("did you mean 'pipeline.enable'"), std::string::npos);
  auto cycle = Resolve(R"({"a": "${b}", "b": "${a}"})");
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.error().Render().find("cycle"), std::string::npos);
  auto resolver = Resolve(R"({"a": "${nope:1}"})");
  ASSERT_FALSE(resolver.ok());
  EXPECT_NE(resolver.error().Render().find("unknown resolver 'nope'"), std::string::npos);
  EXPECT_FALSE(Resolve(R"({"m": {"k": 1}, "a": "x${m}"})").ok());
}

// Ten levels, each naming the previous one ten times: 10^10 copies if
// nothing stopped it.
Node Doubling(bool lists) {
  Node root = Node::object();
  root["l0"] = lists ? Node::parse(R"(["x","x","x","x","x","x","x","x","x","x"])") : Node("xxxxxxxxxxxxxxxx");
  for (int level = 1; level <= 10; ++level) {
    const std::string ref = "${l" + std::to_string(level - 1) + "}";
    if (lists) {
      Node items = Node::array();
      for (int i = 0; i < 10; ++i) items.push_back(ref);
      root["l" + std::to_string(level)] = items;
    } else {
      std::string text;
      for (int i = 0; i < 10; ++i) text += ref;
      root["l" + std::to_string(level)] = text;
    }
  }
  return root;
}

TEST(Interpolation, RefusesStringsThatGrowPastTheLimit) {
  Node root = Doubling(false);
  auto status = ResolveInterpolations(root, ResolveContext{0, "/cwd"});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ExitStatus::kInput);
  const std::string all = status.error().Render();
  EXPECT_NE(all.find("makes the string longer than 1 MiB"), std::string::npos) << all;
  EXPECT_NE(all.find("resolving 'l"), std::string::npos) << all;
  EXPECT_NE(all.find("docs/security.md"), std::string::npos) << all;
}

TEST(Interpolation, RefusesCopiesOfCopiesPastTheLimit) {
  Node root = Doubling(true);
  auto status = ResolveInterpolations(root, ResolveContext{0, "/cwd"});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ExitStatus::kInput);
  EXPECT_NE(status.error().Render().find("interpolations copy more than 100000 nodes"), std::string::npos)
      << status.error().Render();
}

TEST(Interpolation, RefusesCopiesThatNestTooDeep) {
  // Each level wraps the previous one in a mapping: depth grows by one a line.
  Node root = Node::object();
  root["d0"] = Node::object();
  for (int level = 1; level <= 70; ++level) {
    root["d" + std::to_string(level)] = Node::object();
    root["d" + std::to_string(level)]["in"] = "${d" + std::to_string(level - 1) + "}";
  }
  auto status = ResolveInterpolations(root, ResolveContext{0, "/cwd"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().Render().find("nests the config deeper than 64 levels"), std::string::npos)
      << status.error().Render();
}

TEST(Interpolation, OrdinaryCopiesStayWithinTheLimits) {
  Node root = Doubling(false);
  for (int level = 3; level <= 10; ++level) root.erase("l" + std::to_string(level));
  auto status = ResolveInterpolations(root, ResolveContext{0, "/cwd"});
  ASSERT_TRUE(status.ok()) << status.error().Render();
  EXPECT_EQ(root["l2"].get<std::string>().size(), 1600u);
}

}  // namespace
}  // namespace llmpo::config
