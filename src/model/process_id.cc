#include "src/model/process_id.h"

#include <charconv>

namespace llmpo::model {

std::string ProcessId::Label() const {
  std::string label;
  if (rank) {
    label = fmt::format("rank {}", *rank);
  } else if (!name.empty() && pid) {
    label = fmt::format("{} ({})", name, *pid);
  } else if (pid) {
    label = fmt::format("pid {}", *pid);
  } else {
    label = name;
  }
  if (!host.empty()) label += label.empty() ? host : " on " + host;
  return label;
}

ProcessId ProcessFromPidText(std::string_view name, std::string_view pid_text) {
  ProcessId p;
  p.name = std::string(name);
  std::int64_t pid = 0;
  const char* end = pid_text.data() + pid_text.size();
  if (!pid_text.empty()) {
    if (auto [at, ec] = std::from_chars(pid_text.data(), end, pid); ec == std::errc() && at == end) {
      p.pid = pid;
    } else if (p.name.empty()) {
      p.name = std::string(pid_text);
    } else {
      p.name += fmt::format(" ({})", pid_text);
    }
  }
  return p;
}

}  // namespace llmpo::model
