#include "src/analysis/instance_values.h"

#include <utility>
#include <vector>

namespace llmpo::analysis {

bool InstanceValues::operator==(const InstanceValues& other) const {
  if (size() != other.size()) return false;
  std::vector<std::pair<std::int64_t, double>> mine, theirs;
  ForEach([&](std::int64_t id, double v) { mine.emplace_back(id, v); });
  other.ForEach([&](std::int64_t id, double v) { theirs.emplace_back(id, v); });
  return mine == theirs;
}

}  // namespace llmpo::analysis
