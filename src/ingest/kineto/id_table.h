// 64-bit ids (correlation ids, External ids) to 32-bit record indexes, in
// one flat array with linear probing: no allocation per entry, as a node-
// based map would make for each of a trace's millions of launches.
//
// Ids are counters, and attribution inserts and looks them up in roughly
// increasing order: an id's home slot is the id itself (folded), so those
// accesses walk the table in order instead of missing the cache at random
// (a multiplicative hash made this lookup most of attribution's time).
// Ids that pile up in long probe runs under that rule (a damaged or hostile
// trace) switch the table to a spreading hash.
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
    std::size_t steps = 0;
    Slot* slot = &slots_[Probe(id, &steps)];
    if (slot->index != kEmpty) return {&slot->index, false};
    *slot = Slot{id, index};
    const bool crowded = steps > kLongRun && !spread_;
    if (crowded || ++size_ * 10 > slots_.size() * 7) {
      if (crowded) ++size_;
      spread_ = spread_ || crowded;
      Rebuild(crowded ? slots_.size() : slots_.size() * 2);
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

  static constexpr std::size_t kLongRun = 64;

  std::size_t Home(std::uint64_t id) const {
    if (spread_) return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> 20);
    return static_cast<std::size_t>(id ^ (id >> 21) ^ (id >> 42));
  }

  // The slot that holds `id`, or the empty one where it would go; `steps`
  // counts the slots passed.
  std::size_t Probe(std::uint64_t id, std::size_t* steps = nullptr) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = Home(id) & mask;; at = (at + 1) & mask) {
      if (slots_[at].index == kEmpty || slots_[at].id == id) return at;
      if (steps) ++*steps;
    }
  }

  void Rebuild(std::size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.index != kEmpty) slots_[Probe(s.id)] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  bool spread_ = false;
};

}  // namespace llmpo::ingest::kineto
