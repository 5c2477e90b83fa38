// `rank-exec` (internal, not in the subcommand table): what a profile or
// trace run puts between a launcher and each rank's program. In the rank's
// own process it reads the launcher's rank variables, starts the profiler
// with the rank in its output name (or, on a rank not chosen, the program
// alone), and records the rank's identity and how it ended in
// DIR/STEP.rankN.json (docs/multirank.md):
//   rank-exec --record DIR --step STEP --profiler-args N [--ranks all|0,2]
//             [--env NAME=VALUE]... -- PROFILER_ARGS... PROGRAM...
// "{rank}" in the first N arguments and in --env values becomes the rank,
// "{ncu_peers}" in them the number of ranks profiled (ncu's lockstep).
// Exits as the program did (128+signal when a signal ended it).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "src/cli/subcommands.h"
#include "src/pipeline/rank_identity.h"

namespace llmpo::cli {
namespace {
namespace fs = std::filesystem;
using pipeline::RankRecord;

struct RankExecArgs {
  std::string record_dir, step, ranks = "all";
  std::size_t profiler_args = 0;
  std::vector<std::string> env, argv;
};

bool ParseRankExec(const std::vector<std::string>& args, RankExecArgs& out) {
  std::size_t i = 0;
  for (; i < args.size() && args[i] != "--"; i += 2) {
    if (i + 1 >= args.size()) return false;
    const std::string& value = args[i + 1];
    if (args[i] == "--record") out.record_dir = value;
    else if (args[i] == "--step") out.step = value;
    else if (args[i] == "--ranks") out.ranks = value;
    else if (args[i] == "--env") out.env.push_back(value);
    else if (args[i] == "--profiler-args") out.profiler_args = std::strtoul(value.c_str(), nullptr, 10);
    else return false;
  }
  if (i >= args.size()) return false;
  out.argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
  return !out.record_dir.empty() && !out.step.empty() && out.argv.size() > out.profiler_args;
}

bool Chosen(const std::string& ranks, const pipeline::RankIdentity& who) {
  if (ranks == "all") return true;
  if (!who.rank) return false;
  std::stringstream list(ranks);
  for (std::string item; std::getline(list, item, ',');) {
    if (!item.empty() && std::strtoll(item.c_str(), nullptr, 10) == *who.rank) return true;
  }
  return false;
}

double NowUnix() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Host() {
  char name[256] = {0};
  return gethostname(name, sizeof name - 1) == 0 ? name : "";
}

// Claims DIR/STEP.rankN.json, or STEP.rankN.pidP.json when another process
// holds that rank already (the duplicate is reported, never overwritten).
fs::path ClaimRecordFile(const RankExecArgs& a, const RankRecord& r) {
  std::error_code ec;
  fs::create_directories(a.record_dir, ec);
  const fs::path plain = fs::path(a.record_dir) / (a.step + "." + r.who.Label() + ".json");
  if (r.who.rank) {
    const int fd = ::open(plain.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return plain;
    }
  }
  return fs::path(a.record_dir) / (a.step + "." + r.who.Label() + ".pid" + std::to_string(r.pid) + ".json");
}

void WriteRecord(const fs::path& file, const RankRecord& r) {
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << pipeline::RankRecordJson(r);
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
}

std::atomic<pid_t> g_child{0};
std::atomic<bool> g_signalled{false};

void Forward(int sig) {
  g_signalled = true;
  if (const pid_t child = g_child.load(); child > 0) ::kill(child, sig);
}

// Starts argv with env added; the program's wait status, or -1 when it could not start.
int RunChild(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  struct sigaction sa {};
  sa.sa_handler = Forward;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) sigaction(sig, &sa, nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) signal(sig, SIG_DFL);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "llm-perf-opt rank-exec: cannot start %s\n", args[0]);
    _exit(127);
  }
  g_child = pid;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

}  // namespace

int RunRankExec(const std::vector<std::string>& args) {
  RankExecArgs a;
  if (!ParseRankExec(args, a)) {
    std::fprintf(stderr,
                 "llm-perf-opt rank-exec: internal command (profile/trace put it under a launcher); usage: rank-exec "
                 "--record DIR --step STEP --profiler-args N [--ranks all|0,2] [--env NAME=VALUE]... -- ARGV...\n");
    return 2;
  }
  RankRecord r;
  r.who = pipeline::IdentityFromEnv([](const char* name) { return std::getenv(name); }, Host());
  r.step = a.step;
  r.pid = getpid();
  r.profiled = Chosen(a.ranks, r.who);
  r.start_unix_s = NowUnix();
  const fs::path file = ClaimRecordFile(a, r);
  WriteRecord(file, r);
  std::vector<std::string> argv, env;
  for (std::size_t i = r.profiled ? 0 : a.profiler_args; i < a.argv.size(); ++i) {
    argv.push_back(i < a.profiler_args ? pipeline::ExpandNcuPeers(pipeline::ExpandRank(a.argv[i], r.who), a.ranks, r.who)
                                       : a.argv[i]);
  }
  if (r.profiled) {
    for (const auto& e : a.env) env.push_back(pipeline::ExpandRank(e, r.who));
  }
  const int status = RunChild(argv, env);
  r.finished = true;
  r.end_unix_s = NowUnix();
  r.stopped_from_outside = g_signalled.load();
  if (status < 0) {
    r.exit_code = 127;
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  } else {
    r.exit_code = WEXITSTATUS(status);
  }
  WriteRecord(file, r);
  return r.signal ? 128 + *r.signal : *r.exit_code;
}

}  // namespace llmpo::cli
