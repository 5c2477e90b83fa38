#include "src/analysis/region_tree.h"

#include <gtest/gtest.h>

namespace llmpo::analysis {
namespace {

using model::LaunchRecord;
using model::NvtxFrame;

LaunchRecord Launch(const char* kernel, double ns, std::vector<std::string> stack, std::string process = "p",
                    std::string device = "0") {
  LaunchRecord l;
  l.kernel_name = kernel;
  l.duration_ns = ns;
  l.process = std::move(process);
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

TEST(RegionBuilder, InclusiveAndExclusiveReconcile) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b(filter, d);
  b.OnLaunch(Launch("gemm", 100, {"A"}));
  b.OnLaunch(Launch("gemm", 40, {"A", "A::A1"}));
  b.OnLaunch(Launch("relu", 10, {"A", "A::A1", "inner"}));
  b.OnLaunch(Launch("gemm", 7, {"B"}));
  b.OnLaunch(Launch("init", 3, {}));
  b.Finish();
  const RegionTree& t = b.aggregate();
  const Region* a = Find(t, {"A"});
  const Region* a1 = Find(t, {"A", "A::A1"});
  ASSERT_TRUE(a && a1);
  EXPECT_DOUBLE_EQ(a->inclusive_ns, 150);
  EXPECT_DOUBLE_EQ(a->exclusive_ns, 100);
  EXPECT_DOUBLE_EQ(a1->inclusive_ns, 50);
  EXPECT_EQ(a1->depth, 1);
  EXPECT_EQ(t.regions()[*a1->parent].label, "A");
  // parent = own + children, exactly
  double children = 0;
  for (auto c : a->children) children += t.regions()[c].inclusive_ns;
  EXPECT_DOUBLE_EQ(a->exclusive_ns + children, a->inclusive_ns);
  EXPECT_EQ(a->kernels.at("gemm").calls, 2u);
  EXPECT_EQ(b.launches_outside(), 1u);
  EXPECT_EQ(Find(t, {"A::A1"}), nullptr);  // '::' in a name does not make a parent
}

TEST(RegionBuilder, ScopesAndAggregate) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b(filter, d);
  b.OnLaunch(Launch("k", 5, {"A"}, "p1", "0"));
  b.OnLaunch(Launch("k", 7, {"A"}, "p2", "1"));
  b.Finish();
  EXPECT_EQ(b.scopes().size(), 2u);
  EXPECT_DOUBLE_EQ(Find(b.aggregate(), {"A"})->inclusive_ns, 12);
  EXPECT_DOUBLE_EQ(Find(b.scopes().begin()->second, {"A"})->inclusive_ns, 5);
}

TEST(RegionBuilder, FilterAppliesPerRegion) {
  auto filter = KernelFilter::Create({{}, {"relu*"}}, {});
  model::Diagnostics d;
  RegionBuilder b(*filter, d);
  b.OnLaunch(Launch("relu", 10, {"A"}));
  b.OnLaunch(Launch("gemm", 20, {"A"}));
  b.Finish();
  const Region* a = Find(b.aggregate(), {"A"});
  EXPECT_DOUBLE_EQ(a->inclusive_ns, 20);
  EXPECT_EQ(a->excluded, 1u);
  EXPECT_EQ(a->kernels.count("relu"), 0u);
}

TEST(RegionBuilder, RangeResultsMeasureTheirRegion) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b(filter, d);
  b.OnLaunch(Launch("range", 40, {"A"}));
  b.OnLaunch(Launch("range", 44, {"A"}));
  b.OnLaunch(Launch("range", 15, {"A", "A1"}));
  b.Finish();
  const Region* a = Find(b.aggregate(), {"A"});
  EXPECT_EQ(a->measured.count, 2u);
  EXPECT_DOUBLE_EQ(a->TotalNs(), 84);
  EXPECT_DOUBLE_EQ(a->exclusive_ns, 69);
  EXPECT_DOUBLE_EQ(a->measured.min_ns, 40);
}

TEST(RegionBuilder, ParentOfMeasuredChildrenGetsTheirSum) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b(filter, d);
  b.OnLaunch(Launch("range", 15, {"A", "A1"}));
  b.OnLaunch(Launch("range", 5, {"A", "A2"}));
  b.Finish();
  const Region* a = Find(b.aggregate(), {"A"});
  EXPECT_TRUE(a->derived_total);
  EXPECT_DOUBLE_EQ(a->TotalNs(), 20);
}

TEST(RegionBuilder, StartEndRangesAreFlatAndNumbered) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b(filter, d);
  LaunchRecord l = Launch("k", 10, {"A"});
  l.nvtx_start_end.push_back(NvtxFrame{"D", "warmup", 1});
  b.OnLaunch(l);
  l.nvtx_start_end[0].instance = 2;
  l.duration_ns = 30;
  b.OnLaunch(l);
  b.Finish();
  const Region* w = Find(b.aggregate(), {"D@warmup"});
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->kind, RegionKind::kStartEnd);
  EXPECT_EQ(w->instance_ns.size(), 2u);
  EXPECT_DOUBLE_EQ(w->inclusive_ns, 40);
}

TEST(RegionBuilder, LaunchesWithoutNvtxStateAreIgnored) {
  KernelFilter filter;
  model::Diagnostics d;
  RegionBuilder b(filter, d);
  LaunchRecord l = Launch("k", 10, {});
  l.has_nvtx = false;
  b.OnLaunch(l);
  EXPECT_FALSE(b.saw_nvtx());
}

}  // namespace
}  // namespace llmpo::analysis
