#include "src/pipeline/output_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "src/core/atomic_file.h"
#include "src/core/name_gate.h"
#include "src/ingest/input_file.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
namespace {

constexpr const char* kStagingInfix = ".new-";
constexpr const char* kOldInfix = ".old-";

Error RefuseFolder(const fs::path& dir, std::string_view why) {
  return MakeError(ExitStatus::kFailure, fmt::format("'{}' {}; it was left as it is", dir.string(), why))
      .WithNote("move it away, or write the reports to another folder (--out, hydra.run.dir)");
}

// Our report folders hold a report.json that names the tool near its start.
// Read without following a link, and only from a regular file (a FIFO
// planted there must not block us).
bool WrittenByUs(const fs::path& dir) {
  const int fd = ::open((dir / "report.json").c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  std::string head(400, '\0');
  ssize_t n = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) n = ::read(fd, head.data(), head.size());
  ::close(fd);
  if (n <= 0) return false;
  head.resize(static_cast<std::size_t>(n));
  return head.find("\"name\": \"llm-perf-opt\"") != std::string::npos;
}

// Ok when `dir` is absent or a report folder of ours; `exists` says which.
Status CheckReplaceable(const fs::path& dir, bool& exists) {
  struct stat st {};
  exists = false;
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return OkStatus();
    return MakeError(ExitStatus::kFailure, fmt::format("cannot inspect '{}': {}", dir.string(), std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) return RefuseFolder(dir, "is a symbolic link, not a report folder of llm-perf-opt");
  if (!S_ISDIR(st.st_mode)) return RefuseFolder(dir, "is not a folder");
  if (!WrittenByUs(dir)) return RefuseFolder(dir, "was not written by llm-perf-opt (no report.json of ours)");
  exists = true;
  return OkStatus();
}

// The process's umask, read without changing it (umask(2) sets as it reads,
// which another thread creating a file meanwhile would see): from
// /proc/self/status (Linux 4.7+), else 022.
mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (!line.starts_with("Umask:")) continue;
    return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8) & 0777);
  }
  return 022;
}

}  // namespace

Result<fs::path> MakeStagingFolder(const fs::path& final_dir) {
  std::string pattern = (final_dir.parent_path() / ("." + final_dir.filename().string() + kStagingInfix)).string();
  pattern += "XXXXXX";
  if (ThroughNameGate([&] { return ::mkdtemp(pattern.data()) == nullptr ? -1 : 0; }) != 0) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot create a folder beside '{}': {}", final_dir.string(), std::strerror(errno)));
  }
  // mkdtemp makes it 0700; the reports folder it becomes gets what mkdir
  // gives (0755 under umask 022), as the reports beside it do.
  if (::chmod(pattern.c_str(), 0777 & ~CurrentUmask()) != 0) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot set the mode of '{}': {}", pattern, std::strerror(errno)));
  }
  return fs::path(pattern);
}

Result<std::optional<fs::path>> ReplaceFolder(const fs::path& final_dir, const fs::path& staging) {
  bool exists = false;
  RETURN_IF_ERROR(CheckReplaceable(final_dir, exists));
  if (!exists) {
    if (ThroughNameGate([&] { return ::rename(staging.c_str(), final_dir.c_str()); }) != 0) {
      return MakeError(ExitStatus::kFailure, fmt::format("cannot move the new reports to '{}': {}", final_dir.string(),
                                                         std::strerror(errno)));
    }
    return std::optional<fs::path>();
  }
  // One step: readers see the old folder or the new one.
  if (ThroughNameGate([&] {
        return ::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, final_dir.c_str(), RENAME_EXCHANGE);
      }) != 0) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot replace '{}': {}", final_dir.string(), std::strerror(errno)));
  }
  return std::optional<fs::path>(staging);  // now the previous reports
}

Result<std::optional<fs::path>> MoveAsideReportFolder(const fs::path& final_dir) {
  bool exists = false;
  RETURN_IF_ERROR(CheckReplaceable(final_dir, exists));
  if (!exists) return std::optional<fs::path>();
  // An empty hidden folder of a leftover's name, which the rename replaces.
  std::string aside = (final_dir.parent_path() / ("." + final_dir.filename().string() + kOldInfix)).string();
  aside += "XXXXXX";
  if (ThroughNameGate([&] { return ::mkdtemp(aside.data()) == nullptr ? -1 : 0; }) != 0 ||
      ThroughNameGate([&] { return ::rename(final_dir.c_str(), aside.c_str()); }) != 0) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot remove '{}': {}", final_dir.string(), std::strerror(errno)));
  }
  return std::optional<fs::path>(fs::path(aside));
}

Status CheckReportFolder(const fs::path& final_dir) {
  bool exists = false;
  return CheckReplaceable(final_dir, exists);
}

Status ReplaceOutputsRecord(const fs::path& folder, const std::vector<std::string>& written) {
  static const std::regex plain_name(R"([A-Za-z0-9_-][A-Za-z0-9_.-]*)");
  std::set<std::string> now;
  for (const auto& f : written) {
    if (std::regex_match(f, plain_name)) now.insert(f);
  }
  const fs::path record = folder / kOutputsRecordName;
  const int fd = ::open(record.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    struct stat st {};
    std::string text;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (1 << 20)) {
      text.resize(static_cast<std::size_t>(st.st_size));
      const ssize_t n = ::read(fd, text.data(), text.size());
      text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    }
    ::close(fd);
    std::istringstream lines(text);
    for (std::string name; std::getline(lines, name);) {
      if (!std::regex_match(name, plain_name) || now.count(name)) continue;
      struct stat old {};
      if (::lstat((folder / name).c_str(), &old) == 0 && S_ISREG(old.st_mode)) ::unlink((folder / name).c_str());
    }
  }
  std::string text;
  for (const auto& name : now) text += name + "\n";
  return WriteFileAtomically(record, text, Durability::kUnsynced);
}

std::size_t RemoveLeftovers(const fs::path& folder, const std::string& final_name) {
  // The atomic writer's names (src/core/atomic_file.cc): "<file>.tmp." and 12
  // characters of its base-32 alphabet, for the kinds of files we write and
  // the outputs record (.llmpo-outputs, kOutputsRecordName).
  static const std::regex temp_file(
      R"((\.llmpo-outputs|[A-Za-z0-9_.-]+\.(md|json|html|csv|txt|yaml))\.tmp\.[a-z2-7]{12})");
  const std::string staging = "." + final_name + kStagingInfix;
  const std::string old = "." + final_name + kOldInfix;
  std::size_t removed = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    const auto status = it->symlink_status(type_ec);
    if (type_ec) continue;
    const bool leftover_folder = fs::is_directory(status) && (name.starts_with(staging) || name.starts_with(old));
    const bool leftover_file = fs::is_regular_file(status) &&
                               (std::regex_match(name, temp_file) || name.starts_with(ingest::kUtf8CopyPrefix));
    if (!leftover_folder && !leftover_file) continue;
    // A writer of the stopped import may be removing the same tree (its own
    // clean-up after a refused write): a part it removed first fails ours,
    // so try again until the tree is gone.
    std::error_code rm_ec;
    for (int attempt = 0; attempt < 20; ++attempt) {
      fs::remove_all(it->path(), rm_ec);
      if (!rm_ec) break;
    }
    if (!rm_ec) ++removed;
  }
  return removed;
}

}  // namespace llmpo::pipeline
