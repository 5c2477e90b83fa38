#include "src/pipeline/parallel_tee.h"

#include <exception>
#include <utility>

namespace llmpo::pipeline {

ParallelTee::~ParallelTee() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

void ParallelTee::Work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return busy_ || stop_; });
    if (stop_) return;
    const auto batch = batch_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      second_.OnLaunches(batch);
    } catch (...) {  // rethrown on the caller's thread
      failure = std::current_exception();
    }
    lock.lock();
    failure_ = failure;
    busy_ = false;
    wake_.notify_all();
  }
}

void ParallelTee::OnLaunches(std::span<const model::LaunchRecord> launches) {
  if (launches.empty()) return;
  if (!worker_.joinable()) worker_ = std::thread([this] { Work(); });
  {
    std::lock_guard lock(mutex_);
    batch_ = launches;
    busy_ = true;
  }
  wake_.notify_all();
  // The worker reads the batch until it is done with it: wait for that
  // however the branch here ends.
  struct WaitForWorker {
    ParallelTee& tee;
    ~WaitForWorker() {
      std::unique_lock lock(tee.mutex_);
      tee.wake_.wait(lock, [this] { return !tee.busy_; });
    }
  };
  {
    WaitForWorker wait{*this};
    first_.OnLaunches(launches);
  }
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

}  // namespace llmpo::pipeline
