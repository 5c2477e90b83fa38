// Typing of plain (unquoted) scalars, shared by the YAML loader and the
// override parser so that `x: 1` in a file and `x=1` on the command line
// mean the same thing. Follows the YAML 1.2 core schema, case-insensitive as
// Hydra's override grammar is: null/~, true/false, ints (with _ separators,
// 0x/0o prefixes), floats (1.5, 1e-3, .inf, inf, nan); anything else is a string.
#pragma once

#include <string>
#include <string_view>

#include "src/config/node.h"

namespace llmpo::config {

Node TypePlainScalar(std::string_view text);

// True when `text`, written unquoted, would be read back as something other
// than this string (so a writer must quote it).
bool NeedsQuotesToStayString(std::string_view text);

// The scalar as a user would write it: strings raw, numbers and bools as YAML.
std::string ScalarToText(const Node& node);

}  // namespace llmpo::config
