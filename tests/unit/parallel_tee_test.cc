// The parallel tee: both branches get every launch of every batch, in
// order, the second on another thread; other records reach both in turn.
#include "src/pipeline/parallel_tee.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace llmpo::pipeline {
namespace {

class Recorder : public model::RecordSink {
 public:
  void OnLaunch(const model::LaunchRecord& launch) override {
    names.push_back(launch.kernel_name);
    threads.push_back(std::this_thread::get_id());
  }
  void OnKernelSummary(const model::KernelSummaryRow&) override { ++summaries; }
  std::vector<std::string> names;
  std::vector<std::thread::id> threads;
  int summaries = 0;
};

class Throwing : public Recorder {
 public:
  void OnLaunch(const model::LaunchRecord&) override { throw std::runtime_error("here"); }
};

std::vector<model::LaunchRecord> Batch(int first, int count) {
  std::vector<model::LaunchRecord> batch(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) batch[static_cast<std::size_t>(i)].kernel_name = "k" + std::to_string(first + i);
  return batch;
}

TEST(ParallelTee, BothBranchesGetEveryBatchInOrderTheSecondOnItsOwnThread) {
  Recorder here, there;
  model::GpuBreakdown breakdown;
  std::vector<std::string> expected;
  {
    ParallelTee tee(here, there, breakdown);
    for (int b = 0; b < 50; ++b) {
      const auto batch = Batch(b * 100, 100);
      tee.OnLaunches(batch);
      for (const auto& l : batch) expected.push_back(l.kernel_name);
    }
    tee.OnLaunch(Batch(9999, 1)[0]);  // one at a time: both, on this thread
    expected.push_back("k9999");
    tee.OnKernelSummary(model::KernelSummaryRow{});
    model::GpuBreakdown g;
    g.devices.emplace_back();
    tee.OnGpuBreakdown(g);
  }
  EXPECT_EQ(here.names, expected);
  EXPECT_EQ(there.names, expected);
  EXPECT_EQ(here.summaries, 1);
  EXPECT_EQ(there.summaries, 1);
  EXPECT_EQ(breakdown.devices.size(), 1u);
  const auto me = std::this_thread::get_id();
  EXPECT_EQ(here.threads.front(), me);
  EXPECT_NE(there.threads.front(), me);  // a batch went to the worker
  EXPECT_EQ(there.threads.back(), me);   // the single launch did not
}

TEST(ParallelTee, AnExceptionHereWaitsForTheWorkerBeforeTheBatchGoes) {
  Throwing here;
  Recorder there;
  model::GpuBreakdown breakdown;
  ParallelTee tee(here, there, breakdown);
  {
    const auto batch = Batch(0, 1000);
    EXPECT_THROW(tee.OnLaunches(batch), std::runtime_error);
  }  // the batch is freed only after the worker finished with it
  EXPECT_EQ(there.names.size(), 1000u);
}

TEST(ParallelTee, AnExceptionOnTheWorkerReachesTheCaller) {
  Recorder here;
  Throwing there;
  model::GpuBreakdown breakdown;
  ParallelTee tee(here, there, breakdown);
  const auto batch = Batch(0, 10);
  EXPECT_THROW(tee.OnLaunches(batch), std::runtime_error);
  EXPECT_EQ(here.names.size(), 10u);
  EXPECT_THROW(tee.OnLaunches(batch), std::runtime_error);  // and the worker is still there
}

}  // namespace
}  // namespace llmpo::pipeline
