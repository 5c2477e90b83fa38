// A tee whose second sink takes batches of launches on a thread of its own
// while the first takes them on the caller's: for importers that hand
// launches over in batches (RecordSink::OnLaunches), the region builder runs
// beside the kernel table and the timelines instead of after them.
// Everything else goes as TeeSink sends it, on the caller's thread, while
// the worker is idle.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <span>
#include <thread>

#include "src/pipeline/tee_sink.h"

namespace llmpo::pipeline {

class ParallelTee : public TeeSink {
 public:
  using TeeSink::TeeSink;
  ~ParallelTee() override;
  ParallelTee(const ParallelTee&) = delete;
  ParallelTee& operator=(const ParallelTee&) = delete;

  void OnLaunches(std::span<const model::LaunchRecord> launches) override;

 private:
  void Work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::span<const model::LaunchRecord> batch_;  // the worker's, while busy_
  bool busy_ = false;
  std::exception_ptr failure_;  // what the second sink threw, for the caller
  bool stop_ = false;
  std::thread worker_;  // started by the first batch
};

}  // namespace llmpo::pipeline
