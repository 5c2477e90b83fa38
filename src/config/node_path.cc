#include "src/config/node_path.h"

#include <fmt/format.h>

#include <charconv>

namespace llmpo::config {
namespace {

std::optional<std::size_t> AsIndex(const std::string& part) {
  std::size_t index = 0;
  const auto* end = part.data() + part.size();
  auto [ptr, ec] = std::from_chars(part.data(), end, index);
  if (ec != std::errc() || ptr != end || part.empty()) return std::nullopt;
  return index;
}

template <typename N>
N* Child(N& node, const std::string& part) {
  if (node.is_object()) {
    auto it = node.find(part);
    return it == node.end() ? nullptr : &*it;
  }
  if (node.is_array()) {
    auto index = AsIndex(part);
    if (index && *index < node.size()) return &node[*index];
  }
  return nullptr;
}

template <typename N>
N* Find(N& root, std::span<const std::string> path) {
  N* node = &root;
  for (const auto& part : path) {
    node = Child(*node, part);
    if (node == nullptr) return nullptr;
  }
  return node;
}

void CollectPaths(const Node& node, const std::string& prefix, std::vector<std::string>& out) {
  if (!node.is_object()) return;
  for (const auto& [key, value] : node.items()) {
    std::string path = prefix.empty() ? key : prefix + "." + key;
    out.push_back(path);
    CollectPaths(value, path, out);
  }
}

}  // namespace

KeyPath SplitKey(std::string_view dotted) {
  KeyPath parts;
  std::string current;
  for (char c : dotted) {
    if (c == '.' || c == '[' || c == ']') {
      if (!current.empty()) parts.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) parts.push_back(std::move(current));
  return parts;
}

std::string JoinKey(std::span<const std::string> path) {
  std::string out;
  for (const auto& part : path) {
    if (!out.empty()) out += '.';
    out += part;
  }
  return out;
}

const Node* FindPath(const Node& root, std::span<const std::string> path) { return Find(root, path); }
Node* FindPath(Node& root, std::span<const std::string> path) { return Find(root, path); }

Status SetPath(Node& root, std::span<const std::string> path, Node value) {
  if (path.empty()) {
    root = std::move(value);
    return OkStatus();
  }
  Node* node = &root;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    Node* next = Child(*node, path[i]);
    if (next == nullptr) {
      if (!node->is_object() && !node->is_null()) {
        return MakeError(ExitStatus::kUsage,
                         fmt::format("'{}' is not a mapping, so it has no key '{}'", JoinKey(path.first(i)), path[i]));
      }
      next = &(*node)[path[i]];
      *next = Node::object();
    }
    node = next;
  }
  const std::string& last = path.back();
  if (node->is_array()) {
    auto index = AsIndex(last);
    if (!index || *index >= node->size()) {
      return MakeError(ExitStatus::kUsage, fmt::format("'{}' is a list of {} items; '{}' is not an index in it",
                                                       JoinKey(path.first(path.size() - 1)), node->size(), last));
    }
    (*node)[*index] = std::move(value);
    return OkStatus();
  }
  if (!node->is_object() && !node->is_null()) {
    return MakeError(ExitStatus::kUsage, fmt::format("'{}' is not a mapping, so it has no key '{}'",
                                                     JoinKey(path.first(path.size() - 1)), last));
  }
  (*node)[last] = std::move(value);
  return OkStatus();
}

bool ErasePath(Node& root, std::span<const std::string> path) {
  if (path.empty()) return false;
  Node* parent = FindPath(root, path.first(path.size() - 1));
  if (parent == nullptr) return false;
  if (parent->is_object()) return parent->erase(path.back()) > 0;
  if (parent->is_array()) {
    auto index = AsIndex(path.back());
    if (!index || *index >= parent->size()) return false;
    parent->erase(*index);
    return true;
  }
  return false;
}

std::vector<std::string> AllKeyPaths(const Node& root) {
  std::vector<std::string> out;
  CollectPaths(root, "", out);
  return out;
}

void MergeInto(Node& dst, const Node& src) {
  if (!dst.is_object() || !src.is_object()) {
    dst = src;
    return;
  }
  for (const auto& [key, value] : src.items()) {
    auto it = dst.find(key);
    if (it == dst.end()) {
      dst[key] = value;
    } else {
      MergeInto(*it, value);
    }
  }
}

}  // namespace llmpo::config
