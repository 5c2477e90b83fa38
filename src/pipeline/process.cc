#include "src/pipeline/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

extern char** environ;

namespace llmpo::pipeline {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(50);

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Follows a file another process appends to and hands out complete lines.
class LineFollower {
 public:
  explicit LineFollower(const std::filesystem::path& file) : in_(file, std::ios::binary) {}

  void Poll(const std::function<void(std::string_view)>& on_line) {
    if (!on_line || !in_) return;
    char chunk[4096];
    for (;;) {
      in_.read(chunk, sizeof chunk);
      const auto got = in_.gcount();
      if (got <= 0) break;
      pending_.append(chunk, static_cast<std::size_t>(got));
    }
    in_.clear();  // EOF now is not EOF later: the program keeps writing
    std::size_t begin = 0;
    for (std::size_t nl; (nl = pending_.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      std::string_view line(pending_.data() + begin, nl - begin);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      on_line(line);
    }
    pending_.erase(0, begin);
  }

  // The last line, if the program ended without a newline.
  void Finish(const std::function<void(std::string_view)>& on_line) {
    Poll(on_line);
    if (on_line && !pending_.empty()) on_line(pending_);
    pending_.clear();
  }

 private:
  std::ifstream in_;
  std::string pending_;
};

// Our environment with spec.env on top.
std::vector<std::string> ChildEnvironment(const StepSpec& spec) {
  std::vector<std::string> env_text = spec.env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& mine : spec.env) overridden |= std::string_view(mine).substr(0, mine.find('=')) == name;
    if (!overridden) env_text.emplace_back(entry);
  }
  return env_text;
}

// In the child between fork and exec: async-signal-safe calls only. A
// failure is reported through `report` (errno) and ends the child.
[[noreturn]] void ExecChild(const StepSpec& spec, bool own_group, pid_t parent, char* const* args, char* const* envp,
                            int report) {
  const auto fail = [report](int err) {
    while (::write(report, &err, sizeof err) < 0 && errno == EINTR) {
    }
    _exit(127);
  };
  if (own_group && setpgid(0, 0) != 0) fail(errno);
  // When we die, even by SIGKILL, the program dies with us instead of running
  // on as an orphan. If we died before this line, we are already gone.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(137);
  const auto redirect = [&](int target, const char* path, int flags) {
    const int fd = ::open(path, flags | O_CLOEXEC, 0644);
    if (fd < 0) fail(errno);
    if (dup2(fd, target) < 0) fail(errno);  // the duplicate does not inherit O_CLOEXEC
    close(fd);
  };
  redirect(STDOUT_FILENO, spec.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC);
  redirect(STDERR_FILENO, spec.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC);
  if (own_group) redirect(STDIN_FILENO, "/dev/null", O_RDONLY);
  // The program gets default handling of the stop signals we forward, even
  // when we were started with them ignored (a background job of a shell
  // script ignores SIGINT, and so would every child it starts).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGINT, &dfl, nullptr);
  sigaction(SIGTERM, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvpe(args[0], args, envp);
  fail(errno);
  _exit(127);  // not reached
}

Result<pid_t> Spawn(const StepSpec& spec, bool own_group) {
  if (spec.argv.empty()) return MakeError(ExitStatus::kFailure, "RunStep: empty argv");
  std::vector<char*> args;
  for (const auto& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_text = ChildEnvironment(spec);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  // The child writes errno here when it cannot exec; a successful exec
  // closes it (O_CLOEXEC) and the read below sees end of file.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot start '{}': pipe: {}", spec.argv[0], std::strerror(errno)));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(report[0]);
    close(report[1]);
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot start '{}': fork: {}", spec.argv[0], std::strerror(err)));
  }
  if (pid == 0) {
    close(report[0]);
    ExecChild(spec, own_group, parent, args.data(), envp.data(), report[1]);
  }
  close(report[1]);
  int child_errno = 0;
  ssize_t n = 0;
  while ((n = ::read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return MakeError(ExitStatus::kToolMissing,
                     fmt::format("cannot start '{}': {}", spec.argv[0], std::strerror(child_errno)));
  }
  return pid;
}

std::atomic<int> g_stop_signal{0};
struct sigaction g_old_int {};
struct sigaction g_old_term {};

void OnStopSignal(int sig) { g_stop_signal = sig; }

int DecodeStatus(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

Result<ProcessResult> RunStep(const StepSpec& spec) {
  const auto start = Clock::now();
  ASSIGN_OR_RETURN(pid_t pid, Spawn(spec, /*own_group=*/true));
  LineFollower out(spec.stdout_file);
  LineFollower err(spec.stderr_file);
  ProcessResult result;
  result.pid = pid;
  double term_sent_at = -1;  // when SIGTERM went to the group (timeout or forwarded stop)
  bool killed = false;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return MakeError(ExitStatus::kFailure, fmt::format("waiting for '{}': {}", spec.argv[0], std::strerror(errno)));
    }
    out.Poll(spec.on_line);
    err.Poll(spec.on_line);
    const double elapsed = SecondsSince(start);
    const int stop = spec.stop_signal ? spec.stop_signal->load() : 0;
    if (stop != 0 && result.forwarded_signal == 0) {
      result.forwarded_signal = stop;
      kill(-pid, stop);
      term_sent_at = elapsed;
    }
    if (spec.timeout_s > 0 && elapsed > spec.timeout_s && !result.timed_out) {
      result.timed_out = true;
      kill(-pid, SIGTERM);
      term_sent_at = elapsed;
    }
    if (term_sent_at >= 0 && !killed && elapsed - term_sent_at > spec.kill_grace_s) {
      killed = true;
      kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  out.Finish(spec.on_line);
  err.Finish(spec.on_line);
  result.exit_code = DecodeStatus(status);
  result.duration_s = SecondsSince(start);
  return result;
}

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<int>* StopSignals::signal() const { return &g_stop_signal; }

ProcessRunner& SystemRunner() {
  class System final : public ProcessRunner {
   public:
    Result<ProcessResult> Run(const StepSpec& spec) override { return RunStep(spec); }
  };
  static System runner;
  return runner;
}

Result<ProcessResult> RunToFiles(const std::vector<std::string>& argv, const std::filesystem::path& stdout_file,
                                 const std::filesystem::path& stderr_file) {
  const auto start = Clock::now();
  StepSpec spec;
  spec.argv = argv;
  spec.stdout_file = stdout_file;
  spec.stderr_file = stderr_file;
  ASSIGN_OR_RETURN(pid_t pid, Spawn(spec, /*own_group=*/false));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ProcessResult result;
  result.exit_code = DecodeStatus(status);
  result.duration_s = SecondsSince(start);
  return result;
}

}  // namespace llmpo::pipeline
