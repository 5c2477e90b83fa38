// Which process a record belongs to. Sources name processes differently
// (ncu: executable and pid; nsys: a global pid that packs the pid; Kineto:
// a distributed rank and an OS pid; our trace: executable and pid), so the
// fields stay apart instead of being glued into one "name (pid)" string:
// two ranks of one job on different hosts may share a pid, and a rank is
// the identity users know a process by in a distributed run.
#pragma once

#include <fmt/format.h>

#include <compare>
#include <cstdint>
#include <optional>
#include <string>

namespace llmpo::model {

struct ProcessId {
  std::string host{};                  // host name, where the source says ("" : unknown)
  std::string name{};                  // executable's file name ("" : unknown)
  std::optional<std::int64_t> pid{};   // OS process id
  std::optional<std::int64_t> rank{};  // distributed rank (torch.distributed, MPI)

  bool Known() const { return !host.empty() || !name.empty() || pid || rank; }
  // How reports show it: "rank 3", "python3 (1234)", "pid 1234", "python3",
  // with " on HOST" when the host is known; "" when nothing is known.
  std::string Label() const;

  friend auto operator<=>(const ProcessId&, const ProcessId&) = default;
};

// A pid field as text ("1234"): a number, else kept as the name so that
// nothing the source said is lost.
ProcessId ProcessFromPidText(std::string_view name, std::string_view pid_text);

}  // namespace llmpo::model

template <>
struct fmt::formatter<llmpo::model::ProcessId> : fmt::formatter<std::string> {
  auto format(const llmpo::model::ProcessId& p, format_context& ctx) const {
    return fmt::formatter<std::string>::format(p.Label(), ctx);
  }
};
