// pipeline.regions.instance_suffix: numbered NVTX names folded into one
// region with instances, and the numbers that are kept.
#include "src/analysis/instance_suffix.h"

#include <gtest/gtest.h>

#include "src/analysis/region_combine.h"
#include "src/analysis/region_tree.h"
#include "src/model/counter_suffix.h"

namespace llmpo::analysis {
namespace {

using model::LaunchRecord;
using model::NvtxFrame;

InstanceSuffix Default() { return InstanceSuffix::Create(kDefaultInstanceSuffix).value(); }

LaunchRecord Launch(double ns, std::vector<std::string> stack) {
  LaunchRecord l;
  l.kernel_name = "k";
  l.duration_ns = ns;
  l.process.name = "p";
  l.device = "0";
  l.has_nvtx = true;
  for (auto& name : stack) l.nvtx_stack.push_back(NvtxFrame{"", std::move(name), std::nullopt});
  return l;
}

const Region* At(const RegionTree& tree, std::vector<std::string> path) {
  for (const auto& r : tree.regions()) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

// The default pattern is matched by hand: it must fold every name as RE2
// folds the same pattern (spelt differently here, so RE2 runs).
TEST(InstanceSuffix, DefaultPatternFoldsAsItsRegex) {
  const InstanceSuffix by_hand = Default();
  const InstanceSuffix by_re2 = InstanceSuffix::Create("(?:[ _#-])([0-9]+)").value();
  const std::vector<std::string> names = {"decode step 12",
                                          "layer_7",
                                          "ProfilerStep#3",
                                          "batch-0042",
                                          "step12",
                                          "layers.0",
                                          "a 1 2",
                                          "x-1-2",
                                          " 5",
                                          "5",
                                          "",
                                          "no digits",
                                          "resnet_50",
                                          "_",
                                          "a__3",
                                          "a _9",
                                          "tail 123456789012345678",
                                          "tail 1234567890123456789",
                                          "\xc3\xa9 4",
                                          "a\t5",
                                          "mid 3 end",
                                          "7 ",
                                          "-",
                                          "#0",
                                          "a-b_c 99"};
  for (const auto& name : names) {
    const auto a = by_hand.Fold(name), b = by_re2.Fold(name);
    ASSERT_EQ(a.has_value(), b.has_value()) << "'" << name << "'";
    if (!a) continue;
    EXPECT_EQ(a->folded, b->folded) << "'" << name << "'";
    EXPECT_EQ(a->number, b->number) << "'" << name << "'";
  }
  EXPECT_EQ(by_hand.Fold("decode step 12")->folded, "decode step N");
  EXPECT_EQ(by_hand.Fold("decode step 12")->number, 12);
  EXPECT_FALSE(by_hand.Fold("step12"));
}

TEST(CounterSuffix, TrailingNumber) {
  EXPECT_EQ(model::FindTrailingNumber("step 12")->value, 12);
  EXPECT_EQ(model::FindTrailingNumber("step 12")->pos, 5u);
  EXPECT_FALSE(model::FindTrailingNumber("step"));
  EXPECT_FALSE(model::FindTrailingNumber("x1234567890123456789"));  // 19 digits: no counter
  EXPECT_EQ(model::NumberAfter("ProfilerStep#7", "ProfilerStep#"), 7);
  EXPECT_FALSE(model::NumberAfter("ProfilerStep#7a", "ProfilerStep#"));
  EXPECT_FALSE(model::NumberAfter("ProfilerStep#", "ProfilerStep#"));
}

TEST(InstanceSuffix, DefaultRule) {
  const InstanceSuffix rule = Default();
  EXPECT_EQ(rule.Fold("decode step 12")->folded, "decode step N");
  EXPECT_EQ(rule.Fold("decode step 12")->number, 12);
  EXPECT_EQ(rule.Fold("layer_7")->folded, "layer_N");
  EXPECT_EQ(rule.Fold("block-3")->folded, "block-N");
  EXPECT_EQ(rule.Fold("ProfilerStep#4")->folded, "ProfilerStep#N");
  EXPECT_FALSE(rule.Fold("conv2"));  // no separator: part of the name
  EXPECT_FALSE(rule.Fold("fp8 gemm"));
  EXPECT_FALSE(rule.Fold("v1.2"));
  EXPECT_FALSE(rule.Fold("decode"));
  EXPECT_FALSE(InstanceSuffix().Fold("layer_7"));
  EXPECT_FALSE(InstanceSuffix::Create("").value().Fold("layer_7"));
}

TEST(InstanceSuffix, OtherPatternsAndRefusals) {
  const InstanceSuffix rule = InstanceSuffix::Create("step([0-9]+)").value();
  EXPECT_EQ(rule.Fold("step12")->folded, "stepN");
  EXPECT_FALSE(rule.Fold("layer_7"));
  // The group must be the digits only.
  EXPECT_FALSE(InstanceSuffix::Create("(_[0-9]+)").value().Fold("layer_7"));
  const auto bad = InstanceSuffix::Create("([0-9]+");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ExitStatus::kUsage);
  const auto no_group = InstanceSuffix::Create("_[0-9]+");
  ASSERT_FALSE(no_group.ok());
  EXPECT_NE(no_group.error().message.find("no capture group"), std::string::npos);
}

TEST(InstanceSuffix, NumberedStepsAreOneRegionWithInstances) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d, Default());
  for (int step = 0; step < 100; ++step) {
    b.OnLaunch(Launch(10 + step, {"decode step " + std::to_string(step), "attn"}));
    b.OnLaunch(Launch(5, {"decode step " + std::to_string(step), "mlp"}));
  }
  b.OnLaunch(Launch(3, {"decode step 0", "attn"}));  // the first number again, after folding
  b.Finish();
  const CombinedRegions c = CombineRegions({{&b, model::SourceFamily::kNcu}});
  const RegionTree& t = c.aggregate;
  EXPECT_EQ(t.regions().size(), 3u);
  const Region* step = At(t, {"decode step N"});
  const Region* attn = At(t, {"decode step N", "attn"});
  ASSERT_TRUE(step && attn && At(t, {"decode step N", "mlp"}));
  EXPECT_EQ(step->name, "decode step N");
  EXPECT_EQ(step->launches, 201u);
  EXPECT_DOUBLE_EQ(*step->total_ns, 100 * 10 + 99 * 100 / 2 + 100 * 5 + 3);
  EXPECT_DOUBLE_EQ(*attn->total_ns, 100 * 10 + 99 * 100 / 2 + 3);
  std::string of;
  const auto instances = step->Instances(&of);
  ASSERT_TRUE(instances);
  EXPECT_EQ(of, "total_ms");
  EXPECT_EQ(instances->count, 100u);
  EXPECT_DOUBLE_EQ(instances->min_ns, 11 + 5);  // step 1 (step 0: 10 + 5, and 3 more later)
  EXPECT_DOUBLE_EQ(instances->max_ns, 109 + 5);
  EXPECT_DOUBLE_EQ(instances->total_ns, *step->total_ns);
}

TEST(InstanceSuffix, ANumberSeenOnceStays) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d, Default());
  b.OnLaunch(Launch(1, {"resnet_50", "layer_1"}));
  b.OnLaunch(Launch(1, {"resnet_50", "layer_1"}));
  b.OnLaunch(Launch(1, {"other", "layer_2"}));  // another parent: not a second number of resnet_50's layer
  b.Finish();
  const CombinedRegions c = CombineRegions({{&b, model::SourceFamily::kNcu}});
  EXPECT_TRUE(At(c.aggregate, {"resnet_50", "layer_1"}));
  EXPECT_TRUE(At(c.aggregate, {"other", "layer_2"}));
  EXPECT_EQ(c.aggregate.regions().size(), 4u);
}

TEST(InstanceSuffix, SubtreesFoldAndALiteralNameBlocks) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d, Default());
  b.OnLaunch(Launch(1, {"step 1", "layer_1"}));
  b.OnLaunch(Launch(2, {"step 1", "layer_2"}));
  b.OnLaunch(Launch(4, {"step 2", "layer_1"}));
  b.OnLaunch(Launch(8, {"run N", "x"}));
  b.OnLaunch(Launch(16, {"run 1"}));
  b.OnLaunch(Launch(32, {"run 2"}));  // "run N" exists: these stay apart
  b.Finish();
  const CombinedRegions c = CombineRegions({{&b, model::SourceFamily::kNcu}});
  const RegionTree& t = c.aggregate;
  ASSERT_TRUE(At(t, {"step N", "layer_N"}));
  EXPECT_DOUBLE_EQ(*At(t, {"step N", "layer_N"})->total_ns, 7);
  EXPECT_DOUBLE_EQ(*At(t, {"step N"})->total_ns, 7);
  EXPECT_EQ(At(t, {"step 1"}), nullptr);
  EXPECT_DOUBLE_EQ(*At(t, {"run N"})->total_ns, 8);
  EXPECT_DOUBLE_EQ(*At(t, {"run 1"})->total_ns, 16);
  EXPECT_DOUBLE_EQ(*At(t, {"run 2"})->total_ns, 32);
}

TEST(InstanceSuffix, TimelineRangesKeepTheirIds) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d, Default());
  for (int i = 0; i < 3; ++i) {
    model::NvtxRange r;
    r.name = "decode step " + std::to_string(i);
    r.process.name = "p";
    r.global_tid = 1;
    r.start_ns = 100 * i;
    r.end_ns = 100 * i + 10 + i;
    r.push_pop = true;
    r.range_id = 50 + i;
    b.OnNvtxRange(r);
  }
  b.Finish();
  const CombinedRegions c = CombineRegions({{&b, model::SourceFamily::kTimeline}});
  const Region* step = At(c.aggregate, {"decode step N"});
  ASSERT_TRUE(step);
  std::string of;
  const auto instances = step->Instances(&of);
  ASSERT_TRUE(instances);
  EXPECT_EQ(of, "cpu_ms");
  EXPECT_EQ(instances->count, 3u);
  EXPECT_DOUBLE_EQ(*step->cpu_ns, 33);
}

}  // namespace
}  // namespace llmpo::analysis

namespace llmpo::analysis {
namespace {

model::NvtxRange StepRange(const std::string& name, std::int64_t start, std::optional<std::int64_t> offset) {
  model::NvtxRange r;
  r.name = name;
  r.process.name = "p";
  r.global_tid = 1;
  r.start_ns = start;
  r.end_ns = start + 10;
  r.unix_offset_ns = offset;
  return r;
}

// A folded step keeps, per number, when its instance began in Unix time
// (the range's start plus its input's offset): the first number's too,
// which was a region of its own until the second came.
TEST(InstanceSuffix, FoldedStepsKeepEachNumbersUnixStart) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d, Default());
  const std::int64_t offset = 1'700'000'000'000'000'000;
  b.OnNvtxRange(StepRange("step 3", 500, offset));
  b.OnNvtxRange(StepRange("step 4", 900, offset));
  b.OnNvtxRange(StepRange("step 3", 400, offset));  // a second instance of 3 (another thread): the earlier wins
  b.Finish();
  const CombinedRegions c = CombineRegions({{&b, model::SourceFamily::kTimeline}});
  const Region* step = At(c.aggregate, {"step N"});
  ASSERT_TRUE(step);
  std::vector<std::pair<std::int64_t, std::int64_t>> starts;
  step->number_start_unix_ns.ForEach([&](std::int64_t n, std::int64_t t) { starts.emplace_back(n, t); });
  EXPECT_EQ(starts, (std::vector<std::pair<std::int64_t, std::int64_t>>{{3, offset + 400}, {4, offset + 900}}));
  EXPECT_EQ(step->start_unix_ns, offset + 400);
}

TEST(InstanceSuffix, NoUnixStartWithoutTheInputsClock) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d, Default());
  b.OnNvtxRange(StepRange("step 1", 100, std::nullopt));
  b.OnNvtxRange(StepRange("step 2", 200, std::nullopt));
  b.Finish();
  const CombinedRegions c = CombineRegions({{&b, model::SourceFamily::kTimeline}});
  const Region* step = At(c.aggregate, {"step N"});
  ASSERT_TRUE(step);
  EXPECT_TRUE(step->number_start_unix_ns.empty());
  EXPECT_FALSE(step->start_unix_ns);
}

}  // namespace
}  // namespace llmpo::analysis
