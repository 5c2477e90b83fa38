// 64-bit ids (correlation ids, External ids) to 32-bit record indexes, in
// one flat array with linear probing: no allocation per entry, as a node-
// based map would make for each of a trace's millions of launches.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace llmpo::ingest::kineto {

class IdTable {
 public:
  explicit IdTable(std::size_t expected) {
    std::size_t capacity = 16;
    while (capacity * 7 < expected * 10) capacity *= 2;  // at most 70 % full
    slots_.resize(capacity);
  }

  // Stores (id, index) unless `id` is there already (index < 0xFFFFFFFE). The index stored for
  // it (valid until the next insertion), and whether this call stored it.
  std::pair<std::uint32_t*, bool> TryEmplace(std::uint64_t id, std::uint32_t index) {
    Slot* slot = &slots_[Probe(id)];
    if (slot->index != kEmpty) return {&slot->index, false};
    *slot = Slot{id, index};
    if (++size_ * 10 > slots_.size() * 7) {
      Grow();
      slot = &slots_[Probe(id)];
    }
    return {&slot->index, true};
  }

  std::optional<std::uint32_t> Find(std::uint64_t id) const {
    const Slot& slot = slots_[Probe(id)];
    if (slot.index == kEmpty) return std::nullopt;
    return slot.index;
  }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFE;  // no record has this index
  // 12 bytes, not 16: the table of a million ids is a third smaller.
  struct __attribute__((packed)) Slot {
    std::uint64_t id = 0;
    std::uint32_t index = kEmpty;
  };

  // The slot that holds `id`, or the empty one where it would go.
  std::size_t Probe(std::uint64_t id) const {
    const std::size_t mask = slots_.size() - 1;
    // Ids are often consecutive: a multiply spreads them over the table.
    for (std::size_t at = static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> 20) & mask;; at = (at + 1) & mask) {
      if (slots_[at].index == kEmpty || slots_[at].id == id) return at;
    }
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.index != kEmpty) slots_[Probe(s.id)] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace llmpo::ingest::kineto
