#include "src/analysis/region_tree.h"

#include <gtest/gtest.h>

#include "src/analysis/region_combine.h"

namespace llmpo::analysis {
namespace {

using model::LaunchRecord;
using model::NvtxFrame;

LaunchRecord Launch(const char* kernel, double ns, std::vector<std::string> stack, std::string process = "p",
                    std::string device = "0") {
  LaunchRecord l;
  l.kernel_name = kernel;
  l.kind = std::string_view(kernel) == "range" ? model::LaunchKind::kRange : model::LaunchKind::kKernel;
  l.duration_ns = ns;
  l.process.name = std::move(process);
  l.device = std::move(device);
  l.has_nvtx = true;
  for (auto& name : stack) l.nvtx_stack.push_back(NvtxFrame{"", std::move(name), std::nullopt});
  return l;
}

const Region* Find(const RegionTree& tree, std::vector<std::string> path) {
  for (const auto& r : tree.regions()) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

// One input's regions, finished and combined alone.
CombinedRegions Alone(RegionBuilder& b, SourceFamily family = SourceFamily::kNcu) {
  b.Finish();
  return CombineRegions({{&b, family}});
}

TEST(RegionBuilder, InclusiveAndExclusiveReconcile) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  b.OnLaunch(Launch("gemm", 100, {"A"}));
  b.OnLaunch(Launch("gemm", 40, {"A", "A::A1"}));
  b.OnLaunch(Launch("relu", 10, {"A", "A::A1", "inner"}));
  b.OnLaunch(Launch("gemm", 7, {"B"}));
  b.OnLaunch(Launch("init", 3, {}));
  const CombinedRegions c = Alone(b);
  const RegionTree& t = c.aggregate;
  const Region* a = Find(t, {"A"});
  const Region* a1 = Find(t, {"A", "A::A1"});
  ASSERT_TRUE(a && a1);
  EXPECT_DOUBLE_EQ(*a->total_ns, 150);
  EXPECT_DOUBLE_EQ(*a->exclusive_ns, 100);
  EXPECT_DOUBLE_EQ(*a1->total_ns, 50);
  EXPECT_EQ(a1->depth, 1);
  EXPECT_EQ(t.regions()[*a1->parent].label, "A");
  // parent = own + children, exactly
  double children = 0;
  for (auto i : a->children) children += *t.regions()[i].total_ns;
  EXPECT_DOUBLE_EQ(*a->exclusive_ns + children, *a->total_ns);
  // ncu kernel replay knows no CPU time, copies or projection: unknown, not 0
  EXPECT_FALSE(a->cpu_ns.has_value());
  EXPECT_FALSE(a->gpu_ops_ns.has_value());
  EXPECT_FALSE(a->projected_ns.has_value());
  EXPECT_EQ(a->kernels.at("gemm").calls, 2u);
  EXPECT_EQ(b.launches_outside(), 1u);
  EXPECT_EQ(Find(t, {"A::A1"}), nullptr);  // '::' in a name does not make a parent
}

TEST(RegionBuilder, ScopesAndAggregate) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  b.OnLaunch(Launch("k", 5, {"A"}, "p1", "0"));
  b.OnLaunch(Launch("k", 7, {"A"}, "p2", "1"));
  const CombinedRegions c = Alone(b);
  EXPECT_EQ(c.scopes.size(), 2u);
  EXPECT_DOUBLE_EQ(*Find(c.aggregate, {"A"})->total_ns, 12);
  EXPECT_DOUBLE_EQ(*Find(c.scopes.begin()->second, {"A"})->total_ns, 5);
}

TEST(RegionBuilder, FilterAppliesPerRegion) {
  auto filter = KernelFilter::Create({{}, {"relu*"}}, {});
  model::Diagnostics d;
  RegionBuilder b("in", *filter, d);
  b.OnLaunch(Launch("relu", 10, {"A"}));
  b.OnLaunch(Launch("gemm", 20, {"A"}));
  const CombinedRegions c = Alone(b);
  const Region* a = Find(c.aggregate, {"A"});
  EXPECT_DOUBLE_EQ(*a->total_ns, 20);
  EXPECT_EQ(a->excluded, 1u);
  EXPECT_EQ(a->kernels.count("relu"), 0u);
}

TEST(RegionBuilder, RangeResultsMeasureTheirRegion) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  b.OnLaunch(Launch("range", 40, {"A"}));
  b.OnLaunch(Launch("range", 44, {"A"}));
  b.OnLaunch(Launch("range", 15, {"A", "A1"}));
  const CombinedRegions c = Alone(b);
  const Region* a = Find(c.aggregate, {"A"});
  EXPECT_EQ(a->measured.count, 2u);
  EXPECT_DOUBLE_EQ(a->TotalNs(), 84);
  EXPECT_DOUBLE_EQ(*a->exclusive_ns, 69);
  EXPECT_DOUBLE_EQ(a->measured.min_ns, 40);
}

TEST(RegionBuilder, ParentOfMeasuredChildrenGetsTheirSum) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  b.OnLaunch(Launch("range", 15, {"A", "A1"}));
  b.OnLaunch(Launch("range", 5, {"A", "A2"}));
  const CombinedRegions c = Alone(b);
  const Region* a = Find(c.aggregate, {"A"});
  EXPECT_TRUE(a->derived_total);
  EXPECT_DOUBLE_EQ(a->TotalNs(), 20);
}

TEST(RegionBuilder, StartEndRangesAreFlatAndNumbered) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  LaunchRecord l = Launch("k", 10, {"A"});
  l.nvtx_start_end.push_back(NvtxFrame{"D", "warmup", 1});
  b.OnLaunch(l);
  l.nvtx_start_end[0].instance = 2;
  l.duration_ns = 30;
  b.OnLaunch(l);
  const CombinedRegions c = Alone(b);
  const Region* w = Find(c.aggregate, {"D@warmup"});
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, RegionKind::kStartEnd);
  EXPECT_EQ(w->instance_ns.size(), 2u);
  EXPECT_DOUBLE_EQ(*w->total_ns, 40);
}

TEST(RegionBuilder, LaunchesWithoutNvtxStateAreIgnored) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  LaunchRecord l = Launch("k", 10, {});
  l.has_nvtx = false;
  b.OnLaunch(l);
  EXPECT_FALSE(b.saw_nvtx());
}

model::NvtxRange Timed(const char* name, std::int64_t start, std::int64_t end, std::int64_t tid = 1) {
  model::NvtxRange r;
  r.name = name;
  r.process.name = "p";
  r.start_ns = start;
  r.end_ns = end;
  r.global_tid = tid;
  return r;
}

TEST(RegionBuilder, TimelineRangesWithoutGpuWorkKeepTheirTree) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  b.OnNvtxRange(Timed("step", 0, 100));
  b.OnNvtxRange(Timed("attn", 10, 40));
  b.OnNvtxRange(Timed("mlp", 40, 90));  // starts where attn ends: a sibling, not a child
  b.OnNvtxRange(Timed("step", 200, 260));
  b.OnNvtxRange(Timed("other_thread", 20, 30, 2));
  const CombinedRegions c = Alone(b, SourceFamily::kTimeline);
  const Region* step = Find(c.aggregate, {"step"});
  const Region* mlp = Find(c.aggregate, {"step", "mlp"});
  ASSERT_TRUE(step && mlp && Find(c.aggregate, {"step", "attn"}) && Find(c.aggregate, {"other_thread"}));
  EXPECT_DOUBLE_EQ(*step->cpu_ns, 160);
  EXPECT_DOUBLE_EQ(*step->cpu_exclusive_ns, 160 - 30 - 50);
  EXPECT_DOUBLE_EQ(*mlp->cpu_ns, 50);
  EXPECT_FALSE(step->total_ns.has_value());  // no kernel-level data: unknown
  std::string of;
  const auto inst = step->Instances(&of);
  ASSERT_TRUE(inst);
  EXPECT_EQ(of, "cpu_ms");
  EXPECT_EQ(inst->count, 2u);
  EXPECT_DOUBLE_EQ(inst->min_ns, 60);
  EXPECT_DOUBLE_EQ(inst->max_ns, 100);
}

TEST(RegionBuilder, CopiesAndProjectionFromATimeline) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  b.OnNvtxRange(Timed("load", 0, 10));
  b.OnNvtxRange(Timed("run", 20, 30));
  LaunchRecord copy = Launch("[CUDA memcpy Host-to-Device]", 50, {});
  copy.kind = model::LaunchKind::kMemcpy;
  copy.nvtx_stack.push_back(NvtxFrame{"", "load", 1});
  copy.start_ns = 100;
  copy.end_ns = 150;
  b.OnLaunch(copy);
  for (std::int64_t start : {200, 300}) {
    LaunchRecord k = Launch("gemm", 20, {});
    k.nvtx_stack.push_back(NvtxFrame{"", "run", 2});
    k.start_ns = start;
    k.end_ns = start + 20;
    b.OnLaunch(k);
  }
  const CombinedRegions c = Alone(b, SourceFamily::kTimeline);
  const Region* load = Find(c.aggregate, {"load"});
  const Region* run = Find(c.aggregate, {"run"});
  ASSERT_TRUE(load && run);
  EXPECT_DOUBLE_EQ(*load->gpu_ops_ns, 50);  // a range with only a copy is there
  EXPECT_DOUBLE_EQ(*load->total_ns, 0);     // the timeline records kernels: none ran in it
  EXPECT_DOUBLE_EQ(*run->total_ns, 40);
  EXPECT_DOUBLE_EQ(*run->projected_ns, 120);  // 200 .. 320, idle gap included
  EXPECT_DOUBLE_EQ(*run->cpu_ns, 10);
  ASSERT_TRUE(load->projected_ns.has_value());  // a copy is GPU work too: 100 .. 150
  EXPECT_DOUBLE_EQ(*load->projected_ns, 50);
}

// A range that launched no GPU work has no GPU projection (nsys'
// nvtx_gpu_proj_sum lists no row for it): unknown, not 0 ms.
TEST(RegionBuilder, NoProjectionForARangeWithoutGpuWork) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  b.OnNvtxRange(Timed("idle", 0, 10));
  b.OnNvtxRange(Timed("run", 20, 30));
  LaunchRecord k = Launch("gemm", 20, {});
  k.nvtx_stack.push_back(NvtxFrame{"", "run", 2});
  k.start_ns = 200;
  k.end_ns = 220;
  b.OnLaunch(k);
  const CombinedRegions c = Alone(b, SourceFamily::kTimeline);
  const Region* idle = Find(c.aggregate, {"idle"});
  const Region* run = Find(c.aggregate, {"run"});
  ASSERT_TRUE(idle && run);
  EXPECT_FALSE(idle->projected_ns.has_value());
  EXPECT_DOUBLE_EQ(*idle->cpu_ns, 10);
  EXPECT_DOUBLE_EQ(*run->projected_ns, 20);
}

RegionBuilder& Summary(std::vector<std::unique_ptr<RegionBuilder>>& keep, const char* source, std::optional<double> cpu,
                       std::optional<double> projected, const KernelFilter& filter, model::Diagnostics& d) {
  keep.push_back(std::make_unique<RegionBuilder>(source, filter, d));
  model::NvtxRange r;
  r.name = "qk_norm";
  r.instances = 4;
  r.total_ns = cpu;
  r.gpu_projected_ns = projected;
  keep.back()->OnNvtxRange(r);
  keep.back()->Finish();
  return *keep.back();
}

TEST(CombineRegions, SummariesOfOneRunAreNotAdded) {
  KernelFilter filter;
  model::Diagnostics d;
  std::vector<std::unique_ptr<RegionBuilder>> keep;
  RegionBuilder& sum = Summary(keep, "nvtx_sum.csv", 1064.67, std::nullopt, filter, d);
  RegionBuilder& proj = Summary(keep, "nvtx_gpu_proj_sum.csv", 1064.0, 1003.17, filter, d);  // a differing CPU time
  const CombinedRegions c = CombineRegions({{&sum, SourceFamily::kSummary}, {&proj, SourceFamily::kSummary}});
  const Region* r = Find(c.aggregate, {"qk_norm"});
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(*r->cpu_ns, 1064.67);  // the first input's, not 2128.67
  EXPECT_FALSE(r->cpu_exclusive_ns.has_value());  // a summary row records no nesting
  EXPECT_DOUBLE_EQ(*r->projected_ns, 1003.17);
  EXPECT_FALSE(r->total_ns.has_value());
  std::string of;
  EXPECT_EQ(r->Instances(&of)->count, 4u);  // not 8
  ASSERT_EQ(r->also_measured.size(), 1u);
  EXPECT_EQ(r->also_measured[0].quantity, Quantity::kCpu);
  EXPECT_DOUBLE_EQ(r->also_measured[0].ns, 1064.0);
  ASSERT_EQ(c.notes.size(), 2u);  // the same scope twice, and values that differ
  EXPECT_NE(c.notes[1].find("differ"), std::string::npos);
}

// nvtx_gpu_proj_sum's CPU time covers only the instances with GPU work; the
// nvtx_sum of the same run counts every instance and wins in either order.
TEST(CombineRegions, CpuTimeOfEveryInstanceWinsWhateverTheInputOrder) {
  KernelFilter filter;
  model::Diagnostics d;
  std::vector<std::unique_ptr<RegionBuilder>> keep;
  RegionBuilder& proj = Summary(keep, "nvtx_gpu_proj_sum.csv", 97.4155, 71.65, filter, d);
  RegionBuilder& sum = Summary(keep, "nvtx_sum.csv", 98.2921, std::nullopt, filter, d);
  const CombinedRegions c = CombineRegions({{&proj, SourceFamily::kSummary}, {&sum, SourceFamily::kSummary}});
  const Region* r = Find(c.aggregate, {"qk_norm"});
  ASSERT_NE(r, nullptr);
  EXPECT_DOUBLE_EQ(*r->cpu_ns, 98.2921);
  EXPECT_DOUBLE_EQ(*r->projected_ns, 71.65);
  ASSERT_EQ(r->also_measured.size(), 1u);
  EXPECT_DOUBLE_EQ(r->also_measured[0].ns, 97.4155);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes.back().find("only the range instances with GPU work"), std::string::npos) << c.notes.back();
  EXPECT_EQ(c.notes.back().find("ncu replays"), std::string::npos) << c.notes.back();  // no ncu input here
}

// nvtx_kern_sum counts a launch in every range of its stack: the total is
// of (launch, range) pairs, and the report says so instead of "launches".
TEST(CombineRegions, NvtxKernSumCountsAreLaunchRangePairs) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("nvtx_kern_sum.csv", filter, d);
  for (const char* range : {"step", "attn"}) {  // one launch of gemm inside attn inside step
    model::NvtxKernelRow row;
    row.range = range;
    row.kernel.kernel_name = "gemm";
    row.kernel.calls = 1;
    row.kernel.total_ns = 10;
    b.OnNvtxKernelRow(row);
  }
  const CombinedRegions c = Alone(b, SourceFamily::kSummary);
  EXPECT_EQ(c.launches_with_nvtx, 2u);
  EXPECT_TRUE(c.launches_per_range);
  std::string of;
  EXPECT_FALSE(Find(c.aggregate, {"attn"})->Instances(&of));  // "NVTX Inst" is per kernel, not the range's count
  RegionBuilder t("timeline.sqlite", filter, d);
  t.OnLaunch(Launch("gemm", 10, {"step", "attn"}));
  EXPECT_FALSE(Alone(t, SourceFamily::kTimeline).launches_per_range);
}

// nvtx_gpu_proj_sum alone: the instances are described by the projection
// (mean, min, max), not by a CPU total without extremes (docs/regions.md).
TEST(CombineRegions, ProjectionSummaryAloneDescribesInstancesByProjection) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("nvtx_gpu_proj_sum.csv", filter, d);
  model::NvtxRange r;
  r.name = "decode";
  r.instances = 3;
  r.total_ns = 3.3e6;
  r.gpu_projected_ns = 2.4e6;
  r.projected_min_ns = 0.7e6;
  r.projected_max_ns = 0.9e6;
  b.OnNvtxRange(r);
  const CombinedRegions c = Alone(b, SourceFamily::kSummary);
  std::string of;
  const auto stats = Find(c.aggregate, {"decode"})->Instances(&of);
  ASSERT_TRUE(stats);
  EXPECT_EQ(of, "projected_ms");
  EXPECT_EQ(stats->count, 3u);
  EXPECT_DOUBLE_EQ(stats->min_ns, 0.7e6);
  EXPECT_DOUBLE_EQ(stats->max_ns, 0.9e6);
}

TEST(CombineRegions, TheSameInputTwiceGivesTheNumbersOfOnce) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder a("run.csv", filter, d), b("run-again.csv", filter, d);
  for (RegionBuilder* x : {&a, &b}) {
    x->OnLaunch(Launch("gemm", 100, {"A"}));
    x->Finish();
  }
  const CombinedRegions c = CombineRegions({{&a, SourceFamily::kNcu}, {&b, SourceFamily::kNcu}});
  EXPECT_DOUBLE_EQ(*Find(c.aggregate, {"A"})->total_ns, 100);
  EXPECT_DOUBLE_EQ(*Find(c.scopes.begin()->second, {"A"})->total_ns, 100);
  EXPECT_EQ(c.launches_with_nvtx, 1u);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes[0].find("run-again.csv"), std::string::npos);
}

TEST(CombineRegions, DifferentProcessesOfOneKindAdd) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder a("rank0.csv", filter, d), b("rank1.csv", filter, d);
  a.OnLaunch(Launch("gemm", 100, {"A"}, "p (1)"));
  b.OnLaunch(Launch("gemm", 30, {"A"}, "p (2)"));
  a.Finish();
  b.Finish();
  const CombinedRegions c = CombineRegions({{&a, SourceFamily::kNcu}, {&b, SourceFamily::kNcu}});
  EXPECT_DOUBLE_EQ(*Find(c.aggregate, {"A"})->total_ns, 130);
  EXPECT_EQ(c.scopes.size(), 2u);
  EXPECT_TRUE(c.notes.empty());
}

TEST(CombineRegions, TimelineTimesWinOverNcuAndNcuIsKeptBeside) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder ncu("ncu.csv", filter, d), nsys("nsys.sqlite", filter, d);
  ncu.OnLaunch(Launch("gemm", 500, {"A"}, "app (9)"));  // serialised, replayed
  LaunchRecord k = Launch("gemm", 100, {}, "app (7)");
  k.nvtx_stack.push_back(NvtxFrame{"", "A", 1});
  k.start_ns = 0;
  k.end_ns = 100;
  nsys.OnLaunch(k);
  nsys.OnNvtxRange(Timed("A", 0, 50));
  ncu.Finish();
  nsys.Finish();
  const CombinedRegions c = CombineRegions({{&ncu, SourceFamily::kNcu}, {&nsys, SourceFamily::kTimeline}});
  const Region* a = Find(c.aggregate, {"A"});
  ASSERT_NE(a, nullptr);
  EXPECT_DOUBLE_EQ(*a->total_ns, 100);  // not 600
  EXPECT_DOUBLE_EQ(*a->cpu_ns, 50);
  ASSERT_EQ(a->also_measured.size(), 1u);
  EXPECT_EQ(a->also_measured[0].input, "ncu.csv");
  EXPECT_DOUBLE_EQ(a->also_measured[0].ns, 500);
  EXPECT_EQ(a->inputs, (std::set<std::string>{"nsys.sqlite"}));
}

// A program that pushes a range every step and never pops: depth grows with
// the input. Regions stop at the cap, so cost stays linear in the input.
TEST(RegionBuilder, DeepStacksAreFoldedAtTheCap) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b("in", filter, d);
  constexpr std::int64_t kDepth = 10000;
  for (std::int64_t i = 0; i < kDepth; ++i) b.OnNvtxRange(Timed("step", i, 2 * kDepth - i));  // each inside the last
  std::vector<std::string> stack(kDepth, "step");
  b.OnLaunch(Launch("gemm", 5, stack));
  const CombinedRegions c = Alone(b, SourceFamily::kTimeline);
  EXPECT_EQ(c.aggregate.regions().size(), model::kMaxNvtxDepth);
  const Region& deepest = c.aggregate.regions().back();
  EXPECT_EQ(deepest.depth, static_cast<int>(model::kMaxNvtxDepth) - 1);
  EXPECT_DOUBLE_EQ(*deepest.exclusive_ns, 5);  // the deep launch counts in the region at the cap
  EXPECT_DOUBLE_EQ(*c.aggregate.regions().front().cpu_ns, 2.0 * kDepth);
  EXPECT_EQ(b.folded(), static_cast<std::uint64_t>(kDepth) - model::kMaxNvtxDepth + 1);  // ranges and the launch
  ASSERT_EQ(d.entries().count("nvtx_depth_folded"), 1u);
}

}  // namespace
}  // namespace llmpo::analysis
