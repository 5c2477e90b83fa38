#include "src/ingest/kineto/trace_store.h"

#include "src/core/utf8.h"

namespace llmpo::ingest::kineto {

std::uint32_t Names::Intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  const std::string& stored = storage_.emplace_back(text);
  const auto id = static_cast<std::uint32_t>(by_id_.size());
  by_id_.push_back(&stored);
  ids_.emplace(stored, id);
  return id;
}

std::size_t Names::ReplaceInvalidUtf8() {
  std::size_t replaced = 0;
  for (std::string& text : storage_) replaced += llmpo::ReplaceInvalidUtf8(text);
  if (replaced == 0) return 0;
  ids_.clear();  // its keys viewed the texts before: rebuilt (two names may now read alike: the first id keeps it)
  for (std::uint32_t id = 0; id < by_id_.size(); ++id) ids_.try_emplace(*by_id_[id], id);
  return replaced;
}

}  // namespace llmpo::ingest::kineto
