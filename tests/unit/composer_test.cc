#include "src/config/composer.h"

#include <gtest/gtest.h>

#include "tests/unit/temp_dir.h"

namespace llmpo::config {
namespace {

using llmpo::testing::TempDir;

class ComposerTest : public ::testing::Test {
 protected:
  Result<Composition> Run(std::vector<std::string> overrides, std::string name = "config") {
    ComposeRequest request;
    request.search_path = {dir_.path()};
    request.config_name = std::move(name);
    request.overrides = std::move(overrides);
    request.now = 0;
    request.cwd = "/work";
    return Compose(request);
  }
  Node Must(std::vector<std::string> overrides, std::string name = "config") {
    auto r = Run(std::move(overrides), std::move(name));
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().Render());
    return r.ok() ? r->config : Node();
  }
  std::string Fails(std::vector<std::string> overrides, ExitStatus kind = ExitStatus::kUsage) {
    auto r = Run(std::move(overrides));
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    EXPECT_EQ(r.error().kind, kind) << r.error().Render();
    return r.error().Render();
  }
  TempDir dir_;
};

TEST_F(ComposerTest, SelfPositionDecidesWhoWins) {
  dir_.Write("config.yaml", "defaults:\n  - _self_\n  - db: mysql\nport: 1\n");
  dir_.Write("db/mysql.yaml", "port: 3306\n");
  // db lands at its default package "db", so both keys survive.
  EXPECT_EQ(Must({}), Node::parse(R"({"port":1,"db":{"port":3306}})"));
}

TEST_F(ComposerTest, PrimaryKeysOverrideGroupsWhenSelfIsLast) {
  dir_.Write("config.yaml", "defaults:\n  - db@_global_: mysql\nport: 1\n");
  dir_.Write("db/mysql.yaml", "port: 3306\nhost: h\n");
  EXPECT_EQ(Must({}), Node::parse(R"({"port":1,"host":"h"})"));
}

TEST_F(ComposerTest, PackageHeaderApplies) {
  dir_.Write("config.yaml", "defaults:\n  - db: mysql\n");
  dir_.Write("db/mysql.yaml", "# @package storage.sql\nport: 3306\n");
  EXPECT_EQ(Must({}), Node::parse(R"({"storage":{"sql":{"port":3306}}})"));
}

TEST_F(ComposerTest, GroupOverrideSwapsTheOption) {
  dir_.Write("config.yaml", "defaults:\n  - db@x.db: mysql\n");
  dir_.Write("db/mysql.yaml", "port: 3306\n");
  dir_.Write("db/pg.yaml", "port: 5432\n");
  EXPECT_EQ(Must({"db@x.db=pg"}), Node::parse(R"({"x":{"db":{"port":5432}}})"));
  EXPECT_EQ(Must({"db=pg"}), Node::parse(R"({"x":{"db":{"port":5432}}})"));
}

TEST_F(ComposerTest, AppendedGroupsMergeLast) {
  dir_.Write("config.yaml", "defaults:\n  - _self_\nm:\n  name: base\n  keep: 1\n");
  dir_.Write("model/a/arch/v1.yaml", "name: a\n");
  EXPECT_EQ(Must({"+model/a/arch@m=v1"}), Node::parse(R"({"m":{"name":"a","keep":1}})"));
  EXPECT_NE(Fails({"model/a/arch@m=v1"}).find("+model/a/arch@m=v1"), std::string::npos);
}

TEST_F(ComposerTest, DeletingAGroupDropsItsKeys) {
  dir_.Write("config.yaml", "defaults:\n  - db: mysql\n  - _self_\nx: 1\n");
  dir_.Write("db/mysql.yaml", "port: 3306\n");
  EXPECT_EQ(Must({"~db"}), Node::parse(R"({"x":1})"));
}

TEST_F(ComposerTest, MandatoryGroupNeedsAChoice) {
  dir_.Write("config.yaml", "defaults:\n  - db: ???\n");
  dir_.Write("db/mysql.yaml", "port: 3306\n");
  EXPECT_NE(Fails({}).find("available: mysql"), std::string::npos);
  EXPECT_EQ(Must({"db=mysql"}), Node::parse(R"({"db":{"port":3306}})"));
}

TEST_F(ComposerTest, AmbiguousGroupMustNameItsPackage) {
  dir_.Write("config.yaml", "defaults:\n  - db@a: mysql\n  - db@b: mysql\n");
  dir_.Write("db/mysql.yaml", "port: 3306\n");
  EXPECT_NE(Fails({"db=mysql"}).find("more than once"), std::string::npos);
  EXPECT_EQ(Must({"db@b=mysql"})["b"]["port"], Node(3306));
}

TEST_F(ComposerTest, NestedDefaultsAreRefusedClearly) {
  dir_.Write("config.yaml", "defaults:\n  - db: mysql\n");
  dir_.Write("db/mysql.yaml", "defaults:\n  - x: y\nport: 1\n");
  EXPECT_NE(Fails({}, ExitStatus::kInput).find("not supported"), std::string::npos);
}

TEST_F(ComposerTest, ValueOverridesAreTypeChecked) {
  dir_.Write("config.yaml", "i: 1\nf: 1.5\nb: true\ns: text\nl: [a]\nm: {k: v}\nn: null\n");
  EXPECT_EQ(Must({"i=2", "f=3", "b=false", "s=42", "l=[x,y]", "m={k: w}", "n=[1]"}),
            Node::parse(R"({"i":2,"f":3,"b":false,"s":42,"l":["x","y"],"m":{"k":"w"},"n":[1]})"));
  EXPECT_NE(Fails({"i=1.5"}).find("type mismatch"), std::string::npos);
  EXPECT_NE(Fails({"b=1"}).find("type mismatch"), std::string::npos);
  EXPECT_NE(Fails({"m=3"}).find("type mismatch"), std::string::npos);
  EXPECT_EQ(Must({"++b=1"})["b"], Node(1));
  EXPECT_EQ(Must({"l=one"})["l"], Node("one"));  // one-or-many keys take a single string
}

TEST_F(ComposerTest, UnknownKeySuggestsTheNearestOne) {
  dir_.Write("config.yaml", "pipeline:\n  ncu:\n    enable: false\n");
  const std::string err = Fails({"pipeline.ncu.enabled=true"});
  EXPECT_NE(err.find("did you mean 'pipeline.ncu.enable'?"), std::string::npos) << err;
  EXPECT_NE(err.find("+pipeline.ncu.enabled=true"), std::string::npos) << err;
}

TEST_F(ComposerTest, OverridesApplyInOrder) {
  dir_.Write("config.yaml", "a: 1\n");
  EXPECT_EQ(Must({"a=2", "a=3"})["a"], Node(3));
  EXPECT_EQ(Must({"+b=1", "~b"}), Node::parse(R"({"a":1})"));
}

TEST_F(ComposerTest, InterpolationsSeeOverriddenValues) {
  dir_.Write("config.yaml", "root: /r\nout: ${root}/out\n");
  EXPECT_EQ(Must({"root=/x"})["out"], Node("/x/out"));
}

TEST_F(ComposerTest, MissingPrimaryConfigListsWhatExists) {
  dir_.Write("config.yaml", "a: 1\n");
  dir_.Write("other.yaml", "a: 2\n");
  auto r = Run({}, "confg");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().Render().find("did you mean 'config'?"), std::string::npos);
  EXPECT_NE(r.error().Render().find("available: config, other"), std::string::npos);
}

TEST(BuiltinConfig, EverySeedLineComposes) {
  // The override lines of the seeds (spec/seeds) against the shipped conf/.
  const std::vector<std::vector<std::string>> lines = {
      {"model/dummy_shallow_resnet/arch@model=dummy_shallow_resnet.default",
       "model/dummy_shallow_resnet/infer@infer=dummy_shallow_resnet.default", "pipeline.ncu.enable=true",
       "pipeline.ncu.ncu_cli.replay_mode=range", "pipeline.ncu.ncu_cli.sections=[SpeedOfLight,Occupancy]"},
      {"pipeline.ncu.enable=true", "pipeline.nsys.enable=false", "pipeline.ncu.ncu_cli.replay_mode=range",
       "pipeline.ncu.ncu_cli.nvtx.include=*", "device=cuda:0"},
      {"+run.mode=deep", "+inputs.manifest=/abs/path/inputs.yaml"},
  };
  for (const auto& overrides : lines) {
    ComposeRequest request;
    request.search_path = {std::string(LLMPO_SOURCE_DIR) + "/conf"};
    request.overrides = overrides;
    auto r = Compose(request);
    ASSERT_TRUE(r.ok()) << r.error().Render();
  }
}

}  // namespace
}  // namespace llmpo::config
