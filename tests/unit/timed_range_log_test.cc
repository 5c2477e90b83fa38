#include "src/analysis/timed_range_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "src/analysis/region_combine.h"
#include "src/analysis/region_tree.h"

namespace llmpo::analysis {
namespace {

bool Same(const TimedRange& a, const TimedRange& b) {
  return a.process == b.process && a.arrival == b.arrival && a.tid == b.tid && a.start == b.start && a.end == b.end &&
         a.push_pop == b.push_pop && a.end_unknown == b.end_unknown && a.name == b.name;
}

// Ranges in nesting order: processes, threads (negative tids too), starts
// rising by gaps small and huge, some equal starts (the longer first).
std::vector<TimedRange> InOrder(std::size_t n) {
  std::mt19937_64 rng(7);
  std::vector<TimedRange> out;
  std::int64_t start = std::numeric_limits<std::int64_t>::min() + 5;
  TimedRange r;
  r.tid = -3;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 1000 == 999) {
      ++r.tid;
      start = static_cast<std::int64_t>(rng() >> 2) - (std::int64_t{1} << 60);
      if (i % 3000 == 2999) ++r.process;
    }
    const std::uint64_t pick = rng() % 10;
    if (pick != 0) start += pick == 9 ? std::int64_t{1} << 40 : 1 + static_cast<std::int64_t>(rng() % 5000);
    r.start = start;
    r.end = start + static_cast<std::int64_t>(pick == 0 ? 0 : rng() % (std::uint64_t{1} << 45));
    if (pick == 0 && !out.empty() && out.back().start == start) r.end = std::min(r.end, out.back().end);
    r.push_pop = rng() % 7 != 0;
    r.end_unknown = rng() % 11 == 0;
    r.name = static_cast<std::uint32_t>(rng() % 300);
    r.arrival = static_cast<std::uint32_t>(i);
    out.push_back(r);
  }
  // The widest start and length there are, on a thread of its own.
  r.tid += 1;
  r.start = std::numeric_limits<std::int64_t>::min();
  r.end = std::numeric_limits<std::int64_t>::max();
  r.arrival = static_cast<std::uint32_t>(n);
  out.push_back(r);
  return out;
}

TEST(TimedRangeLog, RangesInNestingOrderComeBackExactlyFromTheLog) {
  const std::vector<TimedRange> ranges = InOrder(20000);
  ASSERT_TRUE(std::is_sorted(ranges.begin(), ranges.end(), NestsBefore));
  TimedRangeLog log;
  for (const TimedRange& r : ranges) log.Add(r);
  EXPECT_TRUE(log.in_order());
  EXPECT_EQ(log.size(), ranges.size());
  std::size_t i = 0;
  bool all_same = true;
  log.ForEach([&](const TimedRange& r) { all_same = all_same && i < ranges.size() && Same(r, ranges[i++]); });
  EXPECT_TRUE(all_same);
  EXPECT_EQ(i, ranges.size());
  // Well under the 40 bytes a range of the vector form (1 MiB chunks: 20,000 ranges fit one).
  EXPECT_LT(log.bytes(), (std::size_t{1} << 20) + 1);
}

TEST(TimedRangeLog, OneRangeOutOfOrderTurnsItIntoTheVectorFormWithEveryRange) {
  std::vector<TimedRange> ranges = InOrder(5000);
  std::swap(ranges[3000], ranges[3001]);
  ranges[3000].start = ranges[3001].start - 1;  // before the one it follows now
  TimedRangeLog log;
  for (const TimedRange& r : ranges) log.Add(r);
  EXPECT_FALSE(log.in_order());
  std::vector<TimedRange> back = log.TakeVector();
  ASSERT_EQ(back.size(), ranges.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    ranges[i].arrival = static_cast<std::uint32_t>(i);
    ASSERT_TRUE(Same(back[i], ranges[i])) << i;
  }
  EXPECT_EQ(log.size(), 0u);
}

TEST(TimedRangeLog, ARangeEndingBeforeItStartsIsKeptInTheVectorForm) {
  TimedRangeLog log;
  log.Add(TimedRange{0, 0, 1, 10, 20, true, false, 0});
  log.Add(TimedRange{0, 0, 1, 30, 25, true, false, 0});
  EXPECT_FALSE(log.in_order());
  EXPECT_EQ(log.TakeVector().at(1).end, 25);
}

model::NvtxRange Range(const std::string& name, std::int64_t start, std::int64_t end, std::int64_t tid,
                       const std::string& process) {
  model::NvtxRange r;
  r.name = name;
  r.process.name = process;
  r.start_ns = start;
  r.end_ns = end;
  r.global_tid = tid;
  return r;
}

// path -> (cpu_ns, instances) of every region, in tree order.
std::vector<std::string> Describe(const RegionTree& tree) {
  std::vector<std::string> out;
  for (const Region& r : tree.regions()) {
    std::string path;
    for (const auto& p : r.path) path += "/" + p;
    out.push_back(path + " cpu=" + std::to_string(r.cpu_ns.value_or(-1)) +
                  " n=" + std::to_string(r.cpu_instances.count));
  }
  return out;
}

// The same ranges sent in nesting order (read from the log) and shuffled
// (sorted at the end) give the same trees, region for region.
TEST(TimedRangeLog, RegionBuilderGivesTheSameTreesFromTheLogAsFromTheSort) {
  std::vector<model::NvtxRange> ranges;
  for (const std::string process : {"a", "b"}) {
    for (std::int64_t tid : {1, 2}) {
      for (std::int64_t step = 0; step < 50; ++step) {
        const std::int64_t t = step * 1000;
        ranges.push_back(Range("step", t, t + 900, tid, process));
        ranges.push_back(Range("attn", t + 10, t + 400, tid, process));
        ranges.push_back(Range("inner", t + 10, t + 300, tid, process));  // same start, shorter: a child
        ranges.push_back(Range("mlp", t + 400, t + 800, tid, process));   // starts where attn ends: a sibling
      }
    }
  }
  std::vector<model::NvtxRange> shuffled = ranges;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
  const auto trees = [](const std::vector<model::NvtxRange>& in) {
    KernelFilter filter;
    model::Diagnostics d;
    RegionBuilder b("in", filter, d);
    for (const auto& r : in) b.OnNvtxRange(r);
    b.Finish();
    const CombinedRegions c = CombineRegions({{&b, SourceFamily::kTimeline}});
    std::vector<std::string> out = Describe(c.aggregate);
    for (const auto& [scope, tree] : c.scopes) {
      for (const auto& line : Describe(tree)) out.push_back(scope.process.Label() + line);
    }
    return out;
  };
  const std::vector<std::string> from_log = trees(ranges);
  EXPECT_EQ(from_log, trees(shuffled));
  EXPECT_NE(std::find(from_log.begin(), from_log.end(), "/step/attn/inner cpu=58000.000000 n=200"), from_log.end());
}

}  // namespace
}  // namespace llmpo::analysis
