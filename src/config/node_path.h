// Dotted key paths into the configuration tree: "pipeline.ncu.enable",
// "a.list.0" (list index), "a.list[0]".
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::config {

using KeyPath = std::vector<std::string>;

KeyPath SplitKey(std::string_view dotted);
std::string JoinKey(std::span<const std::string> path);

// The node at `path`, or nullptr when any part is missing.
const Node* FindPath(const Node& root, std::span<const std::string> path);
Node* FindPath(Node& root, std::span<const std::string> path);

// Sets the node at `path`, creating intermediate mappings. Fails when an
// intermediate exists and is not a mapping (or a list indexed in range).
Status SetPath(Node& root, std::span<const std::string> path, Node value);

// Removes the node at `path`; false if it was not there.
bool ErasePath(Node& root, std::span<const std::string> path);

// Every key path in the tree (mappings only), depth first, for "did you mean".
std::vector<std::string> AllKeyPaths(const Node& root);

// Recursive merge as OmegaConf does it: mappings merge key by key; anything
// else (lists included) replaces.
void MergeInto(Node& dst, const Node& src);

}  // namespace llmpo::config
