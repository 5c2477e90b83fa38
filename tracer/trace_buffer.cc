#include "tracer/trace_buffer.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "src/model/trace_format.h"

namespace llmpo::tracer {
namespace {

constexpr std::size_t kFlushBytes = 1 << 16;

// This host's name for the trace header ("" when unknown; tabs and line
// breaks, which no host name has, would end the field and are dropped).
std::string HostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  std::string out;
  for (const char* c = name; *c != '\0'; ++c) {
    if (*c != '\t' && *c != '\n' && *c != '\r') out += *c;
  }
  return out;
}

// A W record: CLOCK_MONOTONIC (the trace's clock, the midpoint of two
// reads) and CLOCK_REALTIME read together, at the start and at the end, so
// that traces of different hosts can later be put on one time line
// (multirank reference §3: each host's monotonic clock counts from its boot).
std::string WallClockRecord() {
  timespec before{}, wall{}, after{};
  clock_gettime(CLOCK_MONOTONIC, &before);
  clock_gettime(CLOCK_REALTIME, &wall);
  clock_gettime(CLOCK_MONOTONIC, &after);
  const auto ns = [](const timespec& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + static_cast<std::int64_t>(t.tv_nsec);
  };
  const std::int64_t monotonic = ns(before) + (ns(after) - ns(before)) / 2;
  return std::string(1, trace_format::kWallClock) + "\t" + std::to_string(monotonic) + "\t" + std::to_string(ns(wall)) +
         "\n";
}

// The process's rank as its launcher set it, first of RANK (torchrun),
// OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID: the order that
// is right under every launcher combination (multirank reference, fact 1;
// an outer SLURM_PROCID is shared by the ranks an inner launcher starts).
// "" when none is set or the value is not a number.
std::string LauncherRank() {
  for (const char* var : {"RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* value = std::getenv(var);
    if (value == nullptr || *value == '\0') continue;
    long long rank = 0;
    const char* end = value + std::char_traits<char>::length(value);
    if (auto [at, ec] = std::from_chars(value, end, rank); ec == std::errc() && at == end && rank >= 0) {
      return std::to_string(rank);
    }
    return "";
  }
  return "";
}

// The trace file: LLMPO_TRACE_FILE, with %p replaced by the process id
// (each process of a multi-process workload writes its own file).
class TraceFile {
 public:
  // Plain write(2), no stdio buffer: nothing is held back that a fork could
  // duplicate, and records reach the file in whole buffers.
  void Write(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!Open()) return;
    if (!StillOurs()) {
      // The program closed our descriptor (and may have reused its number for
      // a file of its own): never write into that; reopen ours and say so.
      fd_ = -1;
      if (!Open()) return;
      const std::string note = "X\tfd_replaced\n";
      WriteAll(note.data(), note.size());
    }
    WriteAll(text.data(), text.size());
  }
  // Opens the file (writing its header) if it is not open yet.
  void Start() {
    std::lock_guard<std::mutex> lock(mu_);
    Open();
  }
  // In a forked child: the parent's file is not ours; the next record opens
  // the child's own file (its pid in the name).
  void ForgetAfterFork() {
    new (&mu_) std::mutex;  // the forking thread may not own it in the child
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    failed_ = false;
    reopened_ = 0;
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

  // Whether fd_ still refers to the file Open() made.
  bool StillOurs() const {
    struct stat st {};
    return ::fstat(fd_, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
  }

  // Appends, never truncates: after an exec the same process (same pid, so
  // the same file) goes on writing after what it recorded before; the new
  // image writes its own header, which the importer reads as an exec.
  bool Open() {
    if (fd_ >= 0 || failed_) return fd_ >= 0;
    const char* pattern = std::getenv("LLMPO_TRACE_FILE");
    std::string path = pattern != nullptr && *pattern ? pattern : "llmpo-trace.%p.tsv";
    if (auto at = path.find("%p"); at != std::string::npos) path.replace(at, 2, std::to_string(getpid()));
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    struct stat st {};
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
      failed_ = true;
      std::fprintf(stderr, "llm-perf-opt tracer: cannot write %s; no trace for this process\n", path.c_str());
      return false;
    }
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    if (reopened_++ > 0) return true;  // our own file again: its header is there
    char exe[512] = {0};
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string header =
        std::string(trace_format::kHeader) + "\n" + trace_format::kProcess + "\t" + std::to_string(getpid()) + "\t";
    header += n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : "?";
    header += "\tCLOCK_MONOTONIC\t" + HostName() + "\t" + LauncherRank() + "\n" + WallClockRecord();
    WriteAll(header.data(), header.size());
    return true;
  }

  std::mutex mu_;
  int fd_ = -1;
  bool failed_ = false;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  int reopened_ = 0;
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
  std::uint64_t last_flush_ns = 0;  // when FlushMineIfDue last wrote
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

// Bumped in a forked child: every thread id cached before the fork is the
// parent's, and the child's thread must ask again.
std::atomic<std::uint32_t> g_fork_generation{0};

std::uint32_t ThreadId() {
  thread_local std::uint32_t tid = 0;
  thread_local std::uint32_t generation = 0;
  const std::uint32_t now = g_fork_generation.load(std::memory_order_relaxed);
  if (tid == 0 || generation != now) {
    tid = static_cast<std::uint32_t>(syscall(SYS_gettid));
    generation = now;
  }
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

void StartTraceFile() { File().Start(); }

void FlushMineIfDue(std::uint64_t now) {
  ThreadBuffer& mine = Mine();
  std::lock_guard<SpinLock> lock(mine.mu);
  if (now - mine.last_flush_ns < kTopLevelFlushNs) return;
  mine.last_flush_ns = now;
  mine.FlushLocked();
}

void FlushAll(const char* reason) {
  std::lock_guard<std::mutex> lock(g_buffers_mu);
  for (ThreadBuffer* b : Buffers()) {
    std::lock_guard<SpinLock> buffer_lock(b->mu);
    b->FlushLocked();
  }
  std::string end = WallClockRecord() + std::string(1, trace_format::kEnd) + "\t" + std::to_string(NowNs()) + "\t" +
                    reason + "\n";
  File().Write(end);
}

void ResetAfterFork() {
  g_fork_generation.fetch_add(1, std::memory_order_relaxed);
  new (&g_buffers_mu) std::mutex;
  for (ThreadBuffer* b : Buffers()) {
    b->mu.Reset();
    b->text.clear();  // the parent's records; it writes them itself
    b->last_flush_ns = 0;  // the child's first top-level range end writes (and makes its file)
  }
  File().ForgetAfterFork();
}

}  // namespace llmpo::tracer
