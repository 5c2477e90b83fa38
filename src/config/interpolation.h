// Resolves ${...} in string values, in place, across the whole tree:
//   ${a.b.c}             absolute key (the value keeps its type when the
//                        string is nothing but the interpolation)
//   ${.sibling} ${..x}   relative to the mapping holding the string
//   ${now:%Y%m%d}        the compose time, strftime format
//   ${oc.env:VAR,default}
//   ${hydra:runtime.cwd} the working directory; other hydra: keys read hydra.*
// "\${" stays a literal "${".
#pragma once

#include <ctime>
#include <filesystem>

#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::config {

struct ResolveContext {
  std::time_t now = 0;  // one instant for every ${now:...} in a composition
  std::filesystem::path cwd;
};

Status ResolveInterpolations(Node& root, const ResolveContext& context);

}  // namespace llmpo::config
