// KeyCache, and the sinks that look launches up by kernel_name_key: fed the
// same launches with keys and without, they give the same aggregates, also
// where one key's name meets another device, thread or source.
#include "src/core/key_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/launch_overhead.h"
#include "src/model/records.h"

namespace llmpo {
namespace {

TEST(KeyCache, FindsWhatWasPutAndNothingForKeyZero) {
  KeyCache<int, 8> cache;
  EXPECT_EQ(cache.Find(3), nullptr);
  cache.Put(3, 30);
  cache.Put(0, 99);  // no key: not stored
  ASSERT_NE(cache.Find(3), nullptr);
  EXPECT_EQ(*cache.Find(3), 30);
  EXPECT_EQ(cache.Find(0), nullptr);
  EXPECT_EQ(cache.Find(11), nullptr);  // same slot (11 % 8 == 3), other key
  cache.Put(11, 110);                  // replaces key 3 in its slot
  EXPECT_EQ(cache.Find(3), nullptr);
  EXPECT_EQ(*cache.Find(11), 110);
  cache.Clear();
  EXPECT_EQ(cache.Find(11), nullptr);
}

TEST(NameKeySpace, EachCallGivesANewSpace) {
  const std::uint64_t a = model::NewNameKeySpace(), b = model::NewNameKeySpace();
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
}

model::LaunchRecord Launch(const std::string& name, std::uint64_t key, const std::string& device,
                           const std::string& thread, std::int64_t start) {
  model::LaunchRecord l;
  l.kernel_name = name;
  l.kernel_name_key = key;
  l.process = model::ProcessId{.name = "app", .pid = 7};
  l.device = device;
  l.start_ns = start;
  l.end_ns = start + 10 + static_cast<std::int64_t>(name.size());
  l.duration_ns = static_cast<double>(*l.end_ns - start);
  l.launch_call_start_ns = start - 5;
  l.launch_call_end_ns = start - 1;
  l.launch_call_name = "cudaLaunchKernel";
  l.launch_thread = thread;
  return l;
}

// Kernel names of one key space (keys 1 and 2) on two devices and two
// threads, then a second source whose key space (3) names "a" again.
std::vector<model::LaunchRecord> Launches(bool keyed) {
  const auto key = [&](std::uint64_t k) { return keyed ? k : 0; };
  std::vector<model::LaunchRecord> out;
  std::int64_t t = 100;
  for (int round = 0; round < 3; ++round) {
    out.push_back(Launch("a", key(1), "0", "11", t += 50));
    out.push_back(Launch("bb", key(2), "0", "11", t += 50));
    out.push_back(Launch("a", key(1), "1", "11", t += 50));
    out.push_back(Launch("a", key(1), "0", "12", t += 50));
  }
  out.push_back(Launch("a", key(3), "0", "11", t += 50));
  return out;
}

std::vector<analysis::KernelAggregate> Aggregate(bool keyed) {
  analysis::KernelAggregator aggregator;
  aggregator.SetSource("one");
  const std::vector<model::LaunchRecord> launches = Launches(keyed);
  for (std::size_t i = 0; i + 1 < launches.size(); ++i) aggregator.OnLaunch(launches[i]);
  aggregator.SetSource("two");
  aggregator.OnLaunch(launches.back());
  return aggregator.Sorted();
}

TEST(NameKeySinks, KernelTableIsTheSameWithAndWithoutKeys) {
  const auto keyed = Aggregate(true), plain = Aggregate(false);
  ASSERT_EQ(keyed.size(), 4u);  // a on device 0 and 1, bb, and a of source two
  ASSERT_EQ(keyed.size(), plain.size());
  for (std::size_t i = 0; i < keyed.size(); ++i) {
    EXPECT_EQ(keyed[i].source, plain[i].source);
    EXPECT_EQ(keyed[i].device, plain[i].device);
    EXPECT_EQ(keyed[i].name, plain[i].name);
    EXPECT_EQ(keyed[i].calls, plain[i].calls);
    EXPECT_DOUBLE_EQ(keyed[i].total_ns, plain[i].total_ns);
  }
}

std::vector<model::LaunchOverheadRow> Overhead(bool keyed) {
  analysis::LaunchOverheadBuilder builder;
  for (const model::LaunchRecord& l : Launches(keyed)) builder.Add(l);
  return builder.Rows();
}

TEST(NameKeySinks, LaunchOverheadIsTheSameWithAndWithoutKeys) {
  const auto keyed = Overhead(true), plain = Overhead(false);
  ASSERT_EQ(keyed.size(), 4u);  // (thread 11, device 0, a), (11, 0, bb), (11, 1, a), (12, 0, a)
  ASSERT_EQ(keyed.size(), plain.size());
  for (std::size_t i = 0; i < keyed.size(); ++i) {
    EXPECT_EQ(keyed[i].thread, plain[i].thread);
    EXPECT_EQ(keyed[i].device, plain[i].device);
    EXPECT_EQ(keyed[i].kernel_name, plain[i].kernel_name);
    EXPECT_EQ(keyed[i].count, plain[i].count);
  }
}

}  // namespace
}  // namespace llmpo
