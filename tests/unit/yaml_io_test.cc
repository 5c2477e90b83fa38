#include "src/config/yaml_io.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace llmpo::config {
namespace {

TEST(LoadYaml, TypesPlainScalarsAndKeepsQuotedOnesAsStrings) {
  auto r = LoadYaml("a: 1\nb: '1'\nc: true\nd: \"true\"\ne:\nf: [x, 2.5]\n", "t.yaml");
  ASSERT_TRUE(r.ok()) << r.error().Render();
  EXPECT_EQ(*r, Node::parse(R"({"a":1,"b":"1","c":true,"d":"true","e":null,"f":["x",2.5]})"));
}

TEST(LoadYaml, KeepsKeyOrder) {
  auto r = LoadYaml("z: 1\na: 2\nm: 3\n", "t.yaml");
  ASSERT_TRUE(r.ok());
  std::vector<std::string> keys;
  for (const auto& [k, v] : r->items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"z", "a", "m"}));
}

TEST(LoadYaml, EmptyDocumentIsAnEmptyMapping) {
  auto r = LoadYaml("# only a comment\n", "t.yaml");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, Node::object());
}

TEST(LoadYaml, ErrorsNameFileLineAndColumn) {
  auto r = LoadYaml("a: 1\nb: [x\n", "conf/x.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitStatus::kInput);
  EXPECT_EQ(r.error().message.rfind("conf/x.yaml:", 0), 0u) << r.error().message;
}

TEST(LoadYaml, DuplicateKeysAreAnError) {
  auto r = LoadYaml("a: 1\na: 2\n", "t.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("duplicate key 'a'"), std::string::npos);
}

TEST(EmitYaml, RoundTripsTypesThatLookAlike) {
  Node tree = Node::parse(
      R"({"s_true":"true","s_num":"12","s_empty":"","s_null":"null","b":false,"i":3,"f":2.0,"n":null,
          "l":["a",1,["x"]],"m":{},"e":[],"colon":"cuda:0","hash":"a #b","interp":"${now:%Y}"})");
  const std::string text = EmitYaml(tree);
  auto back = LoadYaml(text, "emitted");
  ASSERT_TRUE(back.ok()) << text;
  EXPECT_EQ(*back, tree) << text;
}

}  // namespace
}  // namespace llmpo::config

namespace llmpo::config {
namespace {

TEST(LoadYaml, RefusesTextThatIsNotUtf8) {
  auto r = LoadYaml("a: 1\nb: x\xff\n", "bad.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bad.yaml:2:5: the file is not valid UTF-8"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace llmpo::config

namespace llmpo::config {
namespace {

// "Billion laughs": nine levels of nine aliases each, about 500 bytes that
// stand for 9^9 scalars once expanded.
std::string AliasBomb(bool mappings) {
  std::string text;
  std::string previous = "lol";
  for (char level = 'a'; level <= 'i'; ++level) {
    std::string items;
    for (int i = 0; i < 9; ++i) {
      if (!items.empty()) items += ", ";
      items += mappings ? fmt::format("k{}: {}", i, previous) : previous;
    }
    text += fmt::format("{}: &{} {}{}{}\n", level, level, mappings ? "{" : "[", items, mappings ? "}" : "]");
    previous = fmt::format("*{}", level);
  }
  return text;
}

TEST(LoadYaml, RefusesAnAliasBombOfLists) {
  const std::string text = AliasBomb(false);
  ASSERT_LT(text.size(), 600u);
  auto r = LoadYaml(text, "bomb.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitStatus::kInput);
  EXPECT_EQ(r.error().message.rfind("bomb.yaml:", 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find("grows past 100000 nodes when its aliases are expanded"), std::string::npos)
      << r.error().message;
  const std::string all = r.error().Render();
  EXPECT_NE(all.find("*"), std::string::npos) << all;  // names the alias
  EXPECT_NE(all.find("docs/security.md"), std::string::npos) << all;
  EXPECT_NE(all.find("fix: "), std::string::npos) << all;
}

TEST(LoadYaml, RefusesAnAliasBombOfMappings) {
  auto r = LoadYaml(AliasBomb(true), "bomb.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitStatus::kInput);
  EXPECT_NE(r.error().message.find("when its aliases are expanded"), std::string::npos) << r.error().message;
}

TEST(LoadYaml, RefusesAliasesThatExpandToTooMuchText) {
  // Few nodes, but each alias copies a 64 KiB string: 300 copies are 19 MiB.
  std::string text = fmt::format("a: &a {}\nb: [", std::string(64 << 10, 'x'));
  for (int i = 0; i < 300; ++i) text += i ? ", *a" : "*a";
  text += "]\n";
  auto r = LoadYaml(text, "text.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("grows past 16 MiB of text when its aliases are expanded"), std::string::npos)
      << r.error().message;
}

TEST(LoadYaml, KeepsOrdinaryAliases) {
  auto r = LoadYaml("base: &base {x: 1, y: [a, b]}\ncopy: *base\nlist: [*base, *base]\n", "t.yaml");
  ASSERT_TRUE(r.ok()) << r.error().Render();
  EXPECT_EQ((*r)["copy"], (*r)["base"]);
  EXPECT_EQ((*r)["list"][1]["y"], Node::parse(R"(["a","b"])"));
}

TEST(LoadYaml, DeepNestingNamesTheLimit) {
  for (int levels : {65, 100, 600, 5000}) {
    const std::string text = "a: " + std::string(levels, '[') + std::string(levels, ']') + "\n";
    auto r = LoadYaml(text, "deep.yaml");
    ASSERT_FALSE(r.ok()) << levels;
    EXPECT_EQ(r.error().kind, ExitStatus::kInput);
    EXPECT_NE(r.error().message.find("deep.yaml:1:"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("nested deeper than 64 levels"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find("bad file"), std::string::npos) << r.error().message;
  }
  // 63 lists inside the top-level mapping: 64 levels, the most allowed.
  auto ok = LoadYaml("a: " + std::string(63, '[') + std::string(63, ']') + "\n", "deep.yaml");
  EXPECT_TRUE(ok.ok()) << ok.error().Render();
}

TEST(LoadYaml, AliasesCountTowardsTheDepth) {
  // 40 levels, then an alias of that value 40 levels down: 80 once expanded.
  const std::string deep = std::string(39, '[') + std::string(39, ']');
  auto r = LoadYaml(fmt::format("a: &a {}\nb: {}*a{}\n", deep, std::string(40, '['), std::string(40, ']')), "d.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nested deeper than 64 levels"), std::string::npos) << r.error().message;
}

TEST(LoadYaml, RefusesTooManyNodesWithoutAliases) {
  std::string text = "a: [";
  for (int i = 0; i < 100'001; ++i) text += i ? ",1" : "1";
  text += "]\n";
  auto r = LoadYaml(text, "big.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("grows past 100000 nodes"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("aliases"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace llmpo::config

namespace llmpo::config {
namespace {

TEST(LoadYaml, RefusesAnAliasInsideTheValueItNames) {
  auto r = LoadYaml("a: &a [1, *a]\n", "loop.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitStatus::kInput);
  EXPECT_NE(r.error().message.find("loop.yaml:1:"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("is inside the value it names"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace llmpo::config
