#include "src/config/yaml_io.h"

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
