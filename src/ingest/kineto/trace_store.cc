#include "src/ingest/kineto/trace_store.h"

#include <algorithm>
#include <cstring>

#include "src/core/utf8.h"

namespace llmpo::ingest::kineto {

std::size_t Names::RecentSlot(std::string_view text) {
  std::uint64_t head = 0, tail = 0;
  if (!text.empty()) std::memcpy(&head, text.data(), std::min<std::size_t>(text.size(), 8));
  if (text.size() > 8) std::memcpy(&tail, text.data() + text.size() - 8, 8);
  const std::uint64_t mixed = (head ^ (tail * 0x9E3779B97F4A7C15ull) ^ text.size()) * 0xFF51AFD7ED558CCDull;
  return static_cast<std::size_t>(mixed >> 56);  // kRecent = 256 slots
}

std::uint32_t Names::Intern(std::string_view text) {
  std::uint32_t& recent = recent_[RecentSlot(text)];
  if (recent != 0 && *by_id_[recent - 1] == text) return recent - 1;
  std::uint32_t id = 0;
  if (auto it = ids_.find(text); it != ids_.end()) {
    id = it->second;
  } else {
    const std::string& stored = storage_.emplace_back(text);
    id = static_cast<std::uint32_t>(by_id_.size());
    by_id_.push_back(&stored);
    ids_.emplace(stored, id);
  }
  recent = id + 1;
  return id;
}

std::uint32_t Lanes::Intern(const Lane& lane) {
  if (last_ < by_id_.size() && by_id_[last_] == lane) return last_;
  const std::pair<std::int32_t, std::int64_t> key{lane.device, lane.stream};
  if (auto it = ids_.find(key); it != ids_.end()) return last_ = it->second;
  if (by_id_.size() == kMax) return last_ = kMax - 1;
  last_ = static_cast<std::uint32_t>(by_id_.size());
  by_id_.push_back(lane);
  ids_.emplace(key, last_);
  return last_;
}

std::size_t Names::ReplaceInvalidUtf8() {
  std::size_t replaced = 0;
  for (std::string& text : storage_) replaced += llmpo::ReplaceInvalidUtf8(text);
  if (replaced == 0) return 0;
  std::fill(std::begin(recent_), std::end(recent_), 0);  // slots of the texts before
  ids_.clear();  // its keys viewed the texts before: rebuilt (two names may now read alike: the first id keeps it)
  for (std::uint32_t id = 0; id < by_id_.size(); ++id) ids_.try_emplace(*by_id_[id], id);
  return replaced;
}

}  // namespace llmpo::ingest::kineto
