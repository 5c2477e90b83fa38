#include "src/analysis/instance_values.h"

#include <algorithm>

namespace llmpo::analysis {

double& InstanceValues::operator[](std::int64_t id) {
  if (sorted_.empty() || sorted_.back().id < id) return sorted_.emplace_back(Entry{id, 0.0}).value;
  const auto it =
      std::lower_bound(sorted_.begin(), sorted_.end(), id, [](const Entry& e, std::int64_t key) { return e.id < key; });
  if (it != sorted_.end() && it->id == id) return it->value;
  return late_[id];
}

bool InstanceValues::operator==(const InstanceValues& other) const {
  if (size() != other.size()) return false;
  std::vector<std::pair<std::int64_t, double>> mine, theirs;
  ForEach([&](std::int64_t id, double v) { mine.emplace_back(id, v); });
  other.ForEach([&](std::int64_t id, double v) { theirs.emplace_back(id, v); });
  return mine == theirs;
}

}  // namespace llmpo::analysis
