#include "src/model/records.h"

#include <atomic>

namespace llmpo::model {

std::uint64_t NewMetricLayout() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace llmpo::model
