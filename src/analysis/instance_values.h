// A value per instance id (a region's GPU kernel time per instance), in id
// order. Instances mostly arrive in increasing id order: those go into a
// sorted array (16 bytes each, where a map node takes 64), the rare id below
// the last one into a map beside it. A many-rank import keeps one per region
// and rank until the reports are written, so the size matters.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace llmpo::analysis {

class InstanceValues {
 public:
  // The value of instance `id`, made 0 if absent. The reference holds until
  // the next call that adds an instance.
  double& operator[](std::int64_t id);

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
  // Gives back the array's spare capacity (a finished region adds no more).
  void ShrinkToFit() { sorted_.shrink_to_fit(); }
  // Frees the storage (assigning `{}` would keep the vector's capacity).
  void clear() {
    sorted_ = std::vector<Entry>();
    late_.clear();
  }
  bool operator==(const InstanceValues& other) const;

 private:
  struct Entry {
    std::int64_t id;
    double value;
  };
  std::vector<Entry> sorted_;            // by id
  std::map<std::int64_t, double> late_;  // ids that came below the last sorted one, none of them in sorted_
};

}  // namespace llmpo::analysis
