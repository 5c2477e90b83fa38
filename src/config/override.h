// One command-line override in Hydra's grammar:
//   key=value   +key=value   ++key=value   ~key[=value]
// where key is a dotted config key (pipeline.ncu.enable) or a config group
// with an optional package (profiling/ncu@pipeline.ncu), and value is a
// primitive (typed as YAML), a quoted string, a [list] or a {dict}.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::config {

enum class OverrideAction {
  kChange,    // key=value: the key must already exist
  kAdd,       // +key=value: the key must not exist yet
  kForceAdd,  // ++key=value: add or change
  kDelete,    // ~key or ~key=value
};

struct Override {
  std::string text;  // as the user wrote it
  OverrideAction action = OverrideAction::kChange;
  std::string key;                     // without the prefix and without @package
  std::optional<std::string> package;  // text after '@' in the key
  std::optional<Node> value;           // absent for "~key"
  std::string value_text;              // raw text after '=' (option name for groups)
};

// Parses one override. Errors are usage errors that quote the override with
// a caret under the offending character.
Result<Override> ParseOverride(std::string_view text);

// Parses a value on its own (the part after '='), as ParseOverride does.
Result<Node> ParseOverrideValue(std::string_view text);

}  // namespace llmpo::config
