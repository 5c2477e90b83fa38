#include "src/model/records.h"

#include <atomic>

namespace llmpo::model {

std::uint64_t NewMetricLayout() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t NewNameKeySpace() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t NewContextKey() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::string_view ToString(LaunchOverheadFrom from) {
  return from == LaunchOverheadFrom::kTimeline ? "timeline" : "cuda_kern_exec_sum";
}

}  // namespace llmpo::model
