#include "src/core/name_gate.h"

#include <cerrno>
#include <mutex>

namespace llmpo {
namespace {

std::mutex& GateMutex() {
  static std::mutex m;
  return m;
}
bool g_closed = false;  // guarded by GateMutex()

}  // namespace

int ThroughNameGate(const std::function<int()>& make) {
  std::lock_guard<std::mutex> hold(GateMutex());
  if (g_closed) {
    errno = ECANCELED;
    return -1;
  }
  return make();
}

void CloseNameGate() {
  std::lock_guard<std::mutex> hold(GateMutex());
  g_closed = true;
}

}  // namespace llmpo
