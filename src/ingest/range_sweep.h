// Attributes GPU work to the NVTX ranges open on the launching thread when
// the launch call was made (nsys' "GPU projection" rule): RangeSweep over
// ranges held in memory (our trace importer); the nsys SQLite importer
// streams its ranges instead and shares AddOpenRange.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "src/model/records.h"

namespace llmpo::ingest {

// NVTX ranges of one thread, by start time, for attributing kernels to the
// ranges their launching API call ran inside (nsys' "GPU projection" rule).
struct ThreadRange {
  std::int64_t start = 0;
  std::int64_t end = 0;
  bool push_pop = true;
  model::NvtxFrame frame;
};
using RangesByThread = std::map<std::int64_t, std::vector<ThreadRange>>;

// Adds an open range to the launch's NVTX frames (push/pop or start/end),
// ranges given outermost first.
inline void AddOpenRange(const ThreadRange& r, model::LaunchRecord& launch) {
  auto& frames = r.push_pop ? launch.nvtx_stack : launch.nvtx_start_end;
  // Beyond the depth cap the outermost frames are enough: the region builder folds the rest.
  if (frames.size() <= model::kMaxNvtxDepth) frames.push_back(r.frame);
}

// Walks kernels in (thread, launch time) order and keeps the ranges open at
// each launch time.
class RangeSweep {
 public:
  explicit RangeSweep(const RangesByThread& ranges) : ranges_(ranges) {}

  void Attribute(std::int64_t tid, std::int64_t t, model::LaunchRecord& launch) {
    if (tid != tid_) {
      tid_ = tid;
      auto it = ranges_.find(tid);
      current_ = it == ranges_.end() ? nullptr : &it->second;
      next_ = 0;
      active_.clear();
    }
    if (current_ == nullptr) return;
    while (next_ < current_->size() && (*current_)[next_].start <= t) active_.push_back(&(*current_)[next_++]);
    std::erase_if(active_, [t](const ThreadRange* r) { return r->end < t; });
    for (const ThreadRange* r : active_) AddOpenRange(*r, launch);
  }

 private:
  const RangesByThread& ranges_;
  std::int64_t tid_ = -1;
  const std::vector<ThreadRange>* current_ = nullptr;
  std::size_t next_ = 0;
  std::vector<const ThreadRange*> active_;  // by start: outer push/pop ranges first
};

}  // namespace llmpo::ingest
