// Links GPU ops to their launch call (by correlation id) and to their cpu_op
// (by External id) as a merge of two lists that both come in id order, as a
// trace written in launch order has them: one pass, no table. The ops must be
// asked in id order too (attribution checks all three lists first).
#pragma once

#include <cstdint>
#include <vector>

#include "src/ingest/kineto/trace_store.h"

namespace llmpo::ingest::kineto {

inline constexpr std::uint32_t kNoIndex = UINT32_MAX;

// The first call with the op's correlation id.
class CallMerge {
 public:
  explicit CallMerge(const std::vector<HostCall>& calls) : calls_(calls) {}
  std::uint32_t Find(const GpuOp& op) {
    if (!op.has_correlation) return kNoIndex;
    while (at_ < calls_.size() && (!calls_[at_].has_correlation || calls_[at_].correlation < op.correlation)) ++at_;
    return at_ < calls_.size() && calls_[at_].correlation == op.correlation ? static_cast<std::uint32_t>(at_)
                                                                              : kNoIndex;
  }
  // The calls before this index are never read again.
  std::size_t position() const { return at_; }

 private:
  const std::vector<HostCall>& calls_;
  std::size_t at_ = 0;
};

// The one cpu_op with the op's External id; kNoIndex where none or several
// have it (then it is no identity).
class CpuOpMerge {
 public:
  explicit CpuOpMerge(const std::vector<CpuOp>& ops) : ops_(ops), at_(NextWithId(0)) {}
  std::uint32_t Find(const GpuOp& op) {
    if (!op.has_external_id) return kNoIndex;
    while (at_ < ops_.size() && ops_[at_].external_id < op.external_id) at_ = NextWithId(at_ + 1);
    if (at_ == ops_.size() || ops_[at_].external_id != op.external_id) return kNoIndex;
    const std::size_t after = NextWithId(at_ + 1);
    const bool alone = after == ops_.size() || ops_[after].external_id != op.external_id;
    return alone ? static_cast<std::uint32_t>(at_) : kNoIndex;
  }

 private:
  std::size_t NextWithId(std::size_t from) const {
    while (from < ops_.size() && !ops_[from].has_external_id) ++from;
    return from;
  }
  const std::vector<CpuOp>& ops_;
  std::size_t at_;
};

}  // namespace llmpo::ingest::kineto
