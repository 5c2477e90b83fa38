// Hydra's multirun sweep grammar over the command-line overrides:
//   key=a,b,c              one point per value (quoted values may hold commas)
//   key=range(START,STOP[,STEP])   Python's range: STOP excluded; ints or floats
//   key=choice(a,b)        one point per value
//   group=glob(PATTERN[,exclude=PATTERN])  the group's options that match
// Several swept keys make their cartesian product; the last key varies
// fastest (Hydra's order). A point is the list of plain overrides that
// composes it: the fixed ones, then one value per swept key.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"

namespace llmpo::config {

struct SweepAxis {
  std::string key;                     // as written before '=', prefix included (e.g. "model.batch")
  std::string text;                    // the override as the user wrote it
  std::vector<std::string> values;     // each value's text, as it goes after '='
};

struct SweepPlan {
  std::vector<std::string> fixed;  // overrides that are not swept, in order
  std::vector<SweepAxis> axes;     // swept keys, in order
  std::size_t PointCount() const;  // 1 without axes
  // The values of point `index` (one per axis) and its overrides.
  std::vector<std::string> PointValues(std::size_t index) const;
  std::vector<std::string> PointOverrides(std::size_t index) const;
};

// The options of a config group; nullopt when `key` is not a group.
using GroupOptionsFn = std::function<std::optional<std::vector<std::string>>(const std::string& key)>;

// Splits the overrides into fixed ones and swept axes. Errors (exit 2):
// an unknown function (with "did you mean"), an empty range, a zero step, a
// glob on a key that is no group or that matches nothing, a sweep on `~key`.
Result<SweepPlan> PlanSweep(const std::vector<std::string>& overrides, const GroupOptionsFn& group_options);

// True when an override is a sweep (a top-level comma, or a range/choice/glob
// value): without -m such an override is refused with this hint.
bool LooksLikeSweep(std::string_view override_text);

// Splits `text` at commas outside quotes, brackets, braces and ${...}; each
// part trimmed of spaces. An unclosed quote keeps the rest in the last part.
std::vector<std::string> SplitTopLevel(std::string_view text);

}  // namespace llmpo::config
