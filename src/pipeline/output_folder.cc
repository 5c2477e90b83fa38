#include "src/pipeline/output_folder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

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

Status RemoveTree(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);  // removes links, never follows them
  if (ec) return MakeError(ExitStatus::kFailure, fmt::format("cannot remove '{}': {}", dir.string(), ec.message()));
  return OkStatus();
}

}  // namespace

Result<fs::path> MakeStagingFolder(const fs::path& final_dir) {
  std::string pattern = (final_dir.parent_path() / ("." + final_dir.filename().string() + kStagingInfix)).string();
  pattern += "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot create a folder beside '{}': {}", final_dir.string(), std::strerror(errno)));
  }
  return fs::path(pattern);
}

Status ReplaceFolder(const fs::path& final_dir, const fs::path& staging) {
  bool exists = false;
  RETURN_IF_ERROR(CheckReplaceable(final_dir, exists));
  if (!exists) {
    if (::rename(staging.c_str(), final_dir.c_str()) != 0) {
      return MakeError(ExitStatus::kFailure, fmt::format("cannot move the new reports to '{}': {}", final_dir.string(),
                                                         std::strerror(errno)));
    }
    return OkStatus();
  }
  // One step: readers see the old folder or the new one.
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, final_dir.c_str(), RENAME_EXCHANGE) != 0) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot replace '{}': {}", final_dir.string(), std::strerror(errno)));
  }
  return RemoveTree(staging);  // now the previous reports
}

Status CheckReportFolder(const fs::path& final_dir) {
  bool exists = false;
  return CheckReplaceable(final_dir, exists);
}

Status RemoveReportFolder(const fs::path& final_dir) {
  bool exists = false;
  RETURN_IF_ERROR(CheckReplaceable(final_dir, exists));
  return exists ? RemoveTree(final_dir) : OkStatus();
}

std::size_t RemoveLeftovers(const fs::path& folder, const std::string& final_name) {
  // The atomic writer's names (src/core/atomic_file.cc): "<file>.tmp." and 12
  // characters of its base-32 alphabet, for the kinds of files we write.
  static const std::regex temp_file(R"([A-Za-z0-9_.-]+\.(md|json|html|csv|txt|yaml)\.tmp\.[a-z2-7]{12})");
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
    const bool leftover_file = fs::is_regular_file(status) && std::regex_match(name, temp_file);
    if (!leftover_folder && !leftover_file) continue;
    std::error_code rm_ec;
    fs::remove_all(it->path(), rm_ec);
    if (!rm_ec) ++removed;
  }
  return removed;
}

}  // namespace llmpo::pipeline
