// Values per instance id, for region building: the span of each instance's
// GPU work (first start, last end) for nsys' projection, and each
// instance's GPU kernel time. Instances mostly arrive in increasing id
// order: those go into a sorted array (the id and the value, instead of a
// map node of 48 or 64 bytes), grown by an eighth at a time rather than
// doubled (a million instances leave little unused room), and the rare id
// below the last one into a map beside it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace llmpo::analysis {

template <class V>
class InstanceMap {
 public:
  // The value of instance `id`, made as `fresh` if absent (`*added` says so).
  // The reference holds until the next call.
  V& At(std::int64_t id, V fresh, bool* added);

  bool empty() const { return sorted_.empty() && late_.empty(); }
  std::size_t size() const { return sorted_.size() + late_.size(); }
  // Calls `f(id, value)` for every instance in increasing id order.
  template <class F>
  void ForEach(F&& f) const {
    auto late = late_.begin();
    for (const Entry& e : sorted_) {
      for (; late != late_.end() && late->first < e.id; ++late) f(late->first, late->second);
      f(e.id, e.value);
    }
    for (; late != late_.end(); ++late) f(late->first, late->second);
  }
  // Frees the storage (assigning `{}` would keep the vector's capacity).
  void clear() {
    sorted_ = std::vector<Entry>();
    late_.clear();
  }
  // Gives back the array's spare capacity (a finished region adds no more).
  void ShrinkToFit() { sorted_.shrink_to_fit(); }

 private:
  struct Entry {
    std::int64_t id;
    V value;
  };
  std::vector<Entry> sorted_;  // by id
  std::map<std::int64_t, V> late_;  // ids that came below the last sorted one, none of them in sorted_
};

using InstanceSpan = std::pair<std::int64_t, std::int64_t>;  // first start, last end (ns)

class InstanceSpans : public InstanceMap<InstanceSpan> {
 public:
  using Span = InstanceSpan;
};

template <class V>
V& InstanceMap<V>::At(std::int64_t id, V fresh, bool* added) {
  if (sorted_.empty() || sorted_.back().id < id) {
    *added = true;
    if (sorted_.size() == sorted_.capacity()) sorted_.reserve(sorted_.size() + sorted_.size() / 8 + 16);
    return sorted_.emplace_back(Entry{id, fresh}).value;
  }
  if (sorted_.back().id == id) {  // the instance being added to: most calls, no search
    *added = false;
    return sorted_.back().value;
  }
  const auto lo =
      std::lower_bound(sorted_.begin(), sorted_.end(), id, [](const Entry& e, std::int64_t key) { return e.id < key; });
  if (lo != sorted_.end() && lo->id == id) {
    *added = false;
    return lo->value;
  }
  auto [late, inserted] = late_.try_emplace(id, fresh);
  *added = inserted;
  return late->second;
}

}  // namespace llmpo::analysis
