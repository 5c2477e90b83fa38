// A bounded reorder window: values go in nearly sorted, and once more than
// `capacity` are held the smallest comes out, as a priority queue of that
// size would give them. Timelines hand operations over almost in order, so
// a value not below the last one appended joins a sorted run (O(1)); only
// the few that arrive early go to a heap. Values that compare equal may come
// out in either order (a priority queue makes no promise there either).
#pragma once

#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

namespace llmpo::analysis {

template <class T, class Greater = std::greater<T>>
class ReorderWindow {
 public:
  explicit ReorderWindow(std::size_t capacity) : capacity_(capacity) {}

  std::size_t size() const { return run_.size() - head_ + heap_.size(); }

  // Adds `value`; calls `out` with the smallest held value while more than
  // the capacity are held.
  template <class Out>
  void Push(const T& value, Out&& out) {
    if (run_.size() == head_ || !greater_(run_.back(), value)) {
      run_.push_back(value);
    } else {
      heap_.push(value);
    }
    while (size() > capacity_) out(PopSmallest());
  }

  // Gives every held value to `out`, smallest first, and frees the storage.
  template <class Out>
  void Drain(Out&& out) {
    while (size() > 0) out(PopSmallest());
    run_ = std::vector<T>();  // freed (`= {}` keeps the capacity)
    heap_ = {};
    head_ = 0;
  }

 private:
  T PopSmallest() {
    const bool from_run = heap_.empty() || (run_.size() > head_ && !greater_(run_[head_], heap_.top()));
    if (!from_run) {
      T value = heap_.top();
      heap_.pop();
      return value;
    }
    T value = run_[head_++];
    if (head_ == run_.size()) {
      run_.clear();
      head_ = 0;
    } else if (head_ >= 4096 && head_ * 2 >= run_.size()) {  // drop the consumed front now and then
      run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return value;
  }

  std::size_t capacity_;
  Greater greater_;
  std::vector<T> run_;  // sorted from head_ on; each value not below the one before
  std::size_t head_ = 0;
  std::priority_queue<T, std::vector<T>, Greater> heap_;
};

}  // namespace llmpo::analysis
