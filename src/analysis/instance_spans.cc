#include "src/analysis/instance_spans.h"

#include <algorithm>

namespace llmpo::analysis {

InstanceSpans::Span& InstanceSpans::At(std::int64_t id, Span fresh, bool* added) {
  if (sorted_.empty() || sorted_.back().id < id) {
    *added = true;
    return sorted_.emplace_back(Entry{id, fresh}).span;
  }
  const auto it =
      std::lower_bound(sorted_.begin(), sorted_.end(), id, [](const Entry& e, std::int64_t key) { return e.id < key; });
  if (it != sorted_.end() && it->id == id) {
    *added = false;
    return it->span;
  }
  auto [late, inserted] = late_.try_emplace(id, fresh);
  *added = inserted;
  return late->second;
}

}  // namespace llmpo::analysis
