#include "src/analysis/reorder_window.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <random>
#include <vector>

namespace llmpo::analysis {
namespace {

// What a std::priority_queue of the same capacity gives out, value by value.
std::vector<int> ByPriorityQueue(const std::vector<int>& in, std::size_t capacity) {
  std::priority_queue<int, std::vector<int>, std::greater<int>> heap;
  std::vector<int> out;
  for (int v : in) {
    heap.push(v);
    if (heap.size() > capacity) {
      out.push_back(heap.top());
      heap.pop();
    }
  }
  while (!heap.empty()) {
    out.push_back(heap.top());
    heap.pop();
  }
  return out;
}

std::vector<int> ByWindow(const std::vector<int>& in, std::size_t capacity, std::size_t* most_held = nullptr) {
  ReorderWindow<int> window(capacity);
  std::vector<int> out;
  for (int v : in) {
    window.Push(v, [&out](int next) { out.push_back(next); });
    if (most_held) *most_held = std::max(*most_held, window.size());
  }
  window.Drain([&out](int next) { out.push_back(next); });
  EXPECT_EQ(window.size(), 0u);
  return out;
}

TEST(ReorderWindow, GivesValuesOutAsAPriorityQueueOfItsCapacity) {
  std::mt19937 rng(29);
  for (std::size_t capacity : {1u, 3u, 64u, 5000u}) {
    for (int jitter : {0, 1, 10, 1000, 1'000'000}) {
      // Nearly sorted (each value up to `jitter` early or late), with ties.
      std::vector<int> in;
      std::uniform_int_distribution<int> shift(-jitter, jitter);
      for (int i = 0; i < 20000; ++i) in.push_back(i / 3 + shift(rng));
      std::size_t most_held = 0;
      EXPECT_EQ(ByWindow(in, capacity, &most_held), ByPriorityQueue(in, capacity)) << capacity << " " << jitter;
      EXPECT_LE(most_held, capacity);
    }
  }
}

TEST(ReorderWindow, SortedInputComesOutInOrderAfterTheWindowFills) {
  ReorderWindow<int> window(4);
  std::vector<int> out;
  for (int v = 0; v < 10; ++v) window.Push(v, [&out](int next) { out.push_back(next); });
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  window.Drain([&out](int next) { out.push_back(next); });
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

// A value older than all held ones still comes out first; one older than
// what already left comes out when its turn comes (the caller detects it).
TEST(ReorderWindow, ALateValueComesOutWhenItIsTheSmallest) {
  ReorderWindow<int> window(2);
  std::vector<int> out;
  auto take = [&out](int next) { out.push_back(next); };
  for (int v : {5, 6, 7, 1, 8}) window.Push(v, take);
  window.Drain(take);
  EXPECT_EQ(out, (std::vector<int>{5, 1, 6, 7, 8}));
}

}  // namespace
}  // namespace llmpo::analysis
