// The span of each instance's GPU work (first start, last end) by instance
// id, for nsys' projection. Instances mostly arrive in increasing id order:
// those go into a sorted array (24 bytes each, instead of a map node of 64),
// the rare id below the last one into a map beside it.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace llmpo::analysis {

class InstanceSpans {
 public:
  using Span = std::pair<std::int64_t, std::int64_t>;  // first start, last end (ns)

  // The span of instance `id`, made as `fresh` if absent (`*added` says so).
  // The reference holds until the next call.
  Span& At(std::int64_t id, Span fresh, bool* added);

  bool empty() const { return sorted_.empty() && late_.empty(); }
  std::size_t size() const { return sorted_.size() + late_.size(); }
  // Calls `f(id, span)` for every instance in increasing id order.
  template <class F>
  void ForEach(F&& f) const {
    auto late = late_.begin();
    for (const Entry& e : sorted_) {
      for (; late != late_.end() && late->first < e.id; ++late) f(late->first, late->second);
      f(e.id, e.span);
    }
    for (; late != late_.end(); ++late) f(late->first, late->second);
  }
  // Frees the storage (assigning `{}` would keep the vector's capacity).
  void clear() {
    sorted_ = std::vector<Entry>();
    late_.clear();
  }

 private:
  struct Entry {
    std::int64_t id;
    Span span;
  };
  std::vector<Entry> sorted_;          // by id
  std::map<std::int64_t, Span> late_;  // ids that came below the last sorted one, none of them in sorted_
};

}  // namespace llmpo::analysis
