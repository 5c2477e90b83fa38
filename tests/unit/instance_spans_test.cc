#include "src/analysis/instance_spans.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace llmpo::analysis {
namespace {

using Span = InstanceSpans::Span;

// Widens the span of `id` as the region builder does, in both structures.
void Widen(InstanceSpans& spans, std::map<std::int64_t, Span>& plain, std::int64_t id, Span work) {
  bool added = false;
  Span& s = spans.At(id, work, &added);
  auto [it, inserted] = plain.try_emplace(id, work);
  EXPECT_EQ(added, inserted) << id;
  if (!added) {
    s.first = std::min(s.first, work.first);
    s.second = std::max(s.second, work.second);
    it->second.first = std::min(it->second.first, work.first);
    it->second.second = std::max(it->second.second, work.second);
  }
}

std::vector<std::pair<std::int64_t, Span>> Listed(const InstanceSpans& spans) {
  std::vector<std::pair<std::int64_t, Span>> out;
  spans.ForEach([&out](std::int64_t id, const Span& s) { out.emplace_back(id, s); });
  return out;
}

// The same spans, listed in the same (id) order, as a map of every instance,
// whether ids come in order, nearly in order, or at random.
TEST(InstanceSpans, MatchesAMapOfEveryInstance) {
  std::mt19937 rng(29);
  for (int disorder : {0, 3, 1000}) {
    InstanceSpans spans;
    std::map<std::int64_t, Span> plain;
    std::uniform_int_distribution<int> back(0, disorder);
    std::uniform_int_distribution<std::int64_t> t(0, 1'000'000);
    for (std::int64_t i = 0; i < 5000; ++i) {
      const std::int64_t id = std::max<std::int64_t>(0, i / 4 - back(rng));
      const std::int64_t start = t(rng);
      Widen(spans, plain, id, {start, start + t(rng) % 1000});
    }
    EXPECT_EQ(spans.size(), plain.size());
    const std::vector<std::pair<std::int64_t, Span>> expected(plain.begin(), plain.end());
    EXPECT_EQ(Listed(spans), expected) << disorder;
  }
}

TEST(InstanceSpans, ALateIdIsListedInItsPlace) {
  InstanceSpans spans;
  bool added = false;
  spans.At(5, {50, 60}, &added);
  spans.At(9, {90, 95}, &added);
  spans.At(7, {70, 71}, &added);
  EXPECT_TRUE(added);
  spans.At(7, {0, 0}, &added);  // known: given back as it was
  EXPECT_FALSE(added);
  const std::vector<std::pair<std::int64_t, Span>> expected{{5, {50, 60}}, {7, {70, 71}}, {9, {90, 95}}};
  EXPECT_EQ(Listed(spans), expected);
  spans.clear();
  EXPECT_TRUE(spans.empty());
}

}  // namespace
}  // namespace llmpo::analysis
