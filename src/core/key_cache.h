// A small direct-mapped cache from nonzero 64-bit keys to values, for sinks
// that look up the same few kernel names on every launch: a launch record's
// kernel_name_key (given by an importer that interns names) finds the
// answer of the last full lookup without hashing or comparing the name.
// Key 0 means "no key": never found, never stored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llmpo {

template <typename T, std::size_t N = 512>
class KeyCache {
 public:
  const T* Find(std::uint64_t key) const {
    if (key == 0 || slots_.empty()) return nullptr;
    const Slot& slot = slots_[key % N];
    return slot.key == key ? &slot.value : nullptr;
  }
  T* Find(std::uint64_t key) { return const_cast<T*>(static_cast<const KeyCache&>(*this).Find(key)); }
  void Put(std::uint64_t key, T value) {
    if (key == 0) return;
    if (slots_.empty()) slots_.resize(N);
    slots_[key % N] = Slot{key, std::move(value)};
  }
  void Clear() { slots_.clear(); }

 private:
  struct Slot {
    std::uint64_t key = 0;
    T value{};
  };
  std::vector<Slot> slots_;  // N slots once something is stored
};

}  // namespace llmpo
