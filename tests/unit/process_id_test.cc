#include "src/model/process_id.h"

#include <gtest/gtest.h>

#include <map>

#include "src/analysis/kernel_aggregator.h"

namespace llmpo {
namespace {

using model::ProcessId;

TEST(ProcessId, LabelSaysWhatIsKnown) {
  EXPECT_EQ((ProcessId{.name = "python3", .pid = 1234}).Label(), "python3 (1234)");
  EXPECT_EQ((ProcessId{.pid = 1234}).Label(), "pid 1234");
  EXPECT_EQ((ProcessId{.name = "python3"}).Label(), "python3");
  EXPECT_EQ((ProcessId{.name = "python3", .pid = 7, .rank = 3}).Label(), "rank 3");
  EXPECT_EQ((ProcessId{.host = "node1", .pid = 7, .rank = 3}).Label(), "rank 3 on node1");
  EXPECT_EQ(ProcessId{}.Label(), "");
  EXPECT_FALSE(ProcessId{}.Known());
  EXPECT_TRUE((ProcessId{.rank = 0}).Known());
}

TEST(ProcessId, PidTextIsParsedOrKept) {
  const ProcessId p = model::ProcessFromPidText("app", "42");
  EXPECT_EQ(p.name, "app");
  EXPECT_EQ(p.pid, 42);
  const ProcessId odd = model::ProcessFromPidText("", "4x2");
  EXPECT_FALSE(odd.pid.has_value());
  EXPECT_EQ(odd.Label(), "4x2");  // nothing the source said is lost
  const ProcessId named = model::ProcessFromPidText("app", "n/a");
  EXPECT_EQ(named.Label(), "app (n/a)");
  EXPECT_FALSE(model::ProcessFromPidText("", "").Known());
}

// The fields decide identity, not the label: the same pid on two ranks (or
// hosts) are two processes, and ranks sort as numbers.
TEST(ProcessId, FieldsDecideIdentityAndOrder) {
  const ProcessId rank2{.pid = 100, .rank = 2}, rank10{.pid = 100, .rank = 10};
  EXPECT_NE(rank2, rank10);
  EXPECT_LT(rank2, rank10);  // as text, "rank 10" < "rank 2"
  EXPECT_NE((ProcessId{.host = "a", .pid = 5}), (ProcessId{.host = "b", .pid = 5}));
}

TEST(ProcessId, KernelsOfTwoRanksWithOnePidStayApart) {
  analysis::KernelAggregator agg;
  agg.SetSource("trace");
  for (int rank : {0, 1, 0}) {
    model::LaunchRecord l;
    l.kernel_name = "gemm";
    l.device = "0";
    l.process = ProcessId{.pid = 77, .rank = rank};
    l.duration_ns = 10.0 * (rank + 1);
    agg.OnLaunch(l);
  }
  const auto kernels = agg.Sorted();
  ASSERT_EQ(kernels.size(), 2u);
  std::map<std::int64_t, double> total_by_rank;
  for (const auto& k : kernels) total_by_rank[*k.process.rank] = k.total_ns;
  EXPECT_DOUBLE_EQ(total_by_rank[0], 20.0);
  EXPECT_DOUBLE_EQ(total_by_rank[1], 20.0);
}

}  // namespace
}  // namespace llmpo
