#include "src/pipeline/nsys_agent.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace llmpo::pipeline {
namespace fs = std::filesystem;
namespace {

// The agents' process ids: an argument "--start-agent" and a session name
// ending in "-PID".
std::vector<pid_t> AgentsOf(pid_t nsys_pid) {
  const std::string suffix = "-" + std::to_string(nsys_pid);
  std::vector<pid_t> found;
  std::error_code ec;
  for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(it->path() / "cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bool agent = false, ours = false;
    for (std::size_t start = 0; start < cmdline.size();) {
      const std::size_t end = cmdline.find('\0', start);
      const std::string arg = cmdline.substr(start, end == std::string::npos ? std::string::npos : end - start);
      agent |= arg == "--start-agent";
      ours |= arg.starts_with("--session-name=") && arg.ends_with(suffix);
      if (end == std::string::npos) break;
      start = end + 1;
    }
    if (agent && ours) found.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return found;
}

}  // namespace

int StopNsysAgents(pid_t nsys_pid, double grace_s) {
  if (nsys_pid <= 0) return 0;
  const std::vector<pid_t> agents = AgentsOf(nsys_pid);
  for (pid_t pid : agents) kill(pid, SIGTERM);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  std::vector<pid_t> left = agents;
  while (!left.empty() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::erase_if(left, [](pid_t pid) { return kill(pid, 0) != 0; });
  }
  for (pid_t pid : left) kill(pid, SIGKILL);
  return static_cast<int>(agents.size());
}

}  // namespace llmpo::pipeline
