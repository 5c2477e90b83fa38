#include "src/ingest/kineto/trace_store.h"

namespace llmpo::ingest::kineto {

std::uint32_t Names::Intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  const std::string& stored = storage_.emplace_back(text);
  const auto id = static_cast<std::uint32_t>(by_id_.size());
  by_id_.push_back(&stored);
  ids_.emplace(stored, id);
  return id;
}

}  // namespace llmpo::ingest::kineto
