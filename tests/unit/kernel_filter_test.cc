#include "src/analysis/kernel_filter.h"

#include <gtest/gtest.h>

namespace llmpo::analysis {
namespace {

KernelFilter Make(PatternSet global, std::map<std::string, PatternSet> per_region = {}) {
  auto f = KernelFilter::Create(std::move(global), std::move(per_region));
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().Render());
  return std::move(f).value();
}

TEST(KernelFilter, NoPatternsSelectEverything) {
  KernelFilter f;
  EXPECT_TRUE(f.Selects("A", "anything"));
  EXPECT_TRUE(f.empty());
}

TEST(KernelFilter, GlobMatchesTheWholeName) {
  KernelFilter f = Make({{"gemm*"}, {}});
  EXPECT_TRUE(f.Selects("", "gemm_kernel"));
  EXPECT_FALSE(f.Selects("", "my_gemm_kernel"));
}

TEST(KernelFilter, RegexSearchesAnywhere) {
  KernelFilter f = Make({{"regex:gemm|gemv"}, {}});
  EXPECT_TRUE(f.Selects("", "cutlass_gemm_128"));
  EXPECT_TRUE(f.Selects("", "internal::gemvx::kernel<int>"));
  EXPECT_FALSE(f.Selects("", "softmax"));
}

TEST(KernelFilter, ExcludeWins) {
  KernelFilter f = Make({{"*kernel*"}, {"*relu*"}});
  EXPECT_TRUE(f.Selects("", "gemm_kernel"));
  EXPECT_FALSE(f.Selects("", "relu_kernel"));
}

TEST(KernelFilter, PerRegionIncludesReplaceAndExcludesAdd) {
  KernelFilter f = Make({{"gemm*"}, {"*fp32*"}}, {{"B", {{"soft*"}, {"*_v2"}}}});
  EXPECT_TRUE(f.Selects("A", "gemm_a"));
  EXPECT_FALSE(f.Selects("A", "softmax"));
  EXPECT_TRUE(f.Selects("B", "softmax"));
  EXPECT_FALSE(f.Selects("B", "gemm_a"));        // B's include replaces the global one
  EXPECT_FALSE(f.Selects("B", "softmax_v2"));    // B's exclude
  EXPECT_FALSE(f.Selects("B", "softmax_fp32"));  // the global exclude still applies
}

TEST(KernelFilter, ReportsPatternsThatNeverMatched) {
  KernelFilter f = Make({{"gemm*", "nothing*"}, {}}, {{"Z", {{"zzz*"}, {}}}});
  f.Selects("A", "gemm_x");
  const auto unused = f.UnusedPatterns();
  ASSERT_EQ(unused.size(), 2u);
  EXPECT_EQ(unused[0], "include 'nothing*'");
  EXPECT_EQ(unused[1], "include 'zzz*' (region Z)");
}

TEST(KernelFilter, BadRegexIsAUsageError) {
  auto f = KernelFilter::Create({{"regex:(oops"}, {}}, {});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().kind, ExitStatus::kUsage);
  EXPECT_NE(f.error().message.find("regex:(oops"), std::string::npos);
}

}  // namespace
}  // namespace llmpo::analysis
