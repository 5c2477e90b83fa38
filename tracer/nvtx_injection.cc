// NVTX side of the tracer: the library named by NVTX_INJECTION64_PATH. The
// NVTX code inside the application calls InitializeInjectionNvtx2 on its
// first NVTX call; we fill its function tables with our handlers, which
// record push/pop ranges (written when they end, with their depth), start/end
// ranges, marks, domains, registered strings and thread names.
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cwchar>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/model/trace_format.h"
#include "tracer/exit_hooks.h"
#include "tracer/trace_buffer.h"

// NVTX's handle types are opaque structs that the tool defines.
struct nvtxDomainRegistration_st {
  std::uint64_t id;
  std::string name;
};
struct nvtxStringRegistration_st {
  std::string text;
};

namespace llmpo::tracer {
namespace {

constexpr std::uint64_t kDefaultDomain = 0;

std::uint64_t DomainId(nvtxDomainHandle_t d) { return d == nullptr ? kDefaultDomain : d->id; }

std::string FromWide(const wchar_t* w) {
  std::string out;
  if (w == nullptr) return out;
  for (; *w; ++w) {  // wchar_t is UTF-32 on Linux
    auto c = static_cast<std::uint32_t>(*w);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::string Message(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return "";
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
      return FromWide(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered ? a->message.registered->text : "";
    default:
      return "";
  }
}

// Push/pop stacks of one thread, per domain.
struct OpenRange {
  std::uint64_t start;
  std::string name;
};
struct ThreadStacks {
  std::uint32_t tid;
  SpinLock mu;  // taken by this thread and by the exit and fork hooks only
  std::vector<std::pair<std::uint64_t, std::vector<OpenRange>>> by_domain;
  std::vector<OpenRange>& Of(std::uint64_t domain) {
    for (auto& [d, stack] : by_domain) {
      if (d == domain) return stack;
    }
    by_domain.emplace_back(domain, std::vector<OpenRange>{});
    return by_domain.back().second;
  }
};

std::mutex g_threads_mu;
std::vector<ThreadStacks*>& AllThreads() {
  static auto* all = new std::vector<ThreadStacks*>;
  return *all;
}

ThreadStacks& MyStacks() {
  thread_local ThreadStacks* mine = nullptr;  // never freed, like the buffers
  if (mine == nullptr) {
    mine = new ThreadStacks;
    mine->tid = ThreadId();
    std::lock_guard<std::mutex> lock(g_threads_mu);
    AllThreads().push_back(mine);
  }
  return *mine;
}

// Start/end ranges may end on another thread: one table for the process.
struct OpenStartEnd {
  std::uint64_t domain, start;
  std::uint32_t tid;
  std::string name;
};
std::mutex g_start_end_mu;
std::unordered_map<std::uint64_t, OpenStartEnd>& StartEnd() {
  static auto* table = new std::unordered_map<std::uint64_t, OpenStartEnd>;
  return *table;
}
std::atomic<std::uint64_t> g_next_range_id{1};
std::atomic<std::uint64_t> g_next_domain_id{1};

int Push(std::uint64_t domain, std::string name) {
  const std::uint64_t now = NowNs();
  ThreadStacks& t = MyStacks();
  std::lock_guard<SpinLock> lock(t.mu);
  auto& stack = t.Of(domain);
  stack.push_back({now, std::move(name)});
  return static_cast<int>(stack.size()) - 1;
}

int PopLocked(ThreadStacks& t, std::uint64_t domain, std::uint64_t now) {
  auto& stack = t.Of(domain);
  if (stack.empty()) {
    Line(trace_format::kWarning).Add(std::string_view("unbalanced_pop")).Add(std::uint64_t{t.tid}).Add(domain).Add(now);
    return -1;
  }
  const int depth = static_cast<int>(stack.size()) - 1;
  Line(trace_format::kPushPopRange)
      .Add(std::uint64_t{t.tid})
      .Add(domain)
      .Add(std::int64_t{depth})
      .Add(stack.back().start)
      .Add(now)
      .Add(stack.back().name);
  stack.pop_back();
  return depth;
}

int Pop(std::uint64_t domain) {
  const std::uint64_t now = NowNs();
  ThreadStacks& t = MyStacks();
  int depth = -1;
  {
    std::lock_guard<SpinLock> lock(t.mu);
    depth = PopLocked(t, domain, now);
  }
  // A top-level range ended: its records reach the file soon (before an
  // _exit or exec could lose them), at most once per kTopLevelFlushNs.
  if (depth == 0) FlushMineIfDue(now);
  return depth;
}

nvtxRangeId_t Start(std::uint64_t domain, std::string name) {
  const std::uint64_t now = NowNs();
  const std::uint64_t id = g_next_range_id++;
  std::lock_guard<std::mutex> lock(g_start_end_mu);
  StartEnd().emplace(id, OpenStartEnd{domain, now, ThreadId(), std::move(name)});
  return id;
}

void End(nvtxRangeId_t id) {
  const std::uint64_t now = NowNs();
  OpenStartEnd r;
  {
    std::lock_guard<std::mutex> lock(g_start_end_mu);
    auto it = StartEnd().find(id);
    if (it == StartEnd().end()) {
      Line(trace_format::kWarning).Add(std::string_view("unknown_range_end")).Add(std::uint64_t{ThreadId()}).Add(id).Add(now);
      return;
    }
    r = std::move(it->second);
    StartEnd().erase(it);
  }
  Line(trace_format::kStartEndRange)
      .Add(id)
      .Add(r.domain)
      .Add(std::uint64_t{r.tid})
      .Add(std::uint64_t{ThreadId()})
      .Add(r.start)
      .Add(now)
      .Add(r.name);
}

void Mark(std::uint64_t domain, const std::string& name) {
  Line(trace_format::kMark).Add(std::uint64_t{ThreadId()}).Add(domain).Add(NowNs()).Add(name);
}

// Ranges still open at exit are written with the exit time and the flag "open".
void WriteOpenRanges() {
  const std::uint64_t now = NowNs();
  {
    std::lock_guard<std::mutex> lock(g_threads_mu);
    for (ThreadStacks* t : AllThreads()) {
      std::lock_guard<SpinLock> stacks_lock(t->mu);
      for (auto& [domain, stack] : t->by_domain) {
        for (std::size_t depth = stack.size(); depth-- > 0;) {
          Line(trace_format::kPushPopRange)
              .Add(std::uint64_t{t->tid})
              .Add(domain)
              .Add(static_cast<std::int64_t>(depth))
              .Add(stack[depth].start)
              .Add(now)
              .Add(stack[depth].name)
              .Add(std::string_view("open"));
        }
        stack.clear();
      }
    }
  }
  std::lock_guard<std::mutex> lock(g_start_end_mu);
  for (auto& [id, r] : StartEnd()) {
    Line(trace_format::kStartEndRange)
        .Add(id)
        .Add(r.domain)
        .Add(std::uint64_t{r.tid})
        .Add(std::uint64_t{r.tid})
        .Add(r.start)
        .Add(now)
        .Add(r.name)
        .Add(std::string_view("open"));
  }
  StartEnd().clear();
}

// In a forked child: the open ranges are the parent's (it ends them), and
// only the forking thread exists, so the locks are re-created.
void ResetAfterForkInChild() {
  new (&g_threads_mu) std::mutex;
  for (ThreadStacks* t : AllThreads()) {
    t->mu.Reset();
    t->by_domain.clear();
  }
  new (&g_start_end_mu) std::mutex;
  StartEnd().clear();
  // The forking thread lives on in the child under a new thread id; its
  // ranges from now on must carry that id, or its kernels are not attributed.
  MyStacks().tid = static_cast<std::uint32_t>(syscall(SYS_gettid));
}

// --- The handlers NVTX calls ------------------------------------------------

int RangePushA(const char* m) { return Push(kDefaultDomain, m ? m : ""); }
int RangePushW(const wchar_t* m) { return Push(kDefaultDomain, FromWide(m)); }
int RangePushEx(const nvtxEventAttributes_t* a) { return Push(kDefaultDomain, Message(a)); }
int RangePop() { return Pop(kDefaultDomain); }
nvtxRangeId_t RangeStartA(const char* m) { return Start(kDefaultDomain, m ? m : ""); }
nvtxRangeId_t RangeStartW(const wchar_t* m) { return Start(kDefaultDomain, FromWide(m)); }
nvtxRangeId_t RangeStartEx(const nvtxEventAttributes_t* a) { return Start(kDefaultDomain, Message(a)); }
void RangeEnd(nvtxRangeId_t id) { End(id); }
void MarkA(const char* m) { Mark(kDefaultDomain, m ? m : ""); }
void MarkW(const wchar_t* m) { Mark(kDefaultDomain, FromWide(m)); }
void MarkEx(const nvtxEventAttributes_t* a) { Mark(kDefaultDomain, Message(a)); }
void NameOsThreadA(std::uint32_t tid, const char* name) {
  Line(trace_format::kThreadName).Add(std::uint64_t{tid}).Add(std::string_view(name ? name : ""));
}
void NameOsThreadW(std::uint32_t tid, const wchar_t* name) { Line(trace_format::kThreadName).Add(std::uint64_t{tid}).Add(FromWide(name)); }

int DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { return Push(DomainId(d), Message(a)); }
int DomainRangePop(nvtxDomainHandle_t d) { return Pop(DomainId(d)); }
nvtxRangeId_t DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return Start(DomainId(d), Message(a));
}
void DomainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id) { End(id); }
void DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { Mark(DomainId(d), Message(a)); }

nvtxDomainHandle_t DomainCreate(std::string name) {
  auto* d = new nvtxDomainRegistration_st{g_next_domain_id++, std::move(name)};
  Line(trace_format::kDomain).Add(d->id).Add(d->name);
  return d;
}
nvtxDomainHandle_t DomainCreateA(const char* name) { return DomainCreate(name ? name : ""); }
nvtxDomainHandle_t DomainCreateW(const wchar_t* name) { return DomainCreate(FromWide(name)); }
void DomainDestroy(nvtxDomainHandle_t) {}  // handles stay valid: records name them by id
nvtxStringHandle_t RegisterStringA(nvtxDomainHandle_t, const char* s) {
  return new nvtxStringRegistration_st{s ? s : ""};
}
nvtxStringHandle_t RegisterStringW(nvtxDomainHandle_t, const wchar_t* s) {
  return new nvtxStringRegistration_st{FromWide(s)};
}

template <typename Fn>
void Install(NvtxFunctionTable table, unsigned size, unsigned id, Fn* fn) {
  if (table != nullptr && id < size && table[id] != nullptr) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

}  // namespace
}  // namespace llmpo::tracer

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  using namespace llmpo::tracer;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return 0;
  NvtxFunctionTable core = nullptr;
  unsigned core_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size)) return 0;
  Install(core, core_size, NVTX_CBID_CORE_MarkEx, MarkEx);
  Install(core, core_size, NVTX_CBID_CORE_MarkA, MarkA);
  Install(core, core_size, NVTX_CBID_CORE_MarkW, MarkW);
  Install(core, core_size, NVTX_CBID_CORE_RangeStartEx, RangeStartEx);
  Install(core, core_size, NVTX_CBID_CORE_RangeStartA, RangeStartA);
  Install(core, core_size, NVTX_CBID_CORE_RangeStartW, RangeStartW);
  Install(core, core_size, NVTX_CBID_CORE_RangeEnd, RangeEnd);
  Install(core, core_size, NVTX_CBID_CORE_RangePushEx, RangePushEx);
  Install(core, core_size, NVTX_CBID_CORE_RangePushA, RangePushA);
  Install(core, core_size, NVTX_CBID_CORE_RangePushW, RangePushW);
  Install(core, core_size, NVTX_CBID_CORE_RangePop, RangePop);
  Install(core, core_size, NVTX_CBID_CORE_NameOsThreadA, NameOsThreadA);
  Install(core, core_size, NVTX_CBID_CORE_NameOsThreadW, NameOsThreadW);
  NvtxFunctionTable core2 = nullptr;
  unsigned core2_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size)) {
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainMarkEx, DomainMarkEx);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx, DomainRangeStartEx);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd, DomainRangeEnd);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, DomainRangePushEx);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, DomainRangePop);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA, RegisterStringA);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringW, RegisterStringW);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, DomainCreateA);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateW, DomainCreateW);
    Install(core2, core2_size, NVTX_CBID_CORE2_DomainDestroy, DomainDestroy);
  }
  AddExitHook(WriteOpenRanges, /*order=*/1);
  pthread_atfork(nullptr, nullptr, ResetAfterForkInChild);
  StartTraceFile();
  return 1;
}
