#include "src/ingest/nvtx_columns.h"

#include <gtest/gtest.h>

namespace llmpo::ingest {
namespace {

using model::NvtxFrame;

TEST(ParsePushPopColumn, StackOutermostFirst) {
  const auto frames = ParsePushPopColumn(
      R"(1614690 "<default domain>:A:none:none:none:none:none:none" "<default domain>:A::A1:none:none:none:none:none:none")");
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0], (NvtxFrame{"", "A", std::nullopt}));
  EXPECT_EQ(frames[1], (NvtxFrame{"", "A::A1", std::nullopt}));  // ':' inside a name survives
}

TEST(ParsePushPopColumn, DomainsSpacesAndMessages) {
  const auto frames = ParsePushPopColumn(
      R"(7 "LLM:decode step 3:none:none:ARGB:0xff00ff00:none:none" "LLM::none:none:none:none:ASCII:layer 2")");
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].domain, "LLM");
  EXPECT_EQ(frames[0].name, "decode step 3");
  EXPECT_EQ(frames[1].name, "layer 2");  // named by its message
}

TEST(ParsePushPopColumn, EmptyAndMalformed) {
  EXPECT_TRUE(ParsePushPopColumn("").empty());
  EXPECT_TRUE(ParsePushPopColumn("123").empty());
  EXPECT_TRUE(ParsePushPopColumn(R"(1 "no fields here")").empty());
}

TEST(ParseStartEndColumn, IdsBecomeInstances) {
  const auto bare = ParseStartEndColumn("4:<default domain>:warmup:none:none:none:none:none:none");
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare[0], (NvtxFrame{"", "warmup", 4}));
  const auto quoted =
      ParseStartEndColumn(R"("1:D:a:none:none:none:none:none:none" "2:D:b:none:none:none:none:none:none")");
  ASSERT_EQ(quoted.size(), 2u);
  EXPECT_EQ(quoted[1], (NvtxFrame{"D", "b", 2}));
}

}  // namespace
}  // namespace llmpo::ingest
