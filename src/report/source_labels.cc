#include "src/report/source_labels.h"

#include <filesystem>
#include <set>

namespace llmpo::report {
namespace {

std::vector<std::string> Parts(const std::string& path) {
  std::vector<std::string> parts;
  for (const auto& p : std::filesystem::path(path)) {
    const std::string s = p.string();
    if (!s.empty() && s != "/") parts.push_back(s);
  }
  return parts;
}

// The last `n` parts joined with '/'; the whole path once n covers them all.
std::string Tail(const std::string& path, const std::vector<std::string>& parts, std::size_t n) {
  if (n >= parts.size()) return path;
  std::string out;
  for (std::size_t i = parts.size() - n; i < parts.size(); ++i) out += (out.empty() ? "" : "/") + parts[i];
  return out;
}

}  // namespace

std::map<std::string, std::string> SourceLabels(const std::vector<SourceInfo>& sources) {
  std::map<std::string, std::vector<std::string>> parts;
  std::map<std::string, std::size_t> depth;
  for (const auto& s : sources) {
    parts.emplace(s.path, Parts(s.path));
    depth.emplace(s.path, 1);
  }
  // Lengthen the labels two different paths share until none do (at most
  // the full paths, which differ).
  for (bool clash = true; clash;) {
    clash = false;
    std::map<std::string, std::set<std::string>> owners;
    for (const auto& [path, n] : depth) owners[Tail(path, parts[path], n)].insert(path);
    for (const auto& [label, paths] : owners) {
      if (paths.size() < 2) continue;
      for (const auto& path : paths) {
        if (depth[path] < parts[path].size()) {
          ++depth[path];
          clash = true;
        }
      }
    }
  }
  std::map<std::string, std::string> labels;
  for (const auto& [path, n] : depth) labels[path] = Tail(path, parts[path], n);
  return labels;
}

std::string LabelOf(const std::map<std::string, std::string>& labels, const std::string& path) {
  const auto it = labels.find(path);
  return it == labels.end() ? path : it->second;
}

}  // namespace llmpo::report
