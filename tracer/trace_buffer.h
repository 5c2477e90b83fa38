// The tracer's recording side: one text buffer per thread, appended to the
// trace file when it fills, when its thread ends and at process exit.
// Plain C++ and libc only, so the library loads into any program.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace llmpo::tracer {

// A lock for per-thread state: taken by its own thread on every record and
// by another only at exit or fork, so it is almost never contended; cheaper
// than a mutex on the hot path.
class SpinLock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }
  void Reset() { flag_.clear(); }  // in a forked child

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

// Nanoseconds on CLOCK_MONOTONIC: the clock every record of a trace uses
// (CUPTI is told to use it too).
std::uint64_t NowNs();
std::uint32_t ThreadId();

// Appends one record line to the calling thread's buffer. `fields` are
// written tab-separated; text fields must go through Escaped() first.
class Line {
 public:
  explicit Line(char kind);
  Line& Add(std::uint64_t value);
  Line& Add(std::int64_t value);
  Line& Add(std::string_view text);  // escaped here
  ~Line();                           // ends the line; may flush the buffer

 private:
  std::string& out_;
};

// Opens the trace file and writes its header now (at the tracer's load), so
// a program that records and then ends without exit() (_exit, exec, a
// crash) still leaves a file that names it; the importer says what was lost.
void StartTraceFile();

// After a top-level range ends (`now`): writes the calling thread's records
// when its last write is kTopLevelFlushNs or more ago, so a program that
// later calls _exit or exec loses at most that much of its closed ranges.
// At most one write per thread per kTopLevelFlushNs: no cost in tight loops.
inline constexpr std::uint64_t kTopLevelFlushNs = 10'000'000;
void FlushMineIfDue(std::uint64_t now);

// Writes every thread's pending records and the end marker ("E"); called at
// exit. Safe to call more than once (later calls only flush).
void FlushAll(const char* reason);

// In a forked child (registered with pthread_atfork when the first record is
// made): drops the parent's pending records and file, so the child writes
// only its own records, to its own file. Only the forking thread exists in
// the child, so the locks are re-created.
void ResetAfterFork();

}  // namespace llmpo::tracer
