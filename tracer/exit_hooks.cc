#include "tracer/exit_hooks.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "tracer/trace_buffer.h"

namespace llmpo::tracer {
namespace {

std::mutex g_mu;
std::vector<std::pair<int, void (*)()>>& Hooks() {
  static auto* hooks = new std::vector<std::pair<int, void (*)()>>;
  return *hooks;
}

void RunHooks() {
  std::vector<std::pair<int, void (*)()>> hooks;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    hooks = Hooks();
  }
  std::stable_sort(hooks.begin(), hooks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, hook] : hooks) hook();
  FlushAll("exit");
}

}  // namespace

void AddExitHook(void (*hook)(), int order) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (Hooks().empty()) std::atexit(RunHooks);
  Hooks().emplace_back(order, hook);
}

}  // namespace llmpo::tracer
