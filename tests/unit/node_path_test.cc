#include "src/config/node_path.h"

#include <gtest/gtest.h>

namespace llmpo::config {
namespace {

TEST(SplitKey, DotsAndBrackets) {
  EXPECT_EQ(SplitKey("a.b.c"), (KeyPath{"a", "b", "c"}));
  EXPECT_EQ(SplitKey("a.list[1]"), (KeyPath{"a", "list", "1"}));
  EXPECT_EQ(SplitKey(""), KeyPath{});
}

TEST(NodePath, FindSetErase) {
  Node root = Node::parse(R"({"a": {"b": 1, "l": [10, 20]}})");
  EXPECT_EQ(*FindPath(root, SplitKey("a.b")), Node(1));
  EXPECT_EQ(*FindPath(root, SplitKey("a.l.1")), Node(20));
  EXPECT_EQ(FindPath(root, SplitKey("a.l.2")), nullptr);
  EXPECT_EQ(FindPath(root, SplitKey("a.x")), nullptr);

  ASSERT_TRUE(SetPath(root, SplitKey("a.new.deep"), Node("v")).ok());
  EXPECT_EQ(*FindPath(root, SplitKey("a.new.deep")), Node("v"));
  ASSERT_TRUE(SetPath(root, SplitKey("a.l.0"), Node(5)).ok());
  EXPECT_EQ(root["a"]["l"][0], Node(5));

  EXPECT_TRUE(ErasePath(root, SplitKey("a.b")));
  EXPECT_FALSE(ErasePath(root, SplitKey("a.b")));
}

TEST(NodePath, SetThroughAScalarFails) {
  Node root = Node::parse(R"({"a": 1, "l": [1]})");
  EXPECT_FALSE(SetPath(root, SplitKey("a.b"), Node(2)).ok());
  EXPECT_FALSE(SetPath(root, SplitKey("l.5"), Node(2)).ok());
}

TEST(MergeInto, MappingsMergeListsReplace) {
  Node dst = Node::parse(R"({"m": {"x": 1, "y": 2}, "l": [1, 2, 3]})");
  MergeInto(dst, Node::parse(R"({"m": {"y": 20, "z": 30}, "l": [9]})"));
  EXPECT_EQ(dst, Node::parse(R"({"m": {"x": 1, "y": 20, "z": 30}, "l": [9]})"));
}

TEST(AllKeyPaths, ListsEveryMappingKey) {
  Node root = Node::parse(R"({"a": {"b": 1}, "c": [ {"d": 1} ]})");
  EXPECT_EQ(AllKeyPaths(root), (std::vector<std::string>{"a", "a.b", "c"}));
}

}  // namespace
}  // namespace llmpo::config
