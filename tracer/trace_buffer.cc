#include "tracer/trace_buffer.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace llmpo::tracer {
namespace {

constexpr std::size_t kFlushBytes = 1 << 16;

// The trace file: LLMPO_TRACE_FILE, with %p replaced by the process id
// (each process of a multi-process workload writes its own file).
class TraceFile {
 public:
  // Plain write(2), no stdio buffer: nothing is held back that a fork could
  // duplicate, and records reach the file in whole buffers.
  void Write(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!Open()) return;
    WriteAll(text.data(), text.size());
  }
  // In a forked child: the parent's file is not ours; the next record opens
  // the child's own file (its pid in the name).
  void ForgetAfterFork() {
    new (&mu_) std::mutex;  // the forking thread may not own it in the child
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    failed_ = false;
  }

 private:
  void WriteAll(const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(fd_, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      data += n;
      size -= static_cast<std::size_t>(n);
    }
  }

  bool Open() {
    if (fd_ >= 0 || failed_) return fd_ >= 0;
    const char* pattern = std::getenv("LLMPO_TRACE_FILE");
    std::string path = pattern != nullptr && *pattern ? pattern : "llmpo-trace.%p.tsv";
    if (auto at = path.find("%p"); at != std::string::npos) path.replace(at, 2, std::to_string(getpid()));
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      failed_ = true;
      std::fprintf(stderr, "llm-perf-opt tracer: cannot write %s; no trace for this process\n", path.c_str());
      return false;
    }
    char exe[512] = {0};
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string header = "#llmpo-trace 1\nP\t" + std::to_string(getpid()) + "\t";
    header += n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : "?";
    header += "\tCLOCK_MONOTONIC\n";
    WriteAll(header.data(), header.size());
    return true;
  }

  std::mutex mu_;
  int fd_ = -1;
  bool failed_ = false;
};

TraceFile& File() {
  static auto* file = new TraceFile;  // never destroyed: threads may write during exit
  return *file;
}

struct ThreadBuffer;
std::mutex g_buffers_mu;
std::vector<ThreadBuffer*>& Buffers() {
  static auto* buffers = new std::vector<ThreadBuffer*>;
  return *buffers;
}

// Heap-allocated and never freed: no thread_local destructors, whose order
// against atexit handlers is fragile. A finished thread's unflushed records
// (under 64 KiB) wait in its buffer until exit.
struct ThreadBuffer {
  SpinLock mu;  // uncontended except when FlushAll runs
  std::string text;
  ThreadBuffer() {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    Buffers().push_back(this);
  }
  void FlushLocked() {
    if (text.empty()) return;
    File().Write(text);
    text.clear();
  }
};

ThreadBuffer& Mine() {
  thread_local ThreadBuffer* buffer = nullptr;
  if (buffer == nullptr) {
    // The first buffer of the process: from now on a forked child must drop
    // the parent's records (whether NVTX or CUDA made them).
    static const bool fork_handler = pthread_atfork(nullptr, nullptr, ResetAfterFork) == 0;
    (void)fork_handler;
    buffer = new ThreadBuffer;
  }
  return *buffer;
}

void AppendEscaped(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace

std::uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::uint32_t ThreadId() {
  thread_local const auto tid = static_cast<std::uint32_t>(syscall(SYS_gettid));
  return tid;
}

Line::Line(char kind) : out_(Mine().text) {
  Mine().mu.lock();
  out_ += kind;
}

Line& Line::Add(std::uint64_t value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out_ += '\t';
  out_.append(digits, end);
  return *this;
}

Line& Line::Add(std::int64_t value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out_ += '\t';
  out_.append(digits, end);
  return *this;
}

Line& Line::Add(std::string_view text) {
  out_ += '\t';
  AppendEscaped(out_, text);
  return *this;
}

Line::~Line() {
  out_ += '\n';
  ThreadBuffer& mine = Mine();
  if (out_.size() >= kFlushBytes) mine.FlushLocked();
  mine.mu.unlock();
}

void FlushAll(const char* reason) {
  std::lock_guard<std::mutex> lock(g_buffers_mu);
  for (ThreadBuffer* b : Buffers()) {
    std::lock_guard<SpinLock> buffer_lock(b->mu);
    b->FlushLocked();
  }
  std::string end = "E\t" + std::to_string(NowNs()) + "\t" + reason + "\n";
  File().Write(end);
}

void ResetAfterFork() {
  new (&g_buffers_mu) std::mutex;
  for (ThreadBuffer* b : Buffers()) {
    b->mu.Reset();
    b->text.clear();  // the parent's records; it writes them itself
  }
  File().ForgetAfterFork();
}

}  // namespace llmpo::tracer
