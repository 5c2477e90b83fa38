// The defaults list of a primary config and the group overrides that edit it:
//   defaults:
//     - profiling/ncu@pipeline.ncu: ncu.default   # group@package: option
//     - _self_                                    # where the file's own keys merge
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/config/node.h"
#include "src/config/override.h"
#include "src/config/repository.h"
#include "src/core/result.h"

namespace llmpo::config {

struct DefaultsEntry {
  bool is_self = false;
  std::string group;                   // a/b/c; empty for _self_
  std::optional<std::string> package;  // as written after '@'
  std::optional<std::string> option;   // nullopt: the group has no option chosen
  bool mandatory = false;              // option was '???': an override must choose one

  std::string Label() const;  // group[@package], as an override would name it
};

// Reads the `defaults` node of a primary config (`source` names the file).
// Without `_self_`, the file's own keys merge last, as in Hydra.
Result<std::vector<DefaultsEntry>> ParseDefaultsList(const Node& defaults, const std::string& source);

// Applies one group override (group=opt, group@pkg=opt, +group..., ++group...,
// ~group) to the list. Option names are checked against the repository.
Status ApplyGroupOverride(std::vector<DefaultsEntry>& entries, const Override& ov, const Repository& repo);

// The dotted path where an entry's option is merged, "" for the root.
std::string EffectivePackage(const DefaultsEntry& entry, const std::optional<std::string>& header);

}  // namespace llmpo::config
