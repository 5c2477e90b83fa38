#include "src/pipeline/run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "src/pipeline/run_folder.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
namespace {

// Field 22 of /proc/PID/stat (start time in clock ticks after boot); 0 when
// it cannot be read. The command name (field 2) may hold spaces: skip to ')'.
unsigned long long ProcessStartTicks(long pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

LockOwner ParseOwner(const std::string& text) {
  LockOwner owner;
  std::istringstream lines(text);
  std::string key;
  while (lines >> key) {
    if (key == "pid") {
      lines >> owner.pid;
    } else if (key == "start_ticks") {
      lines >> owner.start_ticks;
    } else if (key == "started") {
      lines >> owner.started;
    } else {
      std::string skip;
      std::getline(lines, skip);
    }
    if (!lines) break;
  }
  return owner;
}

std::string ReadFd(int fd) {
  std::string text;
  char buffer[512];
  if (lseek(fd, 0, SEEK_SET) < 0) return text;
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0 && text.size() < 4096;) text.append(buffer, n);
  return text;
}

bool WriteOwner(int fd) {
  const long pid = static_cast<long>(getpid());
  const std::string text = fmt::format("pid {}\nstart_ticks {}\nstarted {}\n", pid, ProcessStartTicks(pid),
                                       IsoTimestamp(std::chrono::system_clock::now()));
  if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) < 0) return false;
  return write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

// Whether the open file `fd` is still the one at `path` (not removed or replaced).
bool SameFile(int fd, const fs::path& path) {
  struct stat a {};
  struct stat b {};
  return fstat(fd, &a) == 0 && lstat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

std::string Describe(const LockOwner& owner) {
  if (owner.pid <= 0) return "an unknown process";
  return owner.started.empty() ? fmt::format("pid {}", owner.pid)
                               : fmt::format("pid {}, started {}", owner.pid, owner.started);
}

Error HeldError(const fs::path& dir, const LockOwner& owner) {
  return MakeError(ExitStatus::kUsage, fmt::format("run folder '{}' is in use by another run ({}; lock {})",
                                                   dir.string(), Describe(owner), kRunLockName))
      .WithNote("choose another folder with hydra.run.dir=PATH, or wait for that run to finish");
}

Error IoError(const fs::path& path, const char* what) {
  return MakeError(ExitStatus::kFailure,
                   fmt::format("cannot {} the run folder lock '{}': {}", what, path.string(), strerror(errno)))
      .WithNote(
          "a symbolic link or another file may be in the way (docs/security.md); choose another folder with "
          "hydra.run.dir=PATH");
}

}  // namespace

bool OwnerAlive(const LockOwner& owner) {
  if (owner.pid <= 0) return false;
  if (kill(static_cast<pid_t>(owner.pid), 0) != 0 && errno != EPERM) return false;
  if (owner.start_ticks == 0) return true;
  const unsigned long long now = ProcessStartTicks(owner.pid);
  return now == 0 || now == owner.start_ticks;
}

LockState ProbeRunLock(const fs::path& dir, LockOwner* owner) {
  const fs::path path = dir / kRunLockName;
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  // No lock, or something that is not one (a link, an unreadable file): no run holds it.
  if (fd < 0) return LockState::kFree;
  LockOwner found = ParseOwner(ReadFd(fd));
  const bool flock_free = flock(fd, LOCK_SH | LOCK_NB) == 0;
  close(fd);
  if (owner != nullptr) *owner = found;
  return flock_free && !OwnerAlive(found) ? LockState::kStale : LockState::kHeld;
}

Result<RunLock> RunLock::Acquire(const fs::path& dir) {
  const fs::path path = dir / kRunLockName;
  for (int attempt = 0; attempt < 50; ++attempt) {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
      // Ours. Another run that opens it before we write sees it empty and waits.
      if (flock(fd, LOCK_EX) != 0 || !WriteOwner(fd)) {
        Error e = IoError(path, "write");
        unlink(path.c_str());
        close(fd);
        return e;
      }
      return RunLock(fd, path, "");
    }
    if (errno != EEXIST) return IoError(path, "create");
    fd = open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue;  // its owner just removed it: try again
      return IoError(path, "open");
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const LockOwner owner = ParseOwner(ReadFd(fd));
      close(fd);
      errno = error;
      if (error == EWOULDBLOCK || error == EINTR || owner.pid > 0) return HeldError(dir, owner);
      return IoError(path, "lock");
    }
    if (!SameFile(fd, path)) {  // removed or replaced while we opened it
      close(fd);
      continue;
    }
    const std::string text = ReadFd(fd);
    const LockOwner owner = ParseOwner(text);
    if (owner.pid <= 0 && attempt < 20) {
      // Just made, not written yet (or its maker died right away): look again soon.
      close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (OwnerAlive(owner) && owner.pid != static_cast<long>(getpid())) {
      close(fd);
      return HeldError(dir, owner);
    }
    if (!WriteOwner(fd)) {
      Error e = IoError(path, "write");
      close(fd);
      return e;
    }
    return RunLock(fd, path,
                   fmt::format("took over the lock of a run that is no longer running ({}) in '{}'", Describe(owner),
                               dir.string()));
  }
  return MakeError(ExitStatus::kUsage,
                   fmt::format("run folder '{}' is in use by another run (its lock {} keeps changing)", dir.string(),
                               kRunLockName))
      .WithNote("choose another folder with hydra.run.dir=PATH");
}

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), note_(std::move(other.note_)) {}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    note_ = std::move(other.note_);
  }
  return *this;
}

RunLock::~RunLock() { Release(); }

void RunLock::Release() {
  if (fd_ < 0) return;
  // Remove the file while still holding the flock, so nobody takes a lock
  // that is about to vanish; then let go.
  if (SameFile(fd_, path_)) unlink(path_.c_str());
  close(fd_);
  fd_ = -1;
}

}  // namespace llmpo::pipeline
