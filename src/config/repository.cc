#include "src/config/repository.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "src/config/yaml_io.h"
#include "src/core/atomic_file.h"
#include "src/core/spellcheck.h"

#ifndef LLMPO_SOURCE_CONF_DIR
#define LLMPO_SOURCE_CONF_DIR "conf"
#endif

namespace llmpo::config {
namespace fs = std::filesystem;
namespace {

std::optional<std::string> PackageHeader(const std::string& text) {
  static const RE2 re("(?m)^#\\s*@package\\s+(\\S+)\\s*$");
  std::string package;
  if (RE2::PartialMatch(text, re, &package)) return package;
  return std::nullopt;
}

std::vector<std::string> YamlStems(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      out.push_back(entry.path().stem().string());
    }
  }
  return out;
}

std::string Describe(const std::string& group, const std::string& option) {
  return group.empty() ? fmt::format("config '{}'", option) : fmt::format("option '{}' in group '{}'", option, group);
}

}  // namespace

Repository::Repository(std::vector<fs::path> search_path) : search_path_(std::move(search_path)) {}

bool Repository::IsGroup(const std::string& group) const {
  if (group.empty()) return false;
  std::error_code ec;
  return std::any_of(search_path_.begin(), search_path_.end(),
                     [&](const fs::path& root) { return fs::is_directory(root / group, ec); });
}

std::vector<std::string> Repository::Groups() const {
  std::set<std::string> names;
  for (const auto& root : search_path_) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_directory()) names.insert(fs::relative(it->path(), root).generic_string());
    }
  }
  return {names.begin(), names.end()};
}

std::vector<std::string> Repository::Options(const std::string& group) const {
  std::set<std::string> names;
  for (const auto& root : search_path_) {
    for (auto& stem : YamlStems(root / group)) names.insert(std::move(stem));
  }
  return {names.begin(), names.end()};
}

std::vector<std::string> Repository::PrimaryConfigs() const { return Options(""); }

std::optional<fs::path> Repository::Locate(const std::string& group, const std::string& option) const {
  std::error_code ec;
  for (const auto& root : search_path_) {
    fs::path candidate = root / group / (option + ".yaml");
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

Result<LoadedConfig> Repository::Load(const std::string& group, const std::string& option) const {
  std::optional<fs::path> file = Locate(group, option);
  if (!file) {
    const std::vector<std::string> options = Options(group);
    Error e = MakeError(ExitStatus::kUsage, fmt::format("{} not found", Describe(group, option)));
    if (auto near = ClosestMatch(option, options)) std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
    if (options.empty()) {
      std::vector<std::string> folders;
      for (const auto& root : search_path_) folders.push_back(root.string());
      std::move(e).WithNote(fmt::format("no .yaml files for this in the search path: {}", fmt::join(folders, ", ")));
    } else {
      std::move(e).WithNote(fmt::format("available: {}", fmt::join(options, ", ")));
    }
    return e;
  }
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(*file));
  ASSIGN_OR_RETURN(Node body, LoadYaml(text, file->string()));
  if (!body.is_object()) {
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: a config file must be a mapping of keys to values", file->string()));
  }
  return LoadedConfig{std::move(body), PackageHeader(text), *file};
}

fs::path BuiltinConfigDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path installed = exe.parent_path().parent_path() / "share/llm-perf-opt/conf";
  if (!ec) {
    for (const fs::path& candidate : {exe.parent_path() / "conf", installed}) {
      if (fs::is_regular_file(candidate / "config.yaml", ec)) return candidate;
    }
  }
  return installed;  // missing: composing says "not found" and names this folder
}

}  // namespace llmpo::config
