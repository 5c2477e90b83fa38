// The claim on a run folder: `.llmpo.lock` in it, made with O_EXCL, holding
// the owner's pid and start time, and flock()ed for as long as the run lasts.
// A second run on a folder whose lock is held by a live process is refused;
// the lock of a run that died (flock free, pid gone) is taken over with a
// note. The owner removes the file when it is done.
#pragma once

#include <filesystem>
#include <string>

#include "src/core/result.h"

namespace llmpo::pipeline {

inline constexpr const char* kRunLockName = ".llmpo.lock";

struct LockOwner {
  long pid = 0;
  unsigned long long start_ticks = 0;  // /proc/PID/stat field 22; 0: unknown
  std::string started;                 // ISO 8601, for messages
};

enum class LockState { kFree, kHeld, kStale };

// Whether `dir`'s lock is free (no lock file), held by a live run, or left
// by one that is gone. Fills `owner` from the file when there is one.
LockState ProbeRunLock(const std::filesystem::path& dir, LockOwner* owner = nullptr);

// Whether `owner` names a process that is still running (same pid and, when
// known, the same start time, so a reused pid does not count).
bool OwnerAlive(const LockOwner& owner);

class RunLock {
 public:
  // Claims `dir` (which must exist). Usage error when a live run holds it.
  static Result<RunLock> Acquire(const std::filesystem::path& dir);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

  // Non-empty when a stale lock was taken over: what it said.
  const std::string& note() const { return note_; }
  bool held() const { return fd_ >= 0; }
  // Removes the lock file and lets go; the destructor does the same.
  void Release();

 private:
  RunLock(int fd, std::filesystem::path path, std::string note)
      : fd_(fd), path_(std::move(path)), note_(std::move(note)) {}

  int fd_ = -1;
  std::filesystem::path path_;
  std::string note_;
};

}  // namespace llmpo::pipeline
