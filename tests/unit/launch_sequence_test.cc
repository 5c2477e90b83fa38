#include <gtest/gtest.h>

#include <random>

#include "src/analysis/launch_sequence.h"
#include "src/analysis/sequence_alignment.h"

namespace llmpo::analysis {
namespace {

using Ids = std::vector<std::uint32_t>;

// The length of a longest common subsequence, by the textbook table.
std::size_t LcsLength(const Ids& a, const Ids& b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    }
  }
  return t[a.size()][b.size()];
}

// Checks that `edits` walks both sequences in order, pairs only equal
// elements, and is a shortest script.
void ExpectValidShortest(const Ids& a, const Ids& b, const std::vector<Edit>& edits) {
  std::size_t i = 0, j = 0, same = 0;
  for (const Edit& e : edits) {
    if (e.op == EditOp::kSame) {
      ASSERT_EQ(e.base, i);
      ASSERT_EQ(e.next, j);
      ASSERT_EQ(a[i], b[j]);
      ++i, ++j, ++same;
    } else if (e.op == EditOp::kDelete) {
      ASSERT_EQ(e.base, i);
      ++i;
    } else {
      ASSERT_EQ(e.next, j);
      ++j;
    }
  }
  EXPECT_EQ(i, a.size());
  EXPECT_EQ(j, b.size());
  EXPECT_EQ(same, LcsLength(a, b));
}

TEST(SequenceAlignment, InsertionMidSequenceKeepsTheRestPaired) {
  const Ids base = {1, 2, 3, 4, 5, 6};
  const Ids next = {1, 2, 3, 9, 4, 5, 6};
  const auto edits = AlignSequences(base, next, 100);
  ASSERT_TRUE(edits);
  ExpectValidShortest(base, next, *edits);
  ASSERT_EQ(edits->size(), 7u);
  EXPECT_EQ((*edits)[3].op, EditOp::kInsert);
  EXPECT_EQ((*edits)[3].next, 3u);
  EXPECT_EQ((*edits)[4].op, EditOp::kSame);
  EXPECT_EQ((*edits)[4].base, 3u);
  EXPECT_EQ((*edits)[4].next, 4u);
}

TEST(SequenceAlignment, ReorderedAndRepeatedElements) {
  const Ids base = {7, 1, 7, 2, 7, 3};
  const Ids next = {7, 2, 7, 1, 7, 3, 7};
  const auto edits = AlignSequences(base, next, 100);
  ASSERT_TRUE(edits);
  ExpectValidShortest(base, next, *edits);
}

TEST(SequenceAlignment, EmptySides) {
  const Ids none, some = {1, 2};
  auto edits = AlignSequences(none, some, 10);
  ASSERT_TRUE(edits);
  ExpectValidShortest(none, some, *edits);
  edits = AlignSequences(some, none, 10);
  ASSERT_TRUE(edits);
  ExpectValidShortest(some, none, *edits);
  edits = AlignSequences(none, none, 0);
  ASSERT_TRUE(edits);
  EXPECT_TRUE(edits->empty());
}

TEST(SequenceAlignment, RandomSequencesAreShortestScripts) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::uniform_int_distribution<int> len(0, 40), sym(0, 4);
    Ids a(static_cast<std::size_t>(len(rng))), b(static_cast<std::size_t>(len(rng)));
    for (auto& x : a) x = static_cast<std::uint32_t>(sym(rng));
    for (auto& x : b) x = static_cast<std::uint32_t>(sym(rng));
    const auto edits = AlignSequences(a, b, a.size() + b.size());
    ASSERT_TRUE(edits);
    ExpectValidShortest(a, b, *edits);
  }
}

TEST(SequenceAlignment, GivesUpPastTheEditLimit) {
  const Ids a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  EXPECT_FALSE(AlignSequences(a, b, 7));
  EXPECT_TRUE(AlignSequences(a, b, 8));
}

model::LaunchRecord Launch(const std::string& name, std::int64_t step, std::int64_t start, double ns) {
  model::LaunchRecord l;
  l.kernel_name = name;
  l.process.pid = 1;
  l.device = "0";
  l.has_nvtx = true;
  l.nvtx_stack = {{"", "ProfilerStep#" + std::to_string(step), step}};
  l.start_ns = start;
  l.duration_ns = ns;
  return l;
}

TEST(LaunchSequenceRecorder, InstancesAddByPositionAndDivergenceIsCounted) {
  LaunchSequenceRecorder recorder;
  recorder.SetSource("in");
  std::int64_t t = 0;
  for (std::int64_t step = 1; step <= 3; ++step) {
    recorder.OnLaunch(Launch("gemm", step, t++, 10.0 * static_cast<double>(step)));
    recorder.OnLaunch(Launch("relu", step, t++, 2));
    recorder.OnLaunch(Launch(step == 3 ? "softmax" : "gemm", step, t++, 4));
  }
  const auto out = recorder.Finish();
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].sequences.size(), 1u);
  const LaunchSequence& s = out[0].sequences[0];
  EXPECT_EQ(s.path, std::vector<std::string>{"ProfilerStep#N"});
  EXPECT_EQ(s.instances, 3u);
  EXPECT_EQ(s.diverged, 1u);  // step 3 launched softmax at position 2
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_EQ(s.steps[0].samples, 3u);
  EXPECT_DOUBLE_EQ(s.steps[0].mean_ns, 20.0);
  EXPECT_DOUBLE_EQ(s.steps[0].sum_sq_dev_ns2, 200.0);  // (10-20)^2 + 0 + (30-20)^2
  EXPECT_EQ(s.steps[2].samples, 2u);
  EXPECT_EQ(out[0].signatures[s.steps[2].signature].name, "gemm");
  EXPECT_TRUE(s.ordered);
}

TEST(LaunchSequenceRecorder, OutOfOrderStartsAreFlagged) {
  LaunchSequenceRecorder recorder;
  recorder.SetSource("in");
  recorder.OnLaunch(Launch("a", 1, 10, 1));
  recorder.OnLaunch(Launch("b", 1, 5, 1));
  recorder.OnLaunch(Launch("c", 2, 20, 1));  // a second instance: diverges at position 0 (c, not a)
  const auto out = recorder.Finish();
  ASSERT_EQ(out[0].sequences.size(), 1u);
  EXPECT_FALSE(out[0].sequences[0].ordered);
  EXPECT_EQ(out[0].sequences[0].diverged, 1u);
  EXPECT_EQ(out[0].sequences[0].steps.size(), 2u);
}

TEST(LaunchSequenceRecorder, StepsAndSequencesAreCapped) {
  LaunchSequenceRecorder recorder;
  recorder.SetSource("in");
  for (std::size_t i = 0; i < kMaxSequenceSteps + 5; ++i) {
    recorder.OnLaunch(Launch("c", 1, static_cast<std::int64_t>(i), 1));
  }
  for (std::size_t p = 0; p < kMaxSequences + 2; ++p) {
    auto l = Launch("d", 1, 0, 1);
    l.nvtx_stack = {{"", "region " + std::to_string(p), std::nullopt}};
    recorder.OnLaunch(l);
  }
  const auto out = recorder.Finish();
  ASSERT_EQ(out[0].sequences.size(), kMaxSequences);
  EXPECT_EQ(out[0].sequences[0].steps.size(), kMaxSequenceSteps);
  EXPECT_EQ(out[0].sequences[0].beyond_cap, 5u);
  EXPECT_EQ(out[0].launches_not_recorded, 3u);  // 129 paths in all; 127 fit beside the first
}

}  // namespace
}  // namespace llmpo::analysis
