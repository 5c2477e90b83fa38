#include "src/pipeline/import_stop.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

#include "src/core/exit_status.h"
#include "src/core/name_gate.h"

namespace llmpo::pipeline {
namespace {

std::mutex g_commit;
std::atomic<bool> g_committed{false};

// The signal handler only writes the signal's number into a pipe (all it
// may safely do); the stop thread reads it. A 0 byte ends the thread.
int g_pipe[2] = {-1, -1};
std::thread g_thread;

void OnSignal(int sig) {
  const int saved = errno;
  const char byte = static_cast<char>(sig);
  [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
  errno = saved;
}

// After the import: nothing left to clean up, the reports are in place.
void OnLateSignal(int) {
  static const char kSaid[] = "llm-perf-opt: interrupted by a signal after the import ended; its reports are in place\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kSaid, sizeof kSaid - 1);
  ::_exit(static_cast<int>(ExitStatus::kInterrupted));
}

void Watch(const std::function<void(int)>& clean_up) {
  char byte = 0;
  for (;;) {
    const ssize_t n = ::read(g_pipe[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || byte == 0) return;
    break;
  }
  // Never released: once the outputs in place are whole, none moves again.
  g_commit.lock();
  CloseNameGate();
  clean_up(static_cast<unsigned char>(byte));
  ::_exit(static_cast<int>(ExitStatus::kInterrupted));
}

}  // namespace

CommitSection::CommitSection() { g_commit.lock(); }
CommitSection::~CommitSection() { g_commit.unlock(); }
void CommitSection::Done() { g_committed = true; }

bool OutputsCommitted() { return g_committed.load(); }

ImportStop::ImportStop(std::function<void(int signal)> clean_up, std::function<void()> at_end)
    : at_end_(std::move(at_end)) {
  if (::pipe2(g_pipe, O_CLOEXEC) != 0) return;  // then signals keep their default action
  g_thread = std::thread(Watch, std::move(clean_up));
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void ImportStop::Guarded(const std::function<void()>& change) const {
  const std::lock_guard<std::mutex> no_stop(g_commit);
  change();
}

ImportStop::~ImportStop() {
  if (g_pipe[0] < 0) {
    at_end_();
    return;
  }
  {
    // A stop under way holds this for good: the process ends there.
    const std::lock_guard<std::mutex> no_stop(g_commit);
    at_end_();
    struct sigaction late {};
    late.sa_handler = OnLateSignal;
    sigemptyset(&late.sa_mask);
    sigaction(SIGINT, &late, nullptr);
    sigaction(SIGTERM, &late, nullptr);
  }
  const char stop = 0;
  [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &stop, 1);
  g_thread.join();
  ::close(g_pipe[0]);
  ::close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

}  // namespace llmpo::pipeline
