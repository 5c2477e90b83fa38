// A region's GPU kernel time per instance id, in id order: InstanceMap's
// sorted array (16 bytes an instance, where a map node takes 64) with a
// map-like operator[]. A many-rank import keeps one per region and rank
// until the reports are written, so the size matters.
#pragma once

#include <cstdint>

#include "src/analysis/instance_spans.h"

namespace llmpo::analysis {

class InstanceValues : public InstanceMap<double> {
 public:
  // The value of instance `id`, made 0 if absent. The reference holds until
  // the next call that adds an instance.
  double& operator[](std::int64_t id) {
    bool added = false;
    return At(id, 0.0, &added);
  }
  bool operator==(const InstanceValues& other) const;
};

// A start time per instance id (Unix ns), keeping the earliest one given.
class InstanceStarts : public InstanceMap<std::int64_t> {
 public:
  void Earliest(std::int64_t id, std::int64_t start) {
    bool added = false;
    std::int64_t& kept = At(id, start, &added);
    if (!added && start < kept) kept = start;
  }
};

}  // namespace llmpo::analysis
