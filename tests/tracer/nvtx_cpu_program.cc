// A CPU-only program that exercises every NVTX call the tracer handles, for
// the CI test of the tracer's NVTX side (tests/tracer/trace_test.sh):
//   default domain: outer > inner x3 (push/pop, nested), a wide-character
//     range, a name with a tab, a mark;
//   domain "Alpha": step x2 (registered string), each with a nested "sub";
//   domain "Beta": 3 worker threads (named), each worker > task x4;
//   start/end: overlap_a and overlap_b overlap without nesting; handoff starts
//     on the main thread and ends on a worker.
// Each range spins for at least kSpinUs microseconds of its own.
// --exit-inside: exit(3) while "outer" is open (the early-exit case).
// --fork: after the rest, forks inside the range "parent_side"; the child
//   records "child_work" and exits normally, so it writes its own trace file.
// --fork-exit: the same, but the child ends with _exit(0).
// --close-fds: records enough "filler" ranges that the tracer opens its file,
//   closes every descriptor above 2, opens own.txt (likely reusing the
//   tracer's number), writes one line to it, records more filler, exits.
// --exec: records filler (written before the exec), then "pre_exec", then
//   execs itself with --after-exec, which records "post_exec" and exits.
// --exit-early: top-level ranges "early_a", "early_b", 20 ms, "early_c",
//   then _exit(0) inside the open range "never_closed".
// --exec-early: "exec_a", 20 ms, "exec_b", then execs itself with
//   --after-exec (a few ranges only: nothing fills the 64 KiB buffer).
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int kSpinUs = 200;

void Spin(int us = kSpinUs) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

nvtxEventAttributes_t Attributes(nvtxStringHandle_t registered) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = registered;
  return a;
}

nvtxEventAttributes_t Attributes(const char* text) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = text;
  return a;
}

void Worker(nvtxDomainHandle_t beta, int index, nvtxRangeId_t handoff) {
  const std::string name = "worker-" + std::to_string(index);
  nvtxNameOsThreadA(static_cast<uint32_t>(gettid()), name.c_str());
  auto worker = Attributes("worker");
  nvtxDomainRangePushEx(beta, &worker);
  Spin();
  for (int t = 0; t < 4; ++t) {
    auto task = Attributes("task");
    nvtxDomainRangePushEx(beta, &task);
    Spin();
    nvtxDomainRangePop(beta);
  }
  if (index == 0) nvtxRangeEnd(handoff);
  nvtxDomainRangePop(beta);
}

// More than the tracer's 64 KiB per-thread buffer of range records, so some
// reach the file before what follows.
void Filler() {
  for (int i = 0; i < 2000; ++i) {
    nvtxRangePushA("filler");
    nvtxRangePop();
  }
}

int CloseFdsAndWrite() {
  Filler();
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  const int own = open("own.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (own < 0 || write(own, "mine\n", 5) != 5) return 2;
  Filler();  // the tracer flushes again: never into own.txt
  close(own);
  return 0;
}

int ExecSelf(char* self) {
  Filler();
  nvtxRangePushA("pre_exec");
  nvtxRangePop();
  char after[] = "--after-exec";
  char* args[] = {self, after, nullptr};
  execv(self, args);
  return 2;  // exec failed
}

void TopLevel(const char* name) {
  nvtxRangePushA(name);
  nvtxRangePop();
}

int ExitEarly() {
  TopLevel("early_a");
  TopLevel("early_b");
  Spin(20000);
  TopLevel("early_c");
  nvtxRangePushA("never_closed");
  _exit(0);
}

int ExecEarly(char* self) {
  TopLevel("exec_a");
  Spin(20000);
  TopLevel("exec_b");
  char after[] = "--after-exec";
  char* args[] = {self, after, nullptr};
  execv(self, args);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--exit-early") == 0) return ExitEarly();
  if (argc > 1 && std::strcmp(argv[1], "--exec-early") == 0) return ExecEarly(argv[0]);
  if (argc > 1 && std::strcmp(argv[1], "--close-fds") == 0) return CloseFdsAndWrite();
  if (argc > 1 && std::strcmp(argv[1], "--exec") == 0) return ExecSelf(argv[0]);
  if (argc > 1 && std::strcmp(argv[1], "--after-exec") == 0) {
    nvtxRangePushA("post_exec");
    nvtxRangePop();
    return 0;
  }
  const bool exit_inside = argc > 1 && std::strcmp(argv[1], "--exit-inside") == 0;
  nvtxRangePushA("outer");
  Spin();
  if (exit_inside) std::exit(3);
  for (int i = 0; i < 3; ++i) {
    nvtxRangePushA("inner");
    Spin();
    nvtxRangePop();
  }
  nvtxRangePop();

  nvtxRangePushW(L"wide_\u00fc");
  Spin();
  nvtxRangePop();
  nvtxRangePushA("tab\there");
  Spin();
  nvtxRangePop();
  nvtxMarkA("checkpoint");

  nvtxDomainHandle_t alpha = nvtxDomainCreateA("Alpha");
  nvtxStringHandle_t step_name = nvtxDomainRegisterStringA(alpha, "step");
  for (int s = 0; s < 2; ++s) {
    auto step = Attributes(step_name);
    nvtxDomainRangePushEx(alpha, &step);
    Spin();
    auto sub = Attributes("sub");
    nvtxDomainRangePushEx(alpha, &sub);
    Spin();
    nvtxDomainRangePop(alpha);
    nvtxDomainRangePop(alpha);
  }

  const nvtxRangeId_t a = nvtxRangeStartA("overlap_a");
  Spin();
  const nvtxRangeId_t b = nvtxRangeStartA("overlap_b");
  Spin();
  nvtxRangeEnd(a);
  Spin();
  nvtxRangeEnd(b);

  const nvtxRangeId_t handoff = nvtxRangeStartA("handoff");
  nvtxDomainHandle_t beta = nvtxDomainCreateA("Beta");
  std::vector<std::thread> workers;
  for (int w = 0; w < 3; ++w) workers.emplace_back(Worker, beta, w, handoff);
  for (auto& t : workers) t.join();

  const bool fork_exit = argc > 1 && std::strcmp(argv[1], "--fork-exit") == 0;
  if (argc > 1 && (std::strcmp(argv[1], "--fork") == 0 || fork_exit)) {
    nvtxRangePushA("parent_side");
    const pid_t child = fork();
    if (child == 0) {
      nvtxRangePushA("child_work");
      Spin();
      nvtxRangePop();
      if (fork_exit) _exit(0);  // as multiprocessing's forked workers end
      std::exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    nvtxRangePop();
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  }
  return 0;
}
