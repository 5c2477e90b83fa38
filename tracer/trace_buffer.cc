#include "tracer/trace_buffer.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace llmpo::tracer {
namespace {

constexpr std::size_t kFlushBytes = 1 << 16;

// The trace file: LLMPO_TRACE_FILE, with %p replaced by the process id
// (each process of a multi-process workload writes its own file).
class TraceFile {
 public:
  void Write(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!Open()) return;
    std::fwrite(text.data(), 1, text.size(), file_);
  }
  void Flush() {
    std::lock_guard<std::mutex> lock(mu_);
    if (file_ != nullptr) std::fflush(file_);
  }

 private:
  bool Open() {
    if (file_ != nullptr || failed_) return file_ != nullptr;
    const char* pattern = std::getenv("LLMPO_TRACE_FILE");
    std::string path = pattern != nullptr && *pattern ? pattern : "llmpo-trace.%p.tsv";
    if (auto at = path.find("%p"); at != std::string::npos) path.replace(at, 2, std::to_string(getpid()));
    file_ = std::fopen(path.c_str(), "w");
    if (file_ == nullptr) {
      failed_ = true;
      std::fprintf(stderr, "llm-perf-opt tracer: cannot write %s; no trace for this process\n", path.c_str());
      return false;
    }
    char exe[512] = {0};
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string header = "#llmpo-trace 1\nP\t" + std::to_string(getpid()) + "\t";
    header += n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : "?";
    header += "\tCLOCK_MONOTONIC\n";
    std::fwrite(header.data(), 1, header.size(), file_);
    return true;
  }

  std::mutex mu_;
  std::FILE* file_ = nullptr;
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
  std::mutex mu;  // uncontended except when FlushAll runs
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
  if (buffer == nullptr) buffer = new ThreadBuffer;
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
    std::lock_guard<std::mutex> buffer_lock(b->mu);
    b->FlushLocked();
  }
  std::string end = "E\t" + std::to_string(NowNs()) + "\t" + reason + "\n";
  File().Write(end);
  File().Flush();
}

}  // namespace llmpo::tracer
