#include "src/report/json_process.h"

#include <optional>
#include <string>

namespace llmpo::report {

namespace {

std::optional<std::string> Text(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return s;
}

}  // namespace

void WriteProcessMembers(JsonWriter& w, const model::ProcessId& process) {
  w.Member("process", process.Label());
  w.Key("process_identity");
  w.BeginObject();
  w.Member("host", Text(process.host));
  w.Member("name", Text(process.name));
  w.Member("pid", process.pid);
  w.Member("rank", process.rank);
  w.EndObject();
}

}  // namespace llmpo::report
