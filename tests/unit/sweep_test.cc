#include "src/config/sweep.h"

#include <gtest/gtest.h>

namespace llmpo::config {
namespace {

using Strings = std::vector<std::string>;

std::optional<Strings> Groups(const std::string& key) {
  if (key == "profiling/ncu") return Strings{"ncu.default", "ncu.high", "ncu.rtx3090"};
  return std::nullopt;
}

SweepPlan MustPlan(const Strings& overrides) {
  auto r = PlanSweep(overrides, Groups);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().Render());
  return r.ok() ? *r : SweepPlan{};
}

std::string PlanError(const Strings& overrides) {
  auto r = PlanSweep(overrides, Groups);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().Render();
}

Strings Values(const Strings& overrides) { return MustPlan(overrides).axes.at(0).values; }

TEST(Sweep, CommaListsQuotedValuesAndBrackets) {
  EXPECT_EQ(Values({"a=1,2,3"}), (Strings{"1", "2", "3"}));
  EXPECT_EQ(Values({"a='x,y',z"}), (Strings{"'x,y'", "z"}));
  EXPECT_EQ(Values({"a=[1,2],[3]"}), (Strings{"[1,2]", "[3]"}));
  EXPECT_EQ(Values({"a=${oc.env:X,d},b"}), (Strings{"${oc.env:X,d}", "b"}));
  // Not sweeps: a list, a quoted string, an interpolation with a comma.
  EXPECT_TRUE(MustPlan({"a=[1,2]", "b='x,y'", "c=${oc.env:X,d}"}).axes.empty());
}

TEST(Sweep, RangeLikePython) {
  EXPECT_EQ(Values({"a=range(1,4)"}), (Strings{"1", "2", "3"}));
  EXPECT_EQ(Values({"a=range(3)"}), (Strings{"0", "1", "2"}));
  EXPECT_EQ(Values({"a=range(0,10,4)"}), (Strings{"0", "4", "8"}));
  EXPECT_EQ(Values({"a=range(4,0,-2)"}), (Strings{"4", "2"}));
  EXPECT_EQ(Values({"a=range(0.5,1.5,0.5)"}), (Strings{"0.5", "1.0"}));
}

TEST(Sweep, ChoiceAndGlob) {
  EXPECT_EQ(Values({"a=choice(x, 'y,z')"}), (Strings{"x", "'y,z'"}));
  EXPECT_EQ(Values({"profiling/ncu@pipeline.ncu=glob(*)"}), (Strings{"ncu.default", "ncu.high", "ncu.rtx3090"}));
  EXPECT_EQ(Values({"profiling/ncu@pipeline.ncu=glob(*,exclude=ncu.high)"}), (Strings{"ncu.default", "ncu.rtx3090"}));
  EXPECT_EQ(Values({"profiling/ncu@pipeline.ncu=glob([ncu.h*,ncu.r*])"}), (Strings{"ncu.high", "ncu.rtx3090"}));
}

TEST(Sweep, CartesianProductLastKeyFastest) {
  const SweepPlan plan = MustPlan({"x=1", "a=1,2", "b=p,q,r"});
  ASSERT_EQ(plan.PointCount(), 6u);
  EXPECT_EQ(plan.fixed, (Strings{"x=1"}));
  EXPECT_EQ(plan.PointOverrides(0), (Strings{"x=1", "a=1", "b=p"}));
  EXPECT_EQ(plan.PointOverrides(1), (Strings{"x=1", "a=1", "b=q"}));
  EXPECT_EQ(plan.PointOverrides(5), (Strings{"x=1", "a=2", "b=r"}));
  EXPECT_EQ(MustPlan({"x=1"}).PointCount(), 1u);
}

TEST(Sweep, BadForms) {
  const std::string unknown = PlanError({"a=rang(1,3)"});
  EXPECT_NE(unknown.find("unknown sweep function 'rang'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("did you mean 'range'?"), std::string::npos) << unknown;
  EXPECT_NE(PlanError({"a=range(3,1)"}).find("the range is empty"), std::string::npos);
  EXPECT_NE(PlanError({"a=range(1,3,0)"}).find("step is 0"), std::string::npos);
  EXPECT_NE(PlanError({"a=range(1,x)"}).find("numbers"), std::string::npos);
  EXPECT_NE(PlanError({"a=glob(*)"}).find("not one"), std::string::npos);
  EXPECT_NE(PlanError({"profiling/ncu=glob(zz*)"}).find("matched no option"), std::string::npos);
  EXPECT_NE(PlanError({"a=1,,2"}).find("empty value"), std::string::npos);
  EXPECT_NE(PlanError({"a=1,2", "a=3,4"}).find("swept twice"), std::string::npos);
}

TEST(Sweep, LooksLikeSweep) {
  EXPECT_TRUE(LooksLikeSweep("a=1,2"));
  EXPECT_TRUE(LooksLikeSweep("a=range(4)"));
  EXPECT_TRUE(LooksLikeSweep("a=choice(x)"));
  EXPECT_FALSE(LooksLikeSweep("a=[1,2]"));
  EXPECT_FALSE(LooksLikeSweep("a='1,2'"));
  EXPECT_FALSE(LooksLikeSweep("a=f(x)"));
  EXPECT_FALSE(LooksLikeSweep("~a"));
}

}  // namespace
}  // namespace llmpo::config
